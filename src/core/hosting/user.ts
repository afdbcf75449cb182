/** GET {api}/user: who a token acts for (the app revalidates every token it receives). */
import { AuthRequiredError, LanyardError } from '../errors.js';
import type { Credential, HttpClient, HttpResponse, RequestSpec } from '../http/client.js';
import { parseScopeList } from './oauth.js';
import { parseTokenExpiration, TOKEN_EXPIRATION_HEADER } from './token-expiry.js';
import { checkWire } from '../wire/check.js';
import { httpUrlOption } from '../options.js';
import { HostingUserSchema } from '../wire/schemas.js';

export interface HostingUser {
  readonly login: string;
  readonly id?: number;
  readonly name?: string;
  /** From `x-oauth-scopes`, when the server sends it. */
  readonly scopes?: readonly string[];
  /** When the token expires (ISO), from the token expiration header, when the server sends it. */
  readonly tokenExpiresAt?: string;
}

/**
 * A login as the code host spells them: letters, digits, `-`, `_` and `.`
 * (enterprise managed users: `mona_contoso`), an app's `name[bot]`, at most
 * 100 characters. Nothing that could end a line, separate `key=value` or
 * reach a terminal as a control.
 */
const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,98}[A-Za-z0-9])?(?:\[bot\])?$/;

export function isValidLogin(login: unknown): boolean {
  return typeof login === 'string' && LOGIN.test(login);
}

/** `o.rateLimitWait: false`: a rate limit fails at once (RequestSpec). */
export function userRequest(
  http: HttpClient,
  apiUrl: string,
  credential: Credential,
  signal?: AbortSignal,
  o: Pick<RequestSpec, 'rateLimitWait'> = {},
): Promise<HttpResponse> {
  return http.request({ url: 'user', baseUrl: apiUrl, credential, signal, okStatus: (s) => s === 200 || s === 401, ...o });
}

export async function processUserResponse(res: HttpResponse): Promise<HostingUser> {
  if (res.status === 401) {
    await res.dump();
    throw new AuthRequiredError('the token was refused by the server (invalid, expired or revoked)', {
      remedy: { kind: 'sign-in', service: 'hosting', again: true },
      service: 'hosting',
    });
  }
  const body = checkWire('hosting', 'the answer to GET /user', HostingUserSchema, await res.json());
  if (!body.login) throw new AuthRequiredError('the user endpoint did not name a login', { service: 'hosting' });
  if (!isValidLogin(body.login))
    throw new LanyardError('bad_response', `hosting: GET /user answered a login that is not a valid login (${JSON.stringify(body.login.slice(0, 60))})`);
  const scopesHeader = res.headers['x-oauth-scopes'];
  const tokenExpiresAt = parseTokenExpiration(res.headers[TOKEN_EXPIRATION_HEADER]);
  return Object.freeze({
    ...(tokenExpiresAt ? { tokenExpiresAt } : {}),
    login: body.login,
    ...(body.id !== undefined ? { id: body.id } : {}),
    ...(typeof body.name === 'string' ? { name: body.name } : {}),
    ...(scopesHeader !== undefined ? { scopes: parseScopeList(scopesHeader) } : {}),
  });
}

export async function fetchUser(
  http: HttpClient,
  apiUrl: string,
  credential: Credential,
  signal?: AbortSignal,
  o: Pick<RequestSpec, 'rateLimitWait'> = {},
): Promise<HostingUser> {
  return processUserResponse(await userRequest(http, httpUrlOption(apiUrl, 'apiUrl'), credential, signal, o));
}
