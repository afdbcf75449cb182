/**
 * Calls of the echo API (POST /echo, GET /auth/info/*) and the processing of
 * the gateway's refusals into one-line errors that keep the server's message.
 */
import { httpUrlOption } from '../options.js';
import { Echo } from '../../shared/constants.js';
import type { AuthInfoResponse, EchoMessage } from '../../shared/echo.js';
import { AuthRequiredError, HttpError, LanyardError, oneLine, type Remedy } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import type { CredentialProvider } from '../auth/provider.js';
import { checkWire } from '../wire/check.js';
import { AuthInfoSchema, EchoMessageSchema } from '../wire/schemas.js';

export interface EchoCall {
  baseUrl: string;
  /** The credential strategy: the API key (`apiKeyCredential`) for /echo, a bearer token for /auth/info. */
  auth: CredentialProvider;
  signal?: AbortSignal;
}

/** POST /echo with the API key as query parameter `key`. */
export async function sendEcho(http: HttpClient, o: EchoCall & { message: string }): Promise<EchoMessage> {
  try {
    const res = await http.request({
      method: 'POST',
      url: Echo.paths.echo,
      baseUrl: httpUrlOption(o.baseUrl, 'baseUrl'),
      json: { message: o.message },
      auth: o.auth,
      signal: o.signal,
    });
    return processEchoResponse(await res.json());
  } catch (err) {
    throw refusal(err, 'key');
  }
}

export function processEchoResponse(body: unknown): EchoMessage {
  return { message: checkWire('echo', 'the answer to POST /echo', EchoMessageSchema, body).message };
}

/** GET an auth-info path with `Authorization: Bearer <token>` (the provider's credential). */
export async function fetchAuthInfo(http: HttpClient, o: EchoCall & { path: string }): Promise<AuthInfoResponse> {
  try {
    const res = await http.request({ url: o.path, baseUrl: httpUrlOption(o.baseUrl, 'baseUrl'), auth: o.auth, signal: o.signal });
    return processAuthInfoResponse(await res.json());
  } catch (err) {
    throw refusal(err, 'token');
  }
}

export function processAuthInfoResponse(body: unknown): AuthInfoResponse {
  const b = checkWire('echo', 'the auth info answer', AuthInfoSchema, body);
  return { id: b.id, email: b.email };
}

/** What each gateway reason means, as a hint for the user (and what to change, when it is a setting). */
const JWT_HINTS: Array<[RegExp, string, Remedy?]> = [
  [/Missing or invalid credentials/, 'no bearer token reached the API'],
  [/BAD_FORMAT/, 'the token is malformed, or lacks iss, sub or aud'],
  [/TIME_CONSTRAINT_FAILURE/, 'the token has expired or is not valid yet (exp/nbf; check the clock)'],
  [/BAD_SUBJECT/, 'an e-mail issuer may only assert itself: sub must equal iss'],
  [/Issuer not allowed/, 'the API does not trust this issuer: use the key file of an account the scheme trusts, or mint with an issuer it trusts'],
  [
    /Audience not allowed/,
    'the API does not accept this audience',
    { kind: 'set-setting', setting: 'echo.audience', example: '<audience>', option: '--audience' },
  ],
  [/KEY_RETRIEVAL_ERROR/, "no key the API can fetch has the token's key id (kid): deleted or unknown key?"],
  [/BAD_SIGNATURE/, "the signature does not verify with the issuer's published key"],
  [/Unable to fetch verification key/, "the API could not fetch the issuer's keys (JWKS)"],
];

function serverMessage(body: unknown): string | undefined {
  if (body && typeof body === 'object') {
    const m = (body as { message?: unknown }).message;
    if (typeof m === 'string' && m) return oneLine(m);
  }
  if (typeof body === 'string' && body.trim()) return oneLine(body).slice(0, 300);
  return undefined;
}

/** Turns a gateway refusal into an error whose message is the server's (never the secret). */
export function refusal(err: unknown, credential: 'key' | 'token'): unknown {
  if (!(err instanceof HttpError)) return err;
  const message = serverMessage(err.body);
  if (!message || err.status < 400 || err.status >= 500 || err.otherOrigin) return err;
  const text = `the echo API refused the ${credential === 'key' ? 'API key' : 'token'} (HTTP ${err.status}): ${message}`;
  if (credential === 'key' && (err.status === 401 || (err.status === 400 && /API key/i.test(message)))) {
    return new AuthRequiredError(text, { remedy: { kind: 'sign-in', service: 'echo' }, service: 'echo' });
  }
  if (credential === 'token' && (err.status === 401 || err.status === 403)) {
    const [, hint, remedy] = JWT_HINTS.find(([re]) => re.test(message)) ?? [];
    const options = { service: 'echo' as const, ...(hint ? { hint } : {}), ...(remedy ? { remedy } : {}) };
    return err.status === 401 ? new AuthRequiredError(text, options) : new LanyardError('forbidden', text, options);
  }
  return new LanyardError('http_error', text, { service: 'echo' });
}
