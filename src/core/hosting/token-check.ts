/**
 * Is a hosting token good, and whose is it? Judged by a request the token may
 * make: GET /user for a user's token (personal, OAuth app, installable app
 * acting for a user). An installation's token, and the workflow token
 * automation gets (one kind of installation token), are refused there with
 * 403 "Resource not accessible by integration" although they work for the
 * API: such a token is judged by GET /rate_limit, which every credential may
 * call and which does not count against the primary limit. A refused token
 * gets 401 from either. So is a token whose GET /user is refused by a rate
 * limit: the server still says whether it takes the token, not whose it is,
 * and when it expires (the token expiration header, which the service sends
 * on every answer to an expiring token, GET /rate_limit's included). A check
 * never waits on a rate limit (not even with `--wait`, or for a secondary
 * limit's short Retry-After): GET /user refused by one falls back to
 * GET /rate_limit at once, and a limit there is the answer.
 */
import { AuthRequiredError, HttpError, RateLimitError } from '../errors.js';
import type { Credential, HttpClient } from '../http/client.js';
import { parseTokenExpiration, TOKEN_EXPIRATION_HEADER } from './token-expiry.js';
import { fetchUser } from './user.js';

export type HostingTokenCheck =
  /** A user's token: who, and its scopes when the server says. */
  | { readonly valid: true; readonly kind: 'user'; readonly login: string; readonly scopes?: readonly string[]; readonly expiresAt?: string }
  /** A token that acts for no user (an installation's or a workflow's): accepted by the API, user unknown. */
  | { readonly valid: true; readonly kind: 'integration' }
  /**
   * GET /user was refused by a rate limit (`limited`); GET /rate_limit took the token, whose it is is not known;
   * `expiresAt` from GET /rate_limit's token expiration header, when it had one (else the expiry is not known).
   */
  | { readonly valid: true; readonly kind: 'unconfirmed'; readonly limited: RateLimitError; readonly expiresAt?: string }
  /** The server refused the token (invalid, expired or revoked). */
  | { readonly valid: false };

const NO_WAIT = { rateLimitWait: false } as const;

/**
 * Checks `credential` against the API at `apiUrl`. Other failures (network,
 * rate limit, a server error) are thrown: the token was not judged.
 */
export async function checkHostingToken(http: HttpClient, apiUrl: string, credential: Credential, signal?: AbortSignal): Promise<HostingTokenCheck> {
  try {
    const u = await fetchUser(http, apiUrl, credential, signal, NO_WAIT);
    return {
      valid: true,
      kind: 'user',
      login: u.login,
      ...(u.scopes ? { scopes: u.scopes } : {}),
      ...(u.tokenExpiresAt ? { expiresAt: u.tokenExpiresAt } : {}),
    };
  } catch (err) {
    // A 401 or 403 of another origin a redirect led to (HttpError.otherOrigin) was not sent the token: thrown, not judged.
    if (err instanceof AuthRequiredError) return { valid: false };
    if (err instanceof RateLimitError && (err.kind === 'primary' || err.kind === 'secondary')) return await byRateLimit(err);
    if (!(err instanceof HttpError && err.status === 403 && !err.otherOrigin)) throw err;
  }
  // 403 from /user (a rate-limit 403 was thrown above as a RateLimitError): not a user's token.
  return (await takesToken()).takes ? { valid: true, kind: 'integration' } : { valid: false };

  /** GET /rate_limit (free of the primary limit): 200 when the server takes the token, 401 when it refuses it; the token's expiry, when said. */
  async function takesToken(): Promise<{ takes: boolean; expiresAt?: string }> {
    const res = await http.request({ url: 'rate_limit', baseUrl: apiUrl, credential, signal, okStatus: (s) => s === 200 || s === 401, ...NO_WAIT });
    await res.dump();
    const expiresAt = res.status === 200 ? parseTokenExpiration(res.headers[TOKEN_EXPIRATION_HEADER]) : undefined;
    return { takes: res.status === 200, ...(expiresAt ? { expiresAt } : {}) };
  }

  /** /user was rate-limited: the token judged by /rate_limit; if that fails too, the rate limit is the answer (not judged). */
  async function byRateLimit(limited: RateLimitError): Promise<HostingTokenCheck> {
    let answer: { takes: boolean; expiresAt?: string };
    try {
      answer = await takesToken();
    } catch (err) {
      if ((err as { code?: string }).code === 'cancelled') throw err;
      throw limited;
    }
    const { takes, expiresAt } = answer;
    return takes ? { valid: true, kind: 'unconfirmed', limited, ...(expiresAt ? { expiresAt } : {}) } : { valid: false };
  }
}
