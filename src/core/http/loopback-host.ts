/** Loopback host names: the hosts that may be reached over plain HTTP with a credential, and that bypass a proxy. */

/**
 * Loopback: `localhost` and `*.localhost`, 127.0.0.0/8, ::1, and IPv4-mapped
 * loopback (`::ffff:127.0.0.1`, which URL parsing writes `::ffff:7f00:1`).
 * Takes a URL's hostname (brackets allowed).
 */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (h === 'localhost' || h.endsWith('.localhost') || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  if (/^127(\.\d{1,3}){3}$/.test(h)) return true;
  return /^(0:){0,5}:?:?ffff:(127(\.\d{1,3}){3}|7f[0-9a-f]{2}:[0-9a-f]{1,4})$/.test(h);
}
