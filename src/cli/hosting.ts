/**
 * Resolves the hosting endpoints and credential of the selected profile:
 * LANYARD_TOKEN > WORKFLOW_TOKEN > the stored token of the active account >
 * anonymous, or `--basic-client` (client_id:client_secret Basic). Stored
 * tokens of installable apps are refreshed before they expire and after a 401.
 */
import type { Context } from './context.js';
import { requireSetting, type ProfileSettings } from '../core/config/settings.js';
import { basicClientCredential, resolveHostingCredential, type ResolvedHostingCredential } from '../core/hosting/credential.js';
import type { HostingAccounts, HostingTokenRecord } from '../core/hosting/accounts.js';
import type { CredentialStore } from '../core/deps.js';
import { HttpError } from '../core/errors.js';
import type { HttpClient, HttpResponse, RequestSpec } from '../core/http/client.js';
import { UsageError } from './usage-error.js';

export interface HostingTarget extends ResolvedHostingCredential {
  apiUrl: string;
  /** The HTTP client; with a refreshable stored token it refreshes on a 401 and retries once. */
  http: HttpClient;
  profile: string;
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

/** Refreshes a stored record when due (installable apps); saves the rotated tokens. */
export async function freshRecord(
  ctx: Context,
  stores: HostingStores,
  settings: ProfileSettings,
  found: { record: HostingTokenRecord; store: CredentialStore },
  force = false,
): Promise<HostingTokenRecord> {
  const { canRefresh, refreshDue, refreshRecord } = await import('../core/hosting/refresh.js');
  const now = ctx.clock.now();
  const webUrl = settings['hosting.webUrl'];
  if (!webUrl || !canRefresh(found.record, now) || (!force && !refreshDue(found.record, now))) return found.record;
  const next = await refreshRecord({
    http: await ctx.http(),
    webUrl,
    record: found.record,
    nowMs: now,
    clientSecret: ctx.env.LANYARD_CLIENT_SECRET || undefined,
    signal: ctx.signal,
  });
  await stores.accounts.update(next, found.store);
  found.record = next;
  return next;
}

export async function hostingTarget(ctx: Context): Promise<HostingTarget> {
  const { name, settings } = await ctx.profile();
  const apiUrl = requireSetting(settings, 'hosting.apiUrl', name);
  const http = await ctx.http();
  if (basicClientMode(ctx)) {
    const clientId = requireSetting(settings, 'hosting.clientId', name);
    const secret = ctx.env.LANYARD_CLIENT_SECRET;
    if (!secret)
      throw new UsageError("--basic-client needs the OAuth app's client secret in LANYARD_CLIENT_SECRET", 'the secret is never read from arguments or stored');
    return { ...basicClientCredential(clientId, secret), apiUrl, http, profile: name };
  }
  let found: { record: HostingTokenRecord; store: CredentialStore } | undefined;
  let stores: HostingStores | undefined;
  const cred = await resolveHostingCredential(ctx.env, apiUrl, async () => {
    stores = await openHostingStores(ctx, apiUrl);
    found = await stores.accounts.active();
    if (!found) return undefined;
    const record = await freshRecord(ctx, stores, settings, found).catch((err: Error) => {
      ctx.warn(`could not refresh the token of ${found!.record.login}: ${err.message}`);
      return found!.record;
    });
    return { token: record.token, login: record.login, source: found.store.kind as 'keychain' | 'file' };
  });
  const target: HostingTarget = { ...cred, apiUrl, http, profile: name };
  if (found?.record.refreshToken && stores && cred.credential.scheme === 'bearer') {
    target.http = refreshingHttp(http, async (spec) => {
      const used = spec.credential?.scheme === 'bearer' ? spec.credential.token : undefined;
      if (!used || used !== found!.record.token) return undefined;
      const next = await freshRecord(ctx, stores!, settings, found!, true);
      target.credential = { scheme: 'bearer', token: next.token };
      return target.credential;
    });
  }
  return target;
}

/**
 * An HttpClient whose 401 answers (thrown or returned) trigger one token
 * refresh and a retry with the new credential (ky's afterResponse idea).
 */
function refreshingHttp(http: HttpClient, refresh: (spec: RequestSpec) => Promise<RequestSpec['credential'] | undefined>): HttpClient {
  const retry = async (spec: RequestSpec): Promise<HttpResponse | undefined> => {
    const credential = await refresh(spec);
    return credential ? http.request({ ...spec, credential }) : undefined;
  };
  const wrapper = {
    async request(spec: RequestSpec): Promise<HttpResponse> {
      let res: HttpResponse;
      try {
        res = await http.request(spec);
      } catch (err) {
        if (err instanceof HttpError && err.status === 401) {
          const again = await retry(spec);
          if (again) return again;
        }
        throw err;
      }
      if (res.status === 401 && !spec.body) {
        const again = await retry(spec);
        if (again) {
          await res.dump();
          return again;
        }
      }
      return res;
    },
    close: () => http.close(),
  };
  // HttpClient's only public members are request() and close(); its private fields make the class nominal.
  return wrapper as unknown as HttpClient;
}
