/**
 * Browser sign-in for identity tokens (schemes id-token and app-platform):
 * OpenID discovery, authorization code + PKCE (S256) on a loopback redirect,
 * scopes `openid email`, code exchange, and checks of the returned ID token
 * (iss, aud, nonce, exp). One small function per protocol step.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Browser, Clock, RandomBytes } from '../deps.js';
import { LanyardError, OAuthError } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import { startLoopbackReceiver } from '../auth/loopback.js';
import { tokenClaims } from '../auth/token-claims.js';
import type { CachedIdentityToken } from './credentials.js';

export interface OidcEndpoints {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
}

export const ID_TOKEN_SCOPES = ['openid', 'email'];

/** GET {issuer}/.well-known/openid-configuration, checked against the issuer. */
export async function discoverOidc(http: HttpClient, issuer: string, signal?: AbortSignal): Promise<OidcEndpoints> {
  const base = issuer.replace(/\/+$/, '');
  const res = await http.request({ url: `${base}/.well-known/openid-configuration`, signal, oauth: true });
  return processDiscovery(await res.json(), base);
}

export function processDiscovery(body: unknown, issuer: string): OidcEndpoints {
  const d = body as Partial<OidcEndpoints> | null;
  if (!d || typeof d.authorization_endpoint !== 'string' || typeof d.token_endpoint !== 'string') {
    throw new LanyardError('bad_response', `${issuer} has no usable OpenID configuration (authorization_endpoint, token_endpoint)`);
  }
  if (d.issuer !== issuer) throw new LanyardError('bad_response', `the OpenID configuration names issuer ${String(d.issuer)}, not ${issuer}`);
  return { issuer, authorization_endpoint: d.authorization_endpoint, token_endpoint: d.token_endpoint };
}

export function createPkce(random: RandomBytes = randomBytes): { verifier: string; challenge: string } {
  const verifier = Buffer.from(random(32)).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  scopes: readonly string[];
  state: string;
  nonce: string;
  codeChallenge: string;
  loginHint?: string;
}

export function buildAuthorizationUrl(ep: OidcEndpoints, r: AuthorizationRequest): string {
  const u = new URL(ep.authorization_endpoint);
  u.searchParams.set('client_id', r.clientId);
  u.searchParams.set('redirect_uri', r.redirectUri);
  u.searchParams.set('response_type', 'code');
  u.searchParams.set('scope', r.scopes.join(' '));
  u.searchParams.set('state', r.state);
  u.searchParams.set('nonce', r.nonce);
  u.searchParams.set('code_challenge', r.codeChallenge);
  u.searchParams.set('code_challenge_method', 'S256');
  if (r.loginHint) u.searchParams.set('login_hint', r.loginHint);
  return u.toString();
}

/** POST the token endpoint (public client: client_id + code_verifier, no secret). */
export async function exchangeCode(
  http: HttpClient,
  ep: OidcEndpoints,
  o: { code: string; clientId: string; redirectUri: string; verifier: string; signal?: AbortSignal },
): Promise<{ id_token: string }> {
  const res = await http.request({
    method: 'POST',
    url: ep.token_endpoint,
    form: { grant_type: 'authorization_code', code: o.code, client_id: o.clientId, redirect_uri: o.redirectUri, code_verifier: o.verifier },
    okStatus: () => true,
    oauth: true,
    signal: o.signal,
  });
  let body: Record<string, unknown> = {};
  try {
    body = (await res.json()) as Record<string, unknown>;
  } catch {
    /* not JSON: handled below */
  }
  if (typeof body.error === 'string') {
    throw new OAuthError(body.error, typeof body.error_description === 'string' ? body.error_description : undefined, res.status);
  }
  if (res.status >= 400 || typeof body.id_token !== 'string') {
    throw new LanyardError('bad_response', `the token endpoint answered HTTP ${res.status} without an id_token`);
  }
  return { id_token: body.id_token };
}

/** Checks an ID token received from the token endpoint and reads what the cache needs. */
export function processIdToken(idToken: string, o: { issuer: string; clientId: string; nonce: string; nowMs: number }): CachedIdentityToken {
  // Read, not verified: it came straight from the token endpoint over TLS (OpenID Connect Core 3.1.3.7).
  const c = tokenClaims(idToken);
  if (!c) throw new LanyardError('bad_response', 'the identity provider returned a malformed id_token');
  const aud = Array.isArray(c.aud) ? c.aud : [c.aud];
  const problem =
    c.iss !== o.issuer
      ? `its issuer is ${String(c.iss)}, not ${o.issuer}`
      : !aud.includes(o.clientId)
        ? `its audience does not include ${o.clientId}`
        : c.nonce !== o.nonce
          ? 'its nonce does not match the one sent (replayed response?)'
          : typeof c.exp !== 'number' || c.exp * 1000 <= o.nowMs
            ? 'it has already expired'
            : undefined;
  if (problem) throw new LanyardError('bad_response', `the identity provider's id_token was refused: ${problem}`);
  return {
    token: idToken,
    expiresAt: (c.exp as number) * 1000,
    issuer: o.issuer,
    clientId: o.clientId,
    email: typeof c.email === 'string' ? c.email : undefined,
    subject: typeof c.sub === 'string' ? c.sub : undefined,
  };
}

export interface SignInDeps {
  http: HttpClient;
  clock: Clock;
  browser: Browser;
  signal?: AbortSignal;
  random?: RandomBytes;
  /** Told the URL to visit and whether a browser was opened. */
  onAuthorizationUrl(url: string, opened: boolean): void;
}

export interface SignInOptions {
  issuer: string;
  clientId: string;
  scopes?: readonly string[];
  openBrowser: boolean;
  timeoutMs: number;
  loginHint?: string;
  productName?: string;
}

/** The whole browser sign-in; resolves with a checked ID token. */
export async function signInWithBrowser(d: SignInDeps, o: SignInOptions): Promise<CachedIdentityToken> {
  const random = d.random ?? randomBytes;
  const ep = await discoverOidc(d.http, o.issuer, d.signal);
  const state = Buffer.from(random(24)).toString('base64url');
  const nonce = Buffer.from(random(24)).toString('base64url');
  const pkce = createPkce(random);
  const receiver = await startLoopbackReceiver({ state, signal: d.signal, productName: o.productName ?? 'Lanyard' });
  let waiting = false;
  try {
    const url = buildAuthorizationUrl(ep, {
      clientId: o.clientId,
      redirectUri: receiver.redirectUri,
      scopes: o.scopes ?? ID_TOKEN_SCOPES,
      state,
      nonce,
      codeChallenge: pkce.challenge,
      loginHint: o.loginHint,
    });
    const opened = o.openBrowser ? await d.browser.open(url) : false;
    d.onAuthorizationUrl(url, opened);
    waiting = true; // wait() closes the listener itself, once the browser has its page
    const callback = await receiver.wait(o.timeoutMs, (ms, s) => d.clock.sleep(ms, s));
    // The browser's page waits for the exchange and the token's checks: it says signed in only once they pass.
    return await callback.finish(async () => {
      const code = callback.params.get('code');
      if (!code) throw new OAuthError('invalid_response', 'the redirect carried no code', undefined);
      const { id_token } = await exchangeCode(d.http, ep, {
        code,
        clientId: o.clientId,
        redirectUri: receiver.redirectUri,
        verifier: pkce.verifier,
        signal: d.signal,
      });
      return processIdToken(id_token, { issuer: ep.issuer, clientId: o.clientId, nonce, nowMs: d.clock.now() });
    });
  } finally {
    if (!waiting) await receiver.close();
  }
}
