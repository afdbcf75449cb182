/**
 * The OS keychain through @napi-rs/keyring's keytar-compatible API, service
 * `lanyard`. Every call has a time limit: a locked or absent Secret Service
 * must not hang the CLI. Writes and deletes hold the config directory's
 * cross-process lock (name `keychain`), as the file store's do, so writers in
 * parallel processes are serialised the same way whichever store is in use.
 */
import type { CredentialStore } from '../deps.js';
import { KEYCHAIN_SERVICE } from './accounts.js';
import { DEFAULT_KEYCHAIN_TIMEOUT_MS, type KeychainBinding, type KeychainEntry, keychainCall, loadKeychainBinding } from './keychain-binding.js';
import { type CredentialLock, noLock } from './lock.js';

export { DEFAULT_KEYCHAIN_TIMEOUT_MS } from './keychain-binding.js';

/** Options of {@link KeychainCredentialStore.load} and {@link KeychainCredentialStore.fromOpening}. */
export interface KeychainStoreOptions {
  timeoutMs?: number;
  service?: string;
  lock?: CredentialLock;
}

/** The lock name of keychain writes. */
const KEYCHAIN_LOCK = 'keychain';

export class KeychainCredentialStore implements CredentialStore {
  readonly kind = 'keychain';
  /**
   * The account names, read once per store: every Secret Service search is a
   * few D-Bus round trips that fetch the secrets too, and `auth status` asks
   * for the list once per service. Writes through this store keep it up to
   * date; secrets themselves are never cached (get() always asks the keychain,
   * so a token another process refreshed is seen).
   */
  #names: Promise<string[]> | undefined;
  /** What the opening search read (see `opened`); dropped by this store's first write. */
  #opened: ReadonlyMap<string, string> | undefined;
  private constructor(
    private readonly keytar: KeychainBinding,
    private readonly timeoutMs: number,
    private readonly service: string,
    /** Held by every write and delete (noLock when none is given). */
    readonly lock: CredentialLock,
  ) {}

  /** Loads the binding; throws CredentialStoreError when it cannot load. */
  static async load(options: KeychainStoreOptions = {}): Promise<KeychainCredentialStore> {
    return KeychainCredentialStore.#create(await loadKeychainBinding(), options);
  }

  /**
   * A store already opened: the binding and what its opening search read
   * (see `startKeychainOpen`, which may run before the rest of the program
   * has loaded). The same as `load()` then `open()`.
   */
  static fromOpening(binding: KeychainBinding, entries: readonly KeychainEntry[], options: KeychainStoreOptions = {}): KeychainCredentialStore {
    const store = KeychainCredentialStore.#create(binding, options);
    store.#take(entries);
    return store;
  }

  static #create(binding: KeychainBinding, o: KeychainStoreOptions): KeychainCredentialStore {
    return new KeychainCredentialStore(binding, o.timeoutMs ?? DEFAULT_KEYCHAIN_TIMEOUT_MS, o.service ?? KEYCHAIN_SERVICE, o.lock ?? noLock);
  }

  #call<T>(what: string, f: () => Promise<T>): Promise<T> {
    return keychainCall(what, this.timeoutMs, f);
  }

  /**
   * Opens the store: one search, which proves the Secret Service answers
   * (a missing or locked one fails here, not mid-command) and reads every
   * entry with its secret (the search fetches the secrets anyway). The names
   * serve `list()`; the entries serve `opened`.
   */
  async open(): Promise<void> {
    this.#take(await this.#call('list', () => this.keytar.findCredentials(this.service)));
  }

  /** Keeps what an opening search read: the names for `list()`, the entries for `opened`. */
  #take(entries: readonly KeychainEntry[]): void {
    this.#opened = new Map(entries.map((c) => [c.account, c.password]));
    this.#names = Promise.resolve(entries.map((c) => c.account));
  }

  /**
   * The entries as the opening search read them, until this store writes:
   * one search for a whole listing (`auth status`) instead of a D-Bus
   * connection and session per entry read. As old as the command: a read
   * that must see other processes' latest writes (the re-read under the
   * lock) uses get().
   */
  get opened(): ReadonlyMap<string, string> | undefined {
    return this.#opened;
  }

  async get(account: string): Promise<string | undefined> {
    const v = await this.#call('read', () => this.keytar.getPassword(this.service, account));
    return v ?? undefined;
  }

  async set(account: string, secret: string): Promise<void> {
    this.#opened = undefined;
    await this.lock.withLock(KEYCHAIN_LOCK, () => this.#call('write', () => this.keytar.setPassword(this.service, account, secret)));
    const names = this.#names;
    if (names) this.#names = names.then((n) => (n.includes(account) ? n : [...n, account]));
  }

  async delete(account: string): Promise<boolean> {
    this.#opened = undefined;
    const removed = await this.lock.withLock(KEYCHAIN_LOCK, () => this.#call('delete', () => this.keytar.deletePassword(this.service, account)));
    const names = this.#names;
    if (names) this.#names = names.then((n) => n.filter((a) => a !== account));
    return removed;
  }

  async list(): Promise<string[]> {
    this.#names ??= this.#call('list', () => this.keytar.findCredentials(this.service)).then((all) => all.map((c) => c.account));
    // A failed search is not kept: the next call asks again.
    this.#names.catch(() => {
      this.#names = undefined;
    });
    return [...(await this.#names)];
  }
}
