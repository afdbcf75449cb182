/**
 * Echo secrets in the credential store: the API key (per API host) and the
 * identity tokens cached until they expire (per provider host, and project
 * for the app platform). Account names:
 *   echo:apikey:<api host>
 *   echo:idtoken:<identity provider host>
 *   echo:appplatform:<app platform host>:<project>
 */
import type { CredentialStore } from '../deps.js';
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
  const store = await o.store();
  const key = await store.get(apiKeyAccount(o.baseUrl));
  return key ? { key, source: store.kind } : undefined;
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

/** A cached token for this issuer and client that stays valid for `marginMs` more. */
export async function readCachedToken(
  store: CredentialStore,
  account: string,
  o: { issuer: string; clientId: string; nowMs: number; marginMs?: number },
): Promise<CachedIdentityToken | undefined> {
  const text = await store.get(account);
  if (!text) return undefined;
  let rec: CachedIdentityToken;
  try {
    rec = JSON.parse(text) as CachedIdentityToken;
  } catch {
    return undefined;
  }
  if (typeof rec?.token !== 'string' || typeof rec.expiresAt !== 'number') return undefined;
  if (rec.issuer !== o.issuer || rec.clientId !== o.clientId) return undefined;
  if (rec.expiresAt - (o.marginMs ?? 60_000) <= o.nowMs) return undefined;
  return rec;
}

export async function writeCachedToken(store: CredentialStore, account: string, rec: CachedIdentityToken): Promise<void> {
  await store.set(account, JSON.stringify(rec));
}
