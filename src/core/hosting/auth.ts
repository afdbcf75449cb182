/**
 * The hosting service's credential provider. Precedence: LANYARD_TOKEN, then
 * WORKFLOW_TOKEN, then the stored token of the active account (or of the
 * account asked for), else anonymous (`--basic-client` replaces all of these:
 * see credential.ts). Asking for an account while an environment token is set
 * is an error rather than a silent choice of either. A stored token
 * of an installable app is refreshed shortly before it expires and after a
 * 401, under the cross-process lock: the store is re-read once the lock is
 * held, so a token another process refreshed meanwhile is used as it is, and
 * a rotating refresh token is never presented twice. Every refreshed token is
 * revalidated with GET /user, like every other new token.
 */
import type { CredentialProvider } from '../auth/provider.js';
import type { CredentialLock } from '../credentials/lock.js';
import { noLock } from '../credentials/lock.js';
import type { Clock, CredentialStore } from '../deps.js';
import { AuthRequiredError, ValidationError } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import type { Credential } from '../http/types.js';
import type { HostingAccounts, HostingTokenRecord } from './accounts.js';
import type { HostingCredentialSource } from './credential.js';

export interface HostingAuthOptions {
  env: Readonly<Record<string, string | undefined>>;
  apiUrl: string;
  /** The web root, where the token endpoint is (refresh needs it). */
  webUrl?: string;
  /**
   * The stored account to use instead of the active one (`--user`, git's
   * user name). Unknown: a usage error naming the stored ones; with an
   * environment token set: a usage error too (the token would win).
   */
  login?: string;
  /**
   * The account bound to the working directory (directory bindings): taken
   * instead of the active one; an environment token and `login` still win.
   */
  bound?: { login: string; dir: string };
  /**
   * The stored accounts, or a function that opens them (called only when no
   * environment token applies). None: no stored account applies (an
   * environment token, else anonymous; an account asked for is unknown).
   */
  accounts?: HostingAccounts | (() => Promise<HostingAccounts>);
  http: HttpClient;
  clock: Clock;
  /** Sent when known (LANYARD_CLIENT_SECRET); public clients refresh without it. */
  clientSecret?: string;
  signal?: AbortSignal;
  /** The cross-process lock of the config directory (noLock for memory stores). */
  lock?: CredentialLock;
  /** Told when a due refresh failed and the old token is tried anyway. */
  onWarning?: (text: string) => void;
}

/**
 * A token variable's value without the whitespace around it (a secret file
 * or `$(cat token)` often ends in a newline, which no header may carry).
 */
const envToken = (env: Readonly<Record<string, string | undefined>>, name: string): string | undefined => env[name]?.trim() || undefined;

/** The environment variable whose token hosting calls use, if one is set (the first two steps of the precedence). */
export function envTokenSource(env: Readonly<Record<string, string | undefined>>): 'LANYARD_TOKEN' | 'WORKFLOW_TOKEN' | undefined {
  if (envToken(env, 'LANYARD_TOKEN')) return 'LANYARD_TOKEN';
  if (envToken(env, 'WORKFLOW_TOKEN')) return 'WORKFLOW_TOKEN';
  return undefined;
}

/** The environment's token, trimmed; refused (never sent, never shown) when a line break or control character sits inside it. */
export function tokenFromEnv(env: Readonly<Record<string, string | undefined>>, name: 'LANYARD_TOKEN' | 'WORKFLOW_TOKEN'): string {
  const token = envToken(env, name)!;
  // Control characters other than tab cannot be sent in an HTTP header (RFC 9110, 5.5).
  if (/[\0-\x08\x0a-\x1f\x7f]/.test(token))
    throw new ValidationError(`${name} holds a line break or control character inside the token; set it to the token alone`);
  return token;
}

export class HostingAuth implements CredentialProvider {
  readonly source: HostingCredentialSource;
  readonly login?: string;
  /** The directory whose binding chose the stored account, when one did. */
  boundDir?: string;
  #credential: Credential;
  #found?: { record: HostingTokenRecord; store: CredentialStore };
  readonly #o?: HostingAuthOptions;
  readonly #accounts?: HostingAccounts;

  private constructor(
    source: HostingCredentialSource,
    credential: Credential,
    o?: HostingAuthOptions,
    accounts?: HostingAccounts,
    found?: { record: HostingTokenRecord; store: CredentialStore },
  ) {
    this.source = source;
    this.#credential = credential;
    this.#o = o;
    this.#accounts = accounts;
    this.#found = found;
    if (found) this.login = found.record.login;
  }

  /** Environment, then the active (or asked-for) stored account, refreshed first when due, else anonymous. */
  static async resolve(o: HostingAuthOptions): Promise<HostingAuth> {
    const env = envTokenSource(o.env);
    if (env && o.login !== undefined)
      throw new ValidationError(
        `cannot use the stored account ${JSON.stringify(o.login)}: ${env} is set in the environment and takes precedence (unset it to use stored accounts)`,
      );
    if (env) return new HostingAuth(`env:${env}`, { scheme: 'bearer', token: tokenFromEnv(o.env, env) });
    const accounts = typeof o.accounts === 'function' ? await o.accounts() : o.accounts;
    if (!accounts) {
      if (o.login !== undefined) throw new ValidationError(`no stored hosting account "${o.login}" (no stored accounts were given)`);
      return new HostingAuth('anonymous', { scheme: 'none' });
    }
    const bound = o.login === undefined ? o.bound : undefined;
    const found = o.login !== undefined ? await accounts.find(o.login) : bound ? await accounts.get(bound.login) : await accounts.active();
    if (!found && bound)
      throw new AuthRequiredError(`the hosting account ${bound.login} bound to ${bound.dir} is not signed in on ${accounts.host}`, {
        remedy: { kind: 'sign-in', service: 'hosting', again: true },
        service: 'hosting',
      });
    if (!found) return new HostingAuth('anonymous', { scheme: 'none' });
    const auth = new HostingAuth(found.store.kind as HostingCredentialSource, { scheme: 'bearer', token: found.record.token }, o, accounts, found);
    if (bound) auth.boundDir = bound.dir;
    // A failed refresh is a warning: the old token is tried, and a 401 says the rest.
    await auth.refreshIfDue().catch((err: Error) => o.onWarning?.(`could not refresh the token of ${found.record.login}: ${err.message}`));
    return auth;
  }

  /** For one stored account (auth status checks each). */
  static forAccount(o: HostingAuthOptions, accounts: HostingAccounts, found: { record: HostingTokenRecord; store: CredentialStore }): HostingAuth {
    return new HostingAuth(found.store.kind as HostingCredentialSource, { scheme: 'bearer', token: found.record.token }, o, accounts, { ...found });
  }

  /** The stored record in use (after any refresh), when the token is a stored one. */
  get record(): HostingTokenRecord | undefined {
    return this.#found?.record;
  }

  async credential(): Promise<Credential> {
    return this.#credential;
  }

  /** When the stored token in use expires (epoch ms); undefined for one without expiry or from the environment. */
  expiresAt(): number | undefined {
    const at = this.#found?.record.expiresAt;
    return at ? Date.parse(at) : undefined;
  }

  /** Refreshes now when the stored token expires within the margin (installable apps); throws when that fails. */
  async refreshIfDue(): Promise<void> {
    const { canRefresh, refreshDue } = await import('./refresh.js');
    const r = this.#found?.record;
    if (!r || !this.#o?.webUrl) return;
    const now = this.#o.clock.now();
    if (!canRefresh(r, now) || !refreshDue(r, now)) return;
    await this.#refresh(false);
  }

  async refresh(used: Credential): Promise<Credential | undefined> {
    const r = this.#found?.record;
    if (!r?.refreshToken || !this.#o?.webUrl) return undefined;
    if (used.scheme !== 'bearer') return undefined;
    // A token refreshed since the refused request was sent (here or in another process) is tried first.
    if (used.token !== r.token) return this.#credential;
    const before = r.token;
    await this.#refresh(true);
    return this.#found!.record.token !== before ? this.#credential : undefined;
  }

  /**
   * Under the lock: re-read the record; when another process already rotated
   * it, take that one; otherwise refresh (when `force`, or when still due),
   * save, and revalidate the new token.
   */
  async #refresh(force: boolean): Promise<void> {
    const o = this.#o!;
    const found = this.#found!;
    const login = found.record.login;
    const { canRefresh, refreshDue, refreshRecord } = await import('./refresh.js');
    const lock = o.lock ?? noLock;
    const next = await lock.withLock(`hosting-${this.#accounts!.host}-${login}`, async () => {
      const latest = (await this.#accounts!.get(login)) ?? found;
      const now = o.clock.now();
      if (latest.record.token !== found.record.token) return { ...latest, refreshed: false };
      if (!force && !refreshDue(latest.record, now)) return { ...latest, refreshed: false };
      if (!canRefresh(latest.record, now))
        throw new AuthRequiredError(`the token of ${login} expired and cannot be refreshed`, {
          remedy: { kind: 'sign-in', service: 'hosting', again: true },
          service: 'hosting',
        });
      const record = await refreshRecord({
        http: o.http,
        webUrl: o.webUrl!,
        record: latest.record,
        nowMs: now,
        clientSecret: o.clientSecret,
        signal: o.signal,
      });
      // Saved before anything else: the old refresh token is spent.
      await this.#accounts!.update(record, latest.store);
      return { record, store: latest.store, refreshed: true };
    });
    this.#found = { record: next.record, store: next.store };
    this.#credential = { scheme: 'bearer', token: next.record.token };
    if (next.refreshed) await this.#revalidate(next.record);
  }

  /** GET /user with a refreshed token: it must still act for the same account. */
  async #revalidate(record: HostingTokenRecord): Promise<void> {
    const o = this.#o!;
    const { fetchUser } = await import('./user.js');
    const user = await fetchUser(o.http, o.apiUrl, { scheme: 'bearer', token: record.token }, o.signal);
    if (user.login !== record.login) {
      throw new AuthRequiredError(`the refreshed token acts for ${user.login}, not ${record.login}`, {
        remedy: { kind: 'sign-in', service: 'hosting', again: true },
        service: 'hosting',
      });
    }
  }
}
