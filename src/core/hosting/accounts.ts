/**
 * Stored hosting accounts. Each account is one credential-store entry
 *   hosting:<api host>:<login>   → JSON token record
 * and the active login of a host is
 *   hosting:<api host>           → the login (plain text)
 * (service name `lanyard`; see credentials/accounts.ts). Records are read
 * from every store given (keychain first, then the 0600 file) and written to
 * the primary one; a copy in another store is removed so there is one truth.
 *
 * Older single-account stores are read as they are and migrated on first use:
 * a token record kept under the host entry itself (`hosting:<api host>` → JSON)
 * is copied to its own entry and the host entry becomes the pointer to it; a
 * store with accounts but no (or a dangling) pointer makes its newest account
 * active. A migration that cannot be written still serves the token.
 */
import { accountKey, hostOf } from '../credentials/accounts.js';
import type { CredentialStore } from '../deps.js';
import { LanyardError, ValidationError } from '../errors.js';
import type { TokenSet } from './oauth.js';
import { isValidLogin } from './user.js';

export type TokenOrigin = 'device' | 'web' | 'pasted' | 'personal';

export interface HostingTokenRecord {
  login: string;
  token: string;
  scopes: string[];
  origin: TokenOrigin;
  clientId?: string;
  createdAt: string;
  /** ISO time the access token expires (installable apps). */
  expiresAt?: string;
  refreshToken?: string;
  refreshTokenExpiresAt?: string;
}

export interface StoredAccount {
  record: HostingTokenRecord;
  store: CredentialStore;
  active: boolean;
}

export function recordFromTokenSet(
  t: TokenSet,
  o: { login: string; origin: TokenOrigin; clientId?: string; nowMs: number; scopes?: readonly string[] },
): HostingTokenRecord {
  return {
    login: o.login,
    token: t.accessToken,
    scopes: [...(o.scopes ?? t.scopes)],
    origin: o.origin,
    ...(o.clientId ? { clientId: o.clientId } : {}),
    createdAt: new Date(o.nowMs).toISOString(),
    ...(t.expiresIn !== undefined ? { expiresAt: new Date(o.nowMs + t.expiresIn * 1000).toISOString() } : {}),
    ...(t.refreshToken ? { refreshToken: t.refreshToken } : {}),
    ...(t.refreshTokenExpiresIn !== undefined ? { refreshTokenExpiresAt: new Date(o.nowMs + t.refreshTokenExpiresIn * 1000).toISOString() } : {}),
  };
}

function parseRecord(text: string | undefined): HostingTokenRecord | undefined {
  if (!text) return undefined;
  try {
    const r = JSON.parse(text) as HostingTokenRecord;
    // A stored login must be a valid login (one stored before the check, with a line break, is ignored).
    return r && typeof r.login === 'string' && isValidLogin(r.login) && typeof r.token === 'string' ? r : undefined;
  } catch {
    return undefined;
  }
}

/** The stored logins of a host, for messages: `(stored: hubot, mona)` or `(none stored)`. */
function storedList(logins: readonly string[]): string {
  return logins.length ? `(stored: ${logins.join(', ')})` : '(none stored)';
}

/** What `auth switch` does with the stored accounts of a host. */
export type SwitchChoice = { login: string } | { ask: StoredAccount[] };

/**
 * gh's rules: `--user` names the account; one account is the one; with two,
 * the one that is not active; with more, someone must choose (a prompt on a
 * terminal, else `--user`).
 */
export function chooseSwitchTarget(host: string, accounts: readonly StoredAccount[], login?: string): SwitchChoice {
  if (!accounts.length) throw new LanyardError('not_signed_in', `no hosting account is stored for ${host}`);
  if (login !== undefined) return { login: findAccount(host, accounts, login).record.login };
  if (accounts.length === 1) return { login: accounts[0]!.record.login };
  if (accounts.length === 2) return { login: (accounts.find((a) => !a.active) ?? accounts[1]!).record.login };
  return { ask: [...accounts] };
}

/** The stored account of `login` (exactly, else ignoring case as the service does); an unknown one is a usage error. */
export function findAccount<T extends { record: HostingTokenRecord }>(host: string, accounts: readonly T[], login: string): T {
  const found = accounts.find((a) => a.record.login === login) ?? accounts.find((a) => a.record.login.toLowerCase() === login.toLowerCase());
  if (!found)
    throw new ValidationError(`no stored hosting account ${JSON.stringify(login)} on ${host} ${storedList(accounts.map((a) => a.record.login).sort())}`);
  return found;
}

/** How HostingAccounts reads the stores. `asOpened`: from what each store read when it was opened, where it kept that (see CredentialStore.opened). */
export interface AccountReadOptions {
  asOpened?: boolean;
}

const opened = (s: CredentialStore, o: AccountReadOptions) => (o.asOpened ? s.opened : undefined);

function read(s: CredentialStore, name: string, o: AccountReadOptions): Promise<string | undefined> | string | undefined {
  const m = opened(s, o);
  return m ? m.get(name) : s.get(name);
}

/**
 * The login a credential-store name holds for `host` (`hosting:<host>:<login>`),
 * or undefined when the name is not one of that host's accounts.
 */
export function accountLoginOf(host: string, name: string): string | undefined {
  const prefix = `${accountKey('hosting', host)}:`;
  if (!name.startsWith(prefix)) return undefined;
  const login = name.slice(prefix.length);
  // `hosting:127.0.0.1:` is also the prefix of the accounts of `127.0.0.1:8765`; logins have no colon.
  return login && !login.includes(':') ? login : undefined;
}

export class HostingAccounts {
  readonly host: string;
  readonly #stores: readonly CredentialStore[];
  /** A single-account record found under the host entry whose migration could not be written. */
  #legacy?: { record: HostingTokenRecord; store: CredentialStore };

  /** `stores[0]` is where new tokens go. */
  constructor(apiUrl: string, stores: readonly CredentialStore[]) {
    this.host = hostOf(apiUrl);
    this.#stores = stores;
  }

  /** The accounts of a host named as in `auth status` (`127.0.0.1:8765`, `api.example.com`). */
  static ofHost(host: string, stores: readonly CredentialStore[]): HostingAccounts {
    return new HostingAccounts(`https://${host}`, stores);
  }

  get primary(): CredentialStore {
    return this.#stores[0]!;
  }

  #key(login?: string): string {
    return login === undefined ? accountKey('hosting', this.host) : accountKey('hosting', this.host, login);
  }

  /** The login the host entry names, migrating a single-account record kept there. */
  async #pointer(o: AccountReadOptions = {}): Promise<string | undefined> {
    for (const s of this.#stores) {
      const v = await read(s, this.#key(), o);
      if (!v) continue;
      const legacy = parseRecord(v);
      if (!legacy) return v;
      await this.#migrate(legacy, v, s);
      return legacy.login;
    }
    return undefined;
  }

  /** Record first, pointer second: at no moment is the token stored nowhere. */
  async #migrate(record: HostingTokenRecord, text: string, store: CredentialStore): Promise<void> {
    try {
      if (!parseRecord(await store.get(this.#key(record.login)))) await store.set(this.#key(record.login), text);
      await store.set(this.#key(), record.login);
      this.#legacy = undefined;
    } catch {
      this.#legacy = { record, store };
    }
  }

  /**
   * The active account: the one the host entry names, when it is stored; else
   * (no entry, or one naming a deleted account) the newest stored account,
   * which is then recorded as active.
   */
  async active(): Promise<{ record: HostingTokenRecord; store: CredentialStore } | undefined> {
    const pointer = await this.#pointer();
    const named = pointer ? await this.get(pointer) : undefined;
    return named ?? this.#adoptNewest(await this.#records());
  }

  async activeLogin(): Promise<string | undefined> {
    return (await this.active())?.record.login;
  }

  async #adoptNewest<T extends { record: HostingTokenRecord; store: CredentialStore }>(records: readonly T[]): Promise<T | undefined> {
    if (!records.length) return undefined;
    const newest = records.reduce((a, b) => (Date.parse(b.record.createdAt) > Date.parse(a.record.createdAt) ? b : a));
    await newest.store.set(this.#key(), newest.record.login).catch(() => undefined);
    return newest;
  }

  async get(login: string): Promise<{ record: HostingTokenRecord; store: CredentialStore } | undefined> {
    for (const store of this.#stores) {
      const record = parseRecord(await store.get(this.#key(login)));
      if (record) return { record, store };
    }
    return this.#legacy?.record.login === login ? { ...this.#legacy } : undefined;
  }

  /** The stored account of `login` (exactly, else ignoring case); throws a usage error naming the stored ones. */
  async find(login: string): Promise<{ record: HostingTokenRecord; store: CredentialStore }> {
    const exact = await this.get(login);
    if (exact) return exact;
    await this.#pointer();
    return findAccount(this.host, await this.#records(), login);
  }

  /** Every record of this host, once each (the first store holding it wins); `asOpened`: see list(). */
  async #records(o: AccountReadOptions = {}): Promise<Array<{ record: HostingTokenRecord; store: CredentialStore }>> {
    const seen = new Set<string>();
    const out: Array<{ record: HostingTokenRecord; store: CredentialStore }> = [];
    for (const store of this.#stores) {
      const m = opened(store, o);
      for (const name of m ? m.keys() : await store.list()) {
        const login = accountLoginOf(this.host, name);
        if (login === undefined || seen.has(login)) continue;
        const record = parseRecord(await read(store, name, o));
        if (!record) continue;
        seen.add(login);
        out.push({ record, store });
      }
    }
    if (this.#legacy && !seen.has(this.#legacy.record.login)) out.push({ ...this.#legacy });
    return out;
  }

  /**
   * Every stored account of the host, the active one first (marked), then by
   * login. `asOpened`: from what each store read when it was opened, where it
   * kept that (the keychain's one search; see CredentialStore.opened), else
   * read now — for a listing shown to the user, not for a decision under the lock.
   */
  async list(o: AccountReadOptions = {}): Promise<StoredAccount[]> {
    const pointer = await this.#pointer(o);
    const records = await this.#records(o);
    const active = (records.find((r) => r.record.login === pointer) ?? (await this.#adoptNewest(records)))?.record.login;
    const out = records.map((r) => ({ ...r, active: r.record.login === active }));
    return out.sort((a, b) => Number(b.active) - Number(a.active) || a.record.login.localeCompare(b.record.login));
  }

  /** Saves a record in the primary store (and makes it the active account). */
  async save(record: HostingTokenRecord, o: { activate?: boolean } = {}): Promise<CredentialStore> {
    await this.primary.set(this.#key(record.login), JSON.stringify(record));
    for (const s of this.#stores.slice(1)) if (s !== this.primary) await s.delete(this.#key(record.login)).catch(() => false);
    if (o.activate !== false) await this.#setPointer(record.login);
    return this.primary;
  }

  async #setPointer(login: string): Promise<void> {
    await this.primary.set(this.#key(), login);
    for (const s of this.#stores.slice(1)) if (s !== this.primary) await s.delete(this.#key()).catch(() => false);
  }

  /** Makes a stored account the active one (`auth switch`); an unknown login is a usage error. Returns the login as stored. */
  async activate(login: string): Promise<string> {
    const found = await this.find(login);
    await this.#setPointer(found.record.login);
    return found.record.login;
  }

  /** Replaces a record where it is stored (token refresh). */
  async update(record: HostingTokenRecord, store: CredentialStore): Promise<void> {
    await store.set(this.#key(record.login), JSON.stringify(record));
  }

  /** Deletes an account everywhere; when it was active, another account (if any) becomes active. */
  async remove(login: string): Promise<boolean> {
    const wasActive = (await this.activeLogin()) === login;
    let removed = false;
    for (const s of this.#stores) removed = (await s.delete(this.#key(login))) || removed;
    if (this.#legacy?.record.login === login) this.#legacy = undefined;
    if (wasActive) {
      for (const s of this.#stores) await s.delete(this.#key());
      // The newest remaining account becomes active (recorded by activeLogin).
      await this.activeLogin();
    }
    return removed;
  }
}
