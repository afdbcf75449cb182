/**
 * The redirect URL rules (spec "Redirect URL rules" 1-4), checked against the
 * app's configured callback URL.
 */

const LOOPBACK_LITERALS = new Set(['127.0.0.1', '[::1]']);

function effectivePort(u: URL): string {
  if (u.port) return u.port;
  return u.protocol === 'https:' ? '443' : u.protocol === 'http:' ? '80' : '';
}

function pathAtOrBelow(path: string, base: string): boolean {
  const b = base || '/';
  if (path === b) return true;
  return path.startsWith(b.endsWith('/') ? b : b + '/');
}

/** Whether `redirectUri` may be used for an app whose callback URL is `callbackUrl`. */
export function redirectAllowed(callbackUrl: string, redirectUri: string): boolean {
  let cb: URL;
  let ru: URL;
  try {
    cb = new URL(callbackUrl);
    ru = new URL(redirectUri);
  } catch {
    return false;
  }
  if (ru.protocol !== cb.protocol || ru.username || ru.password) return false;
  const cbHost = cb.hostname.toLowerCase();
  const ruHost = ru.hostname.toLowerCase();
  if (LOOPBACK_LITERALS.has(cbHost)) {
    // Rule 4: any port on a loopback literal; host and path rules still apply.
    return ruHost === cbHost && pathAtOrBelow(ru.pathname, cb.pathname);
  }
  // Rules 2-3: same host or a sub-domain of it, same port, path at or below.
  const hostOk = ruHost === cbHost || ruHost.endsWith('.' + cbHost);
  return hostOk && effectivePort(ru) === effectivePort(cb) && pathAtOrBelow(ru.pathname, cb.pathname);
}

/** Redirect URIs that are not http(s) (custom schemes) always get the account picker. */
export function isHttpUri(uri: string): boolean {
  return /^https?:\/\//i.test(uri);
}
