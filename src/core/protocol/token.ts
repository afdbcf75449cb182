/** The token endpoint: one request function with client authentication, one processing function. */
import type { HttpClient, HttpResponse } from '../http/client.js';
import { LanyardError, OAuthError } from '../errors.js';
import type { KeyObject } from 'node:crypto';
import { JwtBearerAssertionType, type TokenResponseWire } from '../../shared/protocol.js';
import type { ClientIdentity } from './registration.js';
import { checkWire } from '../wire/check.js';
import { TokenAnswerSchema } from '../wire/schemas.js';
import { USE_DPOP_NONCE, type DpopProver } from './dpop.js';

export interface TokenSet {
  readonly accessToken: string;
  readonly tokenType: string;
  /** Epoch ms. */
  readonly expiresAt?: number;
  readonly refreshToken?: string;
  readonly scope?: string;
}

/** OAuth error codes the flow reacts to. */
export const OAuthErrorCode = {
  invalidGrant: 'invalid_grant',
  invalidClient: 'invalid_client',
  invalidToken: 'invalid_token',
  insufficientScope: 'insufficient_scope',
} as const;

/**
 * POSTs a grant (form body) with the client authentication the client was
 * registered with: `none` and `client_secret_post` put client_id (and the
 * secret) in the body; `client_secret_basic` uses HTTP Basic (RFC 6749 §2.3.1
 * form-encodes both parts first); `private_key_jwt` sends a signed assertion
 * (RFC 7523 §2.2) whose audience is the authorization server's issuer.
 */
export async function tokenRequest(
  http: HttpClient,
  endpoint: string,
  grant: Record<string, string | undefined>,
  client: ClientIdentity,
  o: { signal?: AbortSignal; issuer: string; now: number; dpop?: DpopProver },
): Promise<HttpResponse> {
  const send = async () => {
    const { form, credential } = await clientAuthentication(grant, client, o);
    const headers = o.dpop ? { dpop: await o.dpop.proof('POST', endpoint) } : undefined;
    return http.request({ method: 'POST', url: endpoint, form, credential, headers, signal: o.signal, okStatus: () => true, oauth: true, retry: false });
  };
  const res = await send();
  if (!o.dpop) return res;
  // RFC 9449 §8: a 400 use_dpop_nonce with a new DPoP-Nonce is answered once, with a proof that carries it.
  const newNonce = o.dpop.remember(res, endpoint);
  if (res.status !== 400 || !newNonce) return res;
  const text = await res.text();
  if (oauthErrorOf(text) !== USE_DPOP_NONCE) return replayed(res, text);
  const again = await send();
  o.dpop.remember(again, endpoint);
  return again;
}

/** The form and credential of a token request with the client authentication the client was registered with. */
async function clientAuthentication(
  grant: Record<string, string | undefined>,
  client: ClientIdentity,
  o: { issuer: string; now: number },
): Promise<{ form: Record<string, string | undefined>; credential?: { scheme: 'basic'; username: string; password: string } }> {
  const form: Record<string, string | undefined> = { ...grant };
  const needSecret = () => {
    if (!client.clientSecret) {
      throw new LanyardError('client_secret_missing', 'this client authenticates with a secret, but none is available', {
        remedy: { kind: 'client-secret' },
        service: 'protocol',
      });
    }
    return client.clientSecret;
  };
  if (client.authMethod === 'client_secret_basic') {
    return { form, credential: { scheme: 'basic', username: encodeURIComponent(client.clientId), password: encodeURIComponent(needSecret()) } };
  }
  if (client.authMethod === 'private_key_jwt') {
    if (!client.privateKey)
      throw new LanyardError('client_required', 'this client authenticates with a private key, but none is available', {
        remedy: { kind: 'client-id', confidential: true },
        service: 'protocol',
      });
    form.client_id = client.clientId;
    form.client_assertion_type = JwtBearerAssertionType;
    form.client_assertion = await clientAssertion(client.clientId, client.privateKey, o.issuer, o.now, client.signingAlg);
    return { form };
  }
  form.client_id = client.clientId;
  if (client.authMethod === 'client_secret_post') form.client_secret = needSecret();
  return { form };
}

function oauthErrorOf(text: string): string | undefined {
  try {
    const v = JSON.parse(text) as { error?: unknown };
    return typeof v?.error === 'string' ? v.error : undefined;
  } catch {
    return undefined;
  }
}

/** A response whose body was read, readable again. */
function replayed(res: HttpResponse, text: string): HttpResponse {
  const bytes = new TextEncoder().encode(text);
  return {
    status: res.status,
    headers: res.headers,
    url: res.url,
    rateLimit: res.rateLimit,
    body: process.getBuiltinModule('node:stream').Readable.from([bytes]),
    text: async () => text,
    json: async <T>() => JSON.parse(text) as T,
    bytes: async () => bytes,
    dump: async () => {},
  };
}

// node:crypto is loaded on first use (≈ 5 ms): `auth status` loads this module without signing anything.
const crypto = () => process.getBuiltinModule('node:crypto');

/** The JWS algorithm of a private key: ES256/384/512 by curve, RS256 for RSA, EdDSA for Ed25519. */
export function signingAlgOf(pem: string): string {
  let key: KeyObject;
  try {
    key = crypto().createPrivateKey(pem);
  } catch {
    throw new LanyardError('validation', 'the client key is not a PEM private key');
  }
  const type = key.asymmetricKeyType;
  if (type === 'rsa' || type === 'rsa-pss') return 'RS256';
  if (type === 'ed25519') return 'EdDSA';
  if (type === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
    if (curve === 'secp521r1') return 'ES512';
  }
  throw new LanyardError('validation', `the client key's type (${type ?? 'unknown'}) cannot sign a client assertion`);
}

/** RFC 7523 §3: iss = sub = client_id, aud = the issuer, short-lived, unique jti. */
async function clientAssertion(clientId: string, pem: string, audience: string, now: number, alg?: string): Promise<string> {
  const { SignJWT } = await import('jose');
  const iat = Math.floor(now / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: alg ?? signingAlgOf(pem), typ: 'JWT' })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(audience)
    .setIssuedAt(iat)
    .setExpirationTime(iat + 120)
    .setJti(crypto().randomUUID())
    .sign(crypto().createPrivateKey(pem));
}

/** `dpop`: the request carried a DPoP proof, so a `DPoP` token type is expected (a server that binds nothing may still answer Bearer). */
export async function processTokenResponse(res: HttpResponse, now: number, dpop = false): Promise<TokenSet> {
  let body: TokenResponseWire;
  try {
    body = (await res.json()) as TokenResponseWire;
  } catch {
    throw new LanyardError('token_failed', `token endpoint answered HTTP ${res.status} without a JSON body`);
  }
  if (!body || typeof body !== 'object') throw new LanyardError('token_failed', `token endpoint answered HTTP ${res.status} with an unexpected body`);
  if (typeof body.error === 'string' || res.status < 200 || res.status > 299) {
    const error = typeof body.error === 'string' ? body.error : 'server_error';
    throw new OAuthError(
      error,
      body.error_description,
      res.status,
      `token request refused (HTTP ${res.status}): ${error}${body.error_description ? ': ' + body.error_description : ''}`,
    );
  }
  checkWire('protocol', "the token endpoint's answer", TokenAnswerSchema, body);
  if (typeof body.access_token !== 'string' || !body.access_token) throw new LanyardError('token_failed', 'token response lacks access_token');
  const type = typeof body.token_type === 'string' ? body.token_type.toLowerCase() : undefined;
  if (type !== 'bearer' && !(dpop && type === 'dpop')) {
    throw new LanyardError('token_failed', `unsupported token_type ${String(body.token_type)} (expected ${dpop ? 'DPoP or Bearer' : 'Bearer'})`);
  }
  const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : Number(body.expires_in);
  return {
    accessToken: body.access_token,
    tokenType: type === 'dpop' ? 'DPoP' : 'Bearer',
    expiresAt: Number.isFinite(expiresIn) && expiresIn > 0 ? now + expiresIn * 1000 : undefined,
    refreshToken: typeof body.refresh_token === 'string' && body.refresh_token ? body.refresh_token : undefined,
    scope: typeof body.scope === 'string' ? body.scope : undefined,
  };
}
