/// <reference path="./keyring-platform.d.ts" />
/**
 * The OS keychain through @napi-rs/keyring's keytar-compatible API, service
 * `lanyard`. Every call has a time limit: a locked or absent Secret Service
 * must not hang the CLI. Writes and deletes hold the config directory's
 * cross-process lock (name `keychain`), as the file store's do, so writers in
 * parallel processes are serialised the same way whichever store is in use.
 */
import type { CredentialStore } from '../deps.js';
import { CredentialStoreError } from '../errors.js';
import { KEYCHAIN_SERVICE } from './accounts.js';
import { type CredentialLock, noLock } from './lock.js';

type Keytar = typeof import('@napi-rs/keyring/keytar.js');

/** What the native binding itself exports (keytar.js wraps it). */
interface NativeKeyring {
  AsyncEntry: new (
    service: string,
    account: string,
  ) => { getPassword(): Promise<string | null | undefined>; setPassword(p: string): Promise<void>; deletePassword(): Promise<boolean> };
  findCredentialsAsync(service: string): Promise<Array<{ account: string; password: string }>>;
}

/**
 * The binding of this platform, loaded straight from its package: the
 * package's own loader (index.js) first probes for musl and tries a file
 * beside itself, which costs ≈ 3 ms of the keychain path of every command.
 * Linux with glibc only; anywhere else, or when the package is not where
 * this module can resolve it (a strict installer, an ES module host that
 * cannot import a `.node` file), the keytar-compatible API of the main
 * package is used as before.
 */
async function platformBinding(): Promise<Keytar | undefined> {
  if (process.platform !== 'linux') return undefined;
  let native: NativeKeyring;
  try {
    if (process.arch === 'x64') native = (await import('@napi-rs/keyring-linux-x64-gnu')) as NativeKeyring;
    else if (process.arch === 'arm64') native = (await import('@napi-rs/keyring-linux-arm64-gnu')) as NativeKeyring;
    else return undefined;
  } catch {
    return undefined;
  }
  const { AsyncEntry, findCredentialsAsync } = (native as NativeKeyring & { default?: NativeKeyring }).default ?? native;
  if (typeof AsyncEntry !== 'function' || typeof findCredentialsAsync !== 'function') return undefined;
  // The keytar-compatible calls this store makes, as keytar.js defines them.
  return {
    getPassword: (service: string, account: string) => new AsyncEntry(service, account).getPassword(),
    setPassword: (service: string, account: string, password: string) => new AsyncEntry(service, account).setPassword(password),
    deletePassword: (service: string, account: string) => new AsyncEntry(service, account).deletePassword(),
    findCredentials: (service: string) => findCredentialsAsync(service),
  } as unknown as Keytar;
}

/** How long a keychain call may take by default (LANYARD_KEYCHAIN_TIMEOUT_MS overrides). */
export const DEFAULT_KEYCHAIN_TIMEOUT_MS = 3000;

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
    private readonly keytar: Keytar,
    private readonly timeoutMs: number,
    private readonly service: string,
    /** Held by every write and delete (noLock when none is given). */
    readonly lock: CredentialLock,
  ) {}

  /** Loads the binding; throws CredentialStoreError when it cannot load. */
  static async load(options: { timeoutMs?: number; service?: string; lock?: CredentialLock } = {}): Promise<KeychainCredentialStore> {
    let keytar: Keytar;
    try {
      keytar = (await platformBinding()) ?? (await import('@napi-rs/keyring/keytar.js').then((mod: Keytar & { default?: Keytar }) => mod.default ?? mod));
    } catch (err) {
      throw new CredentialStoreError('the keychain binding could not be loaded', { cause: err });
    }
    return new KeychainCredentialStore(keytar, options.timeoutMs ?? DEFAULT_KEYCHAIN_TIMEOUT_MS, options.service ?? KEYCHAIN_SERVICE, options.lock ?? noLock);
  }

  async #call<T>(what: string, f: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        f(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new CredentialStoreError(`the keychain did not answer within ${this.timeoutMs} ms (${what})`)), this.timeoutMs);
          timer.unref?.();
        }),
      ]);
    } catch (err) {
      if (err instanceof CredentialStoreError) throw err;
      throw new CredentialStoreError(`keychain ${what} failed: ${String((err as Error)?.message ?? err).split('\n')[0]}`, { cause: err });
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Opens the store: one search, which proves the Secret Service answers
   * (a missing or locked one fails here, not mid-command) and reads every
   * entry with its secret (the search fetches the secrets anyway). The names
   * serve `list()`; the entries serve `opened`.
   */
  async open(): Promise<void> {
    const all = await this.#call('list', () => this.keytar.findCredentials(this.service));
    this.#opened = new Map(all.map((c) => [c.account, c.password]));
    this.#names = Promise.resolve(all.map((c) => c.account));
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
