/**
 * The hosting endpoints and credential provider of the selected profile
 * (core/hosting/auth.ts decides the precedence, refresh and lock), or
 * `--basic-client` (client_id:client_secret Basic).
 */
import type { Context } from './context.js';
import { requireSetting } from '../core/config/settings.js';
import { basicClientCredential, type HostingCredentialSource } from '../core/hosting/credential.js';
import type { HostingAccounts, HostingTokenRecord } from '../core/hosting/accounts.js';
import type { HostingAuth, HostingAuthOptions } from '../core/hosting/auth.js';
import type { CredentialProvider } from '../core/auth/provider.js';
import { fixedCredential } from '../core/auth/provider.js';
import type { CredentialStore } from '../core/deps.js';
import type { Credential, HttpClient } from '../core/http/client.js';
import { UsageError } from './usage-error.js';

export interface HostingTarget {
  apiUrl: string;
  http: HttpClient;
  profile: string;
  /** Send it as a request's `auth`: the HTTP client refreshes after a 401 and retries once. */
  auth: CredentialProvider;
  /** The credential as resolved (printing it: `auth token`). */
  credential: Credential;
  source: HostingCredentialSource;
  /** The account login when known (stored tokens). */
  login?: string;
}

export interface HostingStores {
  accounts: HostingAccounts;
  /** Why the keychain is not used (file fallback), if so. */
  fallbackReason?: string;
  /** Where the file fallback lives. */
  filePath: string;
  /** The 0600 file store (the fallback when a keychain write fails). */
  file: CredentialStore;
}

const storeCache = new WeakMap<Context, Map<string, Promise<HostingStores>>>();

/**
 * Opens the stores of hosting accounts: the OS keychain (primary) plus the
 * 0600 file (read too, for tokens stored with --insecure-storage), or only
 * the file when the keychain is unavailable or insecure storage is chosen.
 */
export function openHostingStores(ctx: Context, apiUrl: string, o: { insecure?: boolean } = {}): Promise<HostingStores> {
  const insecure = !!o.insecure || ctx.env.LANYARD_INSECURE_STORAGE === '1';
  const key = `${apiUrl}|${insecure}`;
  let perCtx = storeCache.get(ctx);
  if (!perCtx) storeCache.set(ctx, (perCtx = new Map()));
  let p = perCtx.get(key);
  if (!p) {
    p = (async () => {
      // The context's stores: one keychain probe, whichever service asks first.
      const [{ HostingAccounts }, { primary, fallbackReason, file }] = await Promise.all([
        import('../core/hosting/accounts.js'),
        ctx.credentialStorage({ insecure }),
      ]);
      const stores: CredentialStore[] = primary.kind === 'file' ? [primary] : [primary, file];
      return { accounts: new HostingAccounts(apiUrl, stores), fallbackReason, filePath: file.path, file };
    })();
    perCtx.set(key, p);
  }
  return p;
}

export function basicClientMode(ctx: Context): boolean {
  return !!ctx.globals().basicClient || ctx.env.LANYARD_BASIC_CLIENT === '1';
}

/** `login`: a stored account instead of the active one (`--user`); unknown, or with an environment token set, exit 2. */
export async function hostingTarget(ctx: Context, o: { login?: string } = {}): Promise<HostingTarget> {
  const { name, settings } = await ctx.profile();
  const apiUrl = requireSetting(settings, 'hosting.apiUrl', name);
  const http = await ctx.http();
  if (basicClientMode(ctx)) {
    if (o.login !== undefined) throw new UsageError(`--basic-client replaces stored accounts: it cannot be combined with an account (${o.login})`);
    const clientId = requireSetting(settings, 'hosting.clientId', name);
    const secret = ctx.env.LANYARD_CLIENT_SECRET;
    if (!secret)
      throw new UsageError("--basic-client needs the OAuth app's client secret in LANYARD_CLIENT_SECRET", 'the secret is never read from arguments or stored');
    const { credential, source } = basicClientCredential(clientId, secret);
    return { apiUrl, http, profile: name, auth: fixedCredential(credential, source), credential, source };
  }
  const { HostingAuth } = await import('../core/hosting/auth.js');
  const auth = await HostingAuth.resolve({ ...(await hostingAuthOptions(ctx, apiUrl, settings['hosting.webUrl'])), login: o.login });
  return { apiUrl, http, profile: name, auth, credential: await auth.credential(), source: auth.source, ...(auth.login ? { login: auth.login } : {}) };
}

/** What the core provider needs from the terminal: environment, stores, HTTP, clock, lock, warnings. */
export async function hostingAuthOptions(ctx: Context, apiUrl: string, webUrl: string | undefined): Promise<HostingAuthOptions> {
  const bound = await boundHostingAccount(ctx, apiUrl);
  return {
    env: ctx.env,
    apiUrl,
    webUrl,
    ...(bound ? { bound } : {}),
    accounts: async () => (await openHostingStores(ctx, apiUrl)).accounts,
    http: await ctx.http(),
    clock: ctx.clock,
    clientSecret: ctx.env.LANYARD_CLIENT_SECRET || undefined,
    signal: ctx.signal,
    lock: await ctx.credentialLock(),
    onWarning: (text) => ctx.warn(text),
  };
}

/** The hosting account bound to the working directory for the host of `apiUrl` (`auth switch --dir`), if any. */
export async function boundHostingAccount(ctx: Context, apiUrl: string): Promise<{ login: string; dir: string } | undefined> {
  const bindings = await ctx.bindings();
  if (!bindings.length) return undefined;
  const [{ boundAccount }, { hostOf }] = await Promise.all([import('../core/config/bindings.js'), import('../core/credentials/accounts.js')]);
  return boundAccount(bindings, hostOf(apiUrl), ctx.cwd || undefined);
}

/** The provider of one stored account (auth status checks every account, not only the active one). */
export async function storedAccountAuth(
  ctx: Context,
  apiUrl: string,
  webUrl: string | undefined,
  accounts: HostingAccounts,
  found: { record: HostingTokenRecord; store: CredentialStore },
): Promise<HostingAuth> {
  const { HostingAuth } = await import('../core/hosting/auth.js');
  return HostingAuth.forAccount(await hostingAuthOptions(ctx, apiUrl, webUrl), accounts, found);
}
