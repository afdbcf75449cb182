/**
 * Is a hosting token good, and whose is it? Judged by a request the token may
 * make: GET /user for a user's token (personal, OAuth app, installable app
 * acting for a user). An installation's token, and the workflow token
 * automation gets (one kind of installation token), are refused there with
 * 403 "Resource not accessible by integration" although they work for the
 * API: such a token is judged by GET /rate_limit, which every credential may
 * call and which does not count against the primary limit. A refused token
 * gets 401 from either.
 */
import { AuthRequiredError, HttpError } from '../errors.js';
import type { Credential, HttpClient } from '../http/client.js';
import { fetchUser } from './user.js';

export type HostingTokenCheck =
  /** A user's token: who, and its scopes when the server says. */
  | { readonly valid: true; readonly kind: 'user'; readonly login: string; readonly scopes?: readonly string[]; readonly expiresAt?: string }
  /** A token that acts for no user (an installation's or a workflow's): accepted by the API, user unknown. */
  | { readonly valid: true; readonly kind: 'integration' }
  /** The server refused the token (invalid, expired or revoked). */
  | { readonly valid: false };

/**
 * Checks `credential` against the API at `apiUrl`. Other failures (network,
 * rate limit, a server error) are thrown: the token was not judged.
 */
export async function checkHostingToken(http: HttpClient, apiUrl: string, credential: Credential, signal?: AbortSignal): Promise<HostingTokenCheck> {
  try {
    const u = await fetchUser(http, apiUrl, credential, signal);
    return {
      valid: true,
      kind: 'user',
      login: u.login,
      ...(u.scopes ? { scopes: u.scopes } : {}),
      ...(u.tokenExpiresAt ? { expiresAt: u.tokenExpiresAt } : {}),
    };
  } catch (err) {
    if (err instanceof AuthRequiredError) return { valid: false };
    if (!(err instanceof HttpError && err.status === 403)) throw err;
  }
  // 403 from /user (a rate-limit 403 was thrown above as a RateLimitError): not a user's token.
  const res = await http.request({ url: 'rate_limit', baseUrl: apiUrl, credential, signal, okStatus: (s) => s === 200 || s === 401 });
  await res.dump();
  return res.status === 200 ? { valid: true, kind: 'integration' } : { valid: false };
}
