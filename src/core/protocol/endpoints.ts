/** URL rules of the protocol's authorization: auth_base, HTTPS and redirect URI checks. */
import { LanyardError, ValidationError } from '../errors.js';
import { isLoopbackHost } from '../http/plain-http.js';

/** The protocol server URL, checked and normalised (no fragment). */
export function parseServerUrl(serverUrl: string): URL {
  let u: URL;
  try {
    u = new URL(serverUrl);
  } catch {
    throw new ValidationError(`not a valid server URL: ${serverUrl}`);
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new ValidationError(`server URL must be http(s): ${serverUrl}`);
  if (u.username || u.password) throw new ValidationError('server URL must not contain credentials');
  u.hash = '';
  return u;
}

/** `{auth_base}`: the server URL with its path removed (scheme, host and port remain). */
export function authBaseOf(serverUrl: string): string {
  return parseServerUrl(serverUrl).origin;
}

/** The canonical name a server's tokens are stored under (no query, no trailing slash). */
export function serverKeyOf(serverUrl: string): string {
  const u = parseServerUrl(serverUrl);
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

export { isLoopbackHost };

/** An authorization, token or registration endpoint must be HTTPS unless its host is loopback. */
export function assertSecureEndpoint(url: string, what: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new LanyardError('insecure_endpoint', `the ${what} endpoint is not a valid URL: ${url}`);
  }
  if (u.protocol === 'https:') return u;
  if (u.protocol === 'http:' && isLoopbackHost(u.hostname)) return u;
  throw new LanyardError(
    'insecure_endpoint',
    `refusing the ${what} endpoint ${u.origin}${u.pathname}: authorization endpoints must use HTTPS unless on localhost`,
  );
}

/** Redirect URIs must be localhost URLs or HTTPS URLs. */
export function assertRedirectUri(uri: string): void {
  const u = new URL(uri);
  if (u.protocol === 'https:') return;
  if (u.protocol === 'http:' && isLoopbackHost(u.hostname)) return;
  throw new LanyardError('insecure_redirect', `refusing redirect URI ${uri}: it must be a localhost or HTTPS URL`);
}
