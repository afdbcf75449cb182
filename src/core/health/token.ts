/**
 * Sign-in to the health API: the OAuth 2.0 implicit flow (the token comes
 * back in the URL fragment) and the stored token record. Flat steps: build
 * the authorization URL, process the fragment, save/load the record.
 */
import type { CredentialStore, RandomBytes } from '../deps.js';
import { accountKey, hostOf } from '../credentials/accounts.js';
import { type CredentialProvider, fixedCredential } from '../auth/provider.js';
import { AuthRequiredError, OAuthError, ValidationError } from '../errors.js';
import { isLoopbackHost } from '../http/plain-http.js';

export const HEALTH_SCOPE = 'user_impersonation';
export const AUTHORIZE_PATH = '/common/oauth2/authorize';

export interface AuthorizeRequest {
  authUrl: string;
  clientId: string;
  redirectUri: string;
  state: string;
  nonce: string;
  scope?: string;
}

export function randomToken(random: RandomBytes, size = 24): string {
  return Buffer.from(random(size)).toString('base64url');
}

/** `{authUrl}/common/oauth2/authorize?response_type=token&...` */
export function buildAuthorizeUrl(r: AuthorizeRequest): string {
  const u = new URL(r.authUrl.replace(/\/+$/, '') + AUTHORIZE_PATH);
  if (u.protocol !== 'https:' && !isLoopbackHost(u.hostname)) {
    throw new ValidationError(`health.authUrl must be HTTPS (or a loopback address), got ${u.origin}`);
  }
  u.searchParams.set('response_type', 'token');
  u.searchParams.set('client_id', r.clientId);
  u.searchParams.set('redirect_uri', r.redirectUri);
  u.searchParams.set('scope', r.scope ?? HEALTH_SCOPE);
  u.searchParams.set('state', r.state);
  u.searchParams.set('nonce', r.nonce);
  return u.toString();
}

export interface HealthTokenRecord {
  access_token: string;
  token_type: 'Bearer';
  /** Epoch ms. */
  expires_at: number;
  scope?: string;
  client_id?: string;
  obtained_at: number;
}

/**
 * Validates the parameters relayed from the fragment (the receiver already
 * checked `state` and `error`) and turns them into a token record.
 */
export function processImplicitResponse(params: URLSearchParams, nowMs: number, clientId?: string): HealthTokenRecord {
  const error = params.get('error');
  if (error) throw new OAuthError(error, params.get('error_description') ?? undefined, undefined);
  const token = params.get('access_token');
  if (!token) throw new OAuthError('invalid_response', 'the authorization response carried no access_token', undefined);
  const type = params.get('token_type');
  if (type?.toLowerCase() !== 'bearer') throw new OAuthError('invalid_response', `unsupported token_type "${type ?? ''}" (expected Bearer)`, undefined);
  const expiresIn = Number(params.get('expires_in'));
  if (!Number.isFinite(expiresIn) || expiresIn <= 0)
    throw new OAuthError('invalid_response', 'the authorization response carried no valid expires_in', undefined);
  const scope = params.get('scope') ?? undefined;
  return {
    access_token: token,
    token_type: 'Bearer',
    expires_at: nowMs + Math.floor(expiresIn) * 1000,
    obtained_at: nowMs,
    ...(scope ? { scope } : {}),
    ...(clientId ? { client_id: clientId } : {}),
  };
}

export function healthAccount(authUrl: string): string {
  return accountKey('health', hostOf(authUrl));
}

export async function saveHealthToken(store: CredentialStore, authUrl: string, rec: HealthTokenRecord): Promise<void> {
  await store.set(healthAccount(authUrl), JSON.stringify(rec));
}

export async function loadHealthToken(store: CredentialStore, authUrl: string): Promise<HealthTokenRecord | undefined> {
  const raw = await store.get(healthAccount(authUrl));
  if (!raw) return undefined;
  try {
    const r = JSON.parse(raw) as HealthTokenRecord;
    if (typeof r.access_token === 'string' && typeof r.expires_at === 'number') return r;
  } catch {
    /* a plain token stored by hand */
  }
  return { access_token: raw, token_type: 'Bearer', expires_at: Number.MAX_SAFE_INTEGER, obtained_at: 0 };
}

export interface ResolvedHealthToken {
  token: string;
  source: 'environment' | 'store';
  expiresAt?: number;
}

/** Skew allowed before expiry: a token that expires within this window counts as expired. */
export const EXPIRY_SKEW_MS = 30_000;

/**
 * The token to send: the environment's (`LANYARD_HEALTH_TOKEN`, passed in by
 * the CLI) wins; else the first stored one found (stores in order) if it
 * has not expired.
 */
export async function resolveHealthToken(o: {
  envToken?: string;
  stores?: () => Promise<CredentialStore[]>;
  authUrl?: string;
  nowMs: number;
}): Promise<ResolvedHealthToken> {
  if (o.envToken?.trim()) return { token: o.envToken.trim(), source: 'environment' };
  if (!o.authUrl || !o.stores) {
    throw new AuthRequiredError('not signed in to the health API', {
      hint: 'set health.authUrl',
      remedy: { kind: 'sign-in', service: 'health' },
      service: 'health',
    });
  }
  let rec: HealthTokenRecord | undefined;
  for (const store of await o.stores()) if ((rec = await loadHealthToken(store, o.authUrl))) break;
  if (!rec)
    throw new AuthRequiredError(`not signed in to the health API at ${hostOf(o.authUrl)}`, {
      remedy: { kind: 'sign-in', service: 'health' },
      service: 'health',
    });
  if (rec.expires_at - EXPIRY_SKEW_MS <= o.nowMs) {
    throw new AuthRequiredError(`the health API token expired at ${new Date(rec.expires_at).toISOString()}`, {
      hint: 'the implicit flow gives no refresh token',
      remedy: { kind: 'sign-in', service: 'health', again: true },
      service: 'health',
      credentialSource: 'store',
    });
  }
  return { token: rec.access_token, source: 'store', expiresAt: rec.expires_at };
}

/** The health API's credential strategy: the bearer token (the implicit flow gives no refresh token: none after a 401). */
export function healthCredential(t: { token: string; source: string; expiresAt?: number }): CredentialProvider {
  return fixedCredential({ scheme: 'bearer', token: t.token }, t.source, t.expiresAt);
}

/** One stored health token, as {@link listHealthTokens} finds it. */
export interface StoredHealthToken {
  /** The sign-in host it belongs to (`health:<host>`). */
  host: string;
  /** The store it was found in (`keychain`, `file`, …). */
  source: string;
  record: HealthTokenRecord;
  /** Not expired (with the same skew {@link resolveHealthToken} allows). */
  valid: boolean;
  /** Epoch ms; absent for a plain token stored by hand. */
  expiresAt?: number;
}

/**
 * Every stored health token, each host once (the first store that holds it
 * wins, as for sending), judged against `nowMs`.
 */
export async function listHealthTokens(stores: readonly CredentialStore[], nowMs: number): Promise<StoredHealthToken[]> {
  const found: StoredHealthToken[] = [];
  const seen = new Set<string>();
  for (const store of stores) {
    for (const account of await store.list()) {
      if (!account.startsWith('health:') || seen.has(account)) continue;
      seen.add(account);
      const host = account.slice('health:'.length);
      const record = await loadHealthToken(store, `http://${host}`);
      if (!record) continue;
      const known = record.expires_at < Number.MAX_SAFE_INTEGER;
      found.push({
        host,
        source: store.kind,
        record,
        valid: record.expires_at - EXPIRY_SKEW_MS > nowMs,
        ...(known ? { expiresAt: record.expires_at } : {}),
      });
    }
  }
  return found;
}
