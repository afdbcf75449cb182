/**
 * Echo secrets in the credential store: the API key (per API host) and the
 * identity tokens cached until they expire (per provider host, and project
 * for the app platform). Account names:
 *   echo:apikey:<api host>
 *   echo:idtoken:<identity provider host>
 *   echo:appplatform:<app platform host>:<project>
 */
import { functionOption, httpUrlOption } from '../options.js';
import type { CredentialStore } from '../deps.js';
import { type CredentialProvider, fixedCredential } from '../auth/provider.js';
import { ValidationError } from '../errors.js';
import { accountKey, hostOf } from '../credentials/accounts.js';

export const apiKeyAccount = (baseUrl: string): string => accountKey('echo', 'apikey', hostOf(baseUrl));
export const idTokenAccount = (idpUrl: string): string => accountKey('echo', 'idtoken', hostOf(idpUrl));
export const appPlatformAccount = (url: string, project: string): string => accountKey('echo', 'appplatform', hostOf(url), project);

export interface ResolvedApiKey {
  key: string;
  /** `env:LANYARD_API_KEY` or the store's kind (`keychain`, `file`). */
  source: string;
}

/** The environment's key wins over the stored one. */
export async function resolveApiKey(o: { envKey?: string; store: () => Promise<CredentialStore>; baseUrl: string }): Promise<ResolvedApiKey | undefined> {
  const env = o.envKey?.trim();
  if (env) return { key: env, source: 'env:LANYARD_API_KEY' };
  functionOption(o.store, 'store');
  httpUrlOption(o.baseUrl, 'baseUrl');
  const store = await o.store();
  const key = await store.get(apiKeyAccount(o.baseUrl));
  return key ? { key, source: store.kind } : undefined;
}

/** The echo API's credential strategy: the key as query parameter `key` (an API key cannot be refreshed). */
export function apiKeyCredential(k: ResolvedApiKey): CredentialProvider {
  return fixedCredential({ scheme: 'query', name: 'key', value: k.key }, k.source);
}

/** Checks a key read from stdin: one token of printable characters. */
export function normaliseApiKey(text: string): string {
  const key = text.trim();
  if (!key) throw new ValidationError('no API key on stdin');
  if (/\s/.test(key)) throw new ValidationError('the API key must be a single word (no spaces or line breaks)');
  if (key.length > 512) throw new ValidationError('the API key is longer than 512 characters');
  return key;
}

export { maskSecret } from '../credentials/mask.js';

export interface CachedIdentityToken {
  token: string;
  /** Epoch ms. */
  expiresAt: number;
  issuer: string;
  clientId: string;
  email?: string;
  subject?: string;
}

/** A stored cached-token record, or undefined when it is missing or not one (no token, no expiry, not JSON). */
function parseCachedToken(text: string | undefined): CachedIdentityToken | undefined {
  if (!text) return undefined;
  try {
    const rec = JSON.parse(text) as CachedIdentityToken;
    return typeof rec?.token === 'string' && typeof rec.expiresAt === 'number' ? rec : undefined;
  } catch {
    return undefined;
  }
}

/** A cached token for this issuer and client that stays valid for `marginMs` more. */
export async function readCachedToken(
  store: CredentialStore,
  account: string,
  o: { issuer: string; clientId: string; nowMs: number; marginMs?: number },
): Promise<CachedIdentityToken | undefined> {
  const rec = parseCachedToken(await store.get(account));
  if (!rec) return undefined;
  if (rec.issuer !== o.issuer || rec.clientId !== o.clientId) return undefined;
  if (rec.expiresAt - (o.marginMs ?? 60_000) <= o.nowMs) return undefined;
  return rec;
}

export async function writeCachedToken(store: CredentialStore, account: string, rec: CachedIdentityToken): Promise<void> {
  await store.set(account, JSON.stringify(rec));
}

/** One cached identity token, as {@link listCachedIdentityTokens} finds it. */
export interface ListedIdentityToken {
  /** Its credential-store account. */
  account: string;
  /** `idtoken`: the identity provider's token (`--scheme id-token`); `appplatform`: the app platform's (`--scheme app-platform`). */
  kind: 'idtoken' | 'appplatform';
  /** The provider's host (with its port, when it has one). */
  host: string;
  /** The app platform's project. */
  project?: string;
  record: CachedIdentityToken;
  /** Not yet expired at `nowMs`. */
  valid: boolean;
}

/** Every identity token cached in `store`; records that do not parse are left out. */
export async function listCachedIdentityTokens(store: CredentialStore, nowMs: number): Promise<ListedIdentityToken[]> {
  const out: ListedIdentityToken[] = [];
  for (const account of await store.list()) {
    const m = /^echo:(idtoken|appplatform):([^:]+(?::\d+)?)(?::(.+))?$/.exec(account);
    if (!m) continue;
    const record = parseCachedToken(await store.get(account));
    if (!record) continue;
    out.push({
      account,
      kind: m[1] as ListedIdentityToken['kind'],
      host: m[2]!,
      ...(m[3] ? { project: m[3] } : {}),
      record,
      valid: record.expiresAt > nowMs,
    });
  }
  return out;
}
