/**
 * The hosting slice of the CLI: the only place that turns a profile into
 * `{ endpoints, http, auth }` for the hosting service. core/hosting/auth.ts
 * decides the precedence, refresh and lock; `--basic-client` replaces it
 * (client_id:client_secret Basic). The stored accounts come from the
 * context's credential-storage port, which caches them per API URL.
 */
import type { Context, CredentialStoragePort } from '../../context.js';
import { type ProfileSettings, requireSetting } from '../../../core/config/settings.js';
import { basicClientCredential, type HostingCredentialSource } from '../../../core/hosting/credential.js';
import type { HostingAccounts, HostingTokenRecord } from '../../../core/hosting/accounts.js';
import type { HostingAuth, HostingAuthOptions } from '../../../core/hosting/auth.js';
import type { CredentialProvider } from '../../../core/auth/provider.js';
import { fixedCredential } from '../../../core/auth/provider.js';
import type { CredentialStore } from '../../../core/deps.js';
import type { Credential, HttpClient } from '../../../core/http/client.js';
import { UsageError } from '../../errors/usage-error.js';

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

/**
 * The stores of hosting accounts: the OS keychain (primary) plus the 0600
 * file (read too, for tokens stored with --insecure-storage), or only the
 * file when the keychain is unavailable or insecure storage is chosen.
 */
export async function openHostingStores(ctx: Context, apiUrl: string, o: { insecure?: boolean } = {}): Promise<HostingStores> {
  const [storage, accounts] = await accountsOf(ctx, apiUrl, o);
  return { accounts, fallbackReason: storage.fallbackReason, filePath: storage.file.path, file: storage.file };
}

/** The storage port and the accounts of `apiUrl` on it; their module loads while the store opens (the keychain's search). */
async function accountsOf(ctx: Context, apiUrl: string, o: { insecure?: boolean } = {}): Promise<[CredentialStoragePort, HostingAccounts]> {
  const [, storage] = await Promise.all([import('../../../core/hosting/accounts.js'), ctx.credentialStorage(o)]);
  return [storage, await storage.hostingAccounts(apiUrl)];
}

export function basicClientMode(ctx: Context): boolean {
  return !!ctx.globals().basicClient || ctx.env.LANYARD_BASIC_CLIENT === '1';
}

/** The selected profile's hosting target, with the credential as resolved. `login`: see hostingAuth. */
export async function hostingTarget(ctx: Context, o: { login?: string } = {}): Promise<HostingTarget> {
  const profile = await ctx.profile();
  const auth = await hostingAuth(ctx, profile, o);
  const [http, credential] = await Promise.all([ctx.http(), auth.credential()]);
  const login = (auth as { login?: string }).login;
  return {
    apiUrl: requireSetting(profile.settings, 'hosting.apiUrl', profile.name),
    http,
    profile: profile.name,
    auth,
    credential,
    source: auth.source as HostingCredentialSource,
    ...(login ? { login } : {}),
  };
}

/**
 * The hosting credential provider of a profile (the registry's `provider`).
 * `login`: a stored account instead of the active one (`--user`); unknown,
 * or with an environment token set, exit 2.
 */
export async function hostingAuth(
  ctx: Context,
  { name, settings }: { name: string; settings: ProfileSettings },
  o: { login?: string } = {},
): Promise<CredentialProvider> {
  const apiUrl = requireSetting(settings, 'hosting.apiUrl', name);
  // The client first, as before the split: a bad --timeout or --max-wait is reported ahead of a --basic-client refusal.
  await ctx.http();
  if (basicClientMode(ctx)) {
    if (o.login !== undefined) throw new UsageError(`--basic-client replaces stored accounts: it cannot be combined with an account (${o.login})`);
    const clientId = requireSetting(settings, 'hosting.clientId', name);
    const secret = ctx.env.LANYARD_CLIENT_SECRET;
    if (!secret)
      throw new UsageError("--basic-client needs the OAuth app's client secret in LANYARD_CLIENT_SECRET", 'the secret is never read from arguments or stored');
    const { credential, source } = basicClientCredential(clientId, secret);
    return fixedCredential(credential, source);
  }
  const { HostingAuth, envTokenSource } = await import('../../../core/hosting/auth.js');
  // An environment token wins: the stored accounts (the keychain) are not opened then.
  const [accounts, options] = await Promise.all([
    envTokenSource(ctx.env) ? undefined : accountsOf(ctx, apiUrl).then(([, accounts]) => accounts),
    hostingAuthOptions(ctx, apiUrl, settings['hosting.webUrl']),
  ]);
  return HostingAuth.resolve({ ...options, ...(accounts ? { accounts } : {}), login: o.login });
}

/** What the core provider needs from the terminal: environment, HTTP, clock, lock, warnings (the stored accounts are added by the caller). */
async function hostingAuthOptions(ctx: Context, apiUrl: string, webUrl: string | undefined): Promise<HostingAuthOptions> {
  const [bound, http, lock] = await Promise.all([boundHostingAccount(ctx, apiUrl), ctx.http(), ctx.credentialLock()]);
  return {
    env: ctx.env,
    apiUrl,
    webUrl,
    ...(bound ? { bound } : {}),
    http,
    clock: ctx.clock,
    clientSecret: ctx.env.LANYARD_CLIENT_SECRET || undefined,
    signal: ctx.signal,
    lock,
    onWarning: (text) => ctx.warn(text),
  };
}

/** The hosting account bound to the working directory for the host of `apiUrl` (`auth switch --dir`), if any. */
export async function boundHostingAccount(ctx: Context, apiUrl: string): Promise<{ login: string; dir: string } | undefined> {
  const bindings = await ctx.bindings();
  if (!bindings.length) return undefined;
  const [{ boundAccount }, { hostOf }] = await Promise.all([import('../../../core/config/bindings.js'), import('../../../core/credentials/accounts.js')]);
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
  const { HostingAuth } = await import('../../../core/hosting/auth.js');
  return HostingAuth.forAccount({ ...(await hostingAuthOptions(ctx, apiUrl, webUrl)), accounts }, accounts, found);
}
