/**
 * Stored hosting accounts. Each account is one credential-store entry
 *   hosting:<api host>:<login>   → JSON token record
 * and the active login of a host is
 *   hosting:<api host>           → the login (plain text)
 * (service name `lanyard`; see credentials/accounts.ts). Records are read
 * from every store given (keychain first, then the 0600 file) and written to
 * the primary one; a copy in another store is removed so there is one truth.
 */
import { accountKey, hostOf } from '../credentials/accounts.js';
import type { CredentialStore } from '../deps.js';
import type { TokenSet } from './oauth.js';

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
    return r && typeof r.login === 'string' && typeof r.token === 'string' ? r : undefined;
  } catch {
    return undefined;
  }
}

export class HostingAccounts {
  readonly host: string;
  readonly #stores: readonly CredentialStore[];

  /** `stores[0]` is where new tokens go. */
  constructor(apiUrl: string, stores: readonly CredentialStore[]) {
    this.host = hostOf(apiUrl);
    this.#stores = stores;
  }

  get primary(): CredentialStore {
    return this.#stores[0]!;
  }

  #key(login?: string): string {
    return login === undefined ? accountKey('hosting', this.host) : accountKey('hosting', this.host, login);
  }

  async activeLogin(): Promise<string | undefined> {
    for (const s of this.#stores) {
      const v = await s.get(this.#key());
      if (v) return v;
    }
    return undefined;
  }

  async get(login: string): Promise<{ record: HostingTokenRecord; store: CredentialStore } | undefined> {
    for (const store of this.#stores) {
      const record = parseRecord(await store.get(this.#key(login)));
      if (record) return { record, store };
    }
    return undefined;
  }

  async active(): Promise<{ record: HostingTokenRecord; store: CredentialStore } | undefined> {
    const login = await this.activeLogin();
    return login ? this.get(login) : undefined;
  }

  /**
   * Every stored account of the host, the active one marked. `asOpened`:
   * from what each store read when it was opened, where it kept that (the
   * keychain's one search; see CredentialStore.opened), else read now — for
   * a listing shown to the user, not for a decision under the lock.
   */
  async list(o: { asOpened?: boolean } = {}): Promise<StoredAccount[]> {
    const opened = (s: CredentialStore) => (o.asOpened ? s.opened : undefined);
    const read = (s: CredentialStore, name: string) => {
      const m = opened(s);
      return m ? m.get(name) : s.get(name);
    };
    let active: string | undefined;
    for (const s of this.#stores) if ((active = await read(s, this.#key()))) break;
    const prefix = this.#key() + ':';
    const seen = new Set<string>();
    const out: StoredAccount[] = [];
    for (const store of this.#stores) {
      const m = opened(store);
      for (const name of m ? m.keys() : await store.list()) {
        if (!name.startsWith(prefix)) continue;
        const login = name.slice(prefix.length);
        if (seen.has(login)) continue;
        const record = parseRecord(await read(store, name));
        if (!record) continue;
        seen.add(login);
        out.push({ record, store, active: login === active });
      }
    }
    return out;
  }

  /** Saves a record in the primary store (and makes it the active account). */
  async save(record: HostingTokenRecord, o: { activate?: boolean } = {}): Promise<CredentialStore> {
    await this.primary.set(this.#key(record.login), JSON.stringify(record));
    for (const s of this.#stores.slice(1)) if (s !== this.primary) await s.delete(this.#key(record.login)).catch(() => false);
    if (o.activate !== false) {
      await this.primary.set(this.#key(), record.login);
      for (const s of this.#stores.slice(1)) if (s !== this.primary) await s.delete(this.#key()).catch(() => false);
    }
    return this.primary;
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
    if (wasActive) {
      for (const s of this.#stores) await s.delete(this.#key());
      const next = (await this.list())[0];
      if (next) await next.store.set(this.#key(), next.record.login);
    }
    return removed;
  }
}
