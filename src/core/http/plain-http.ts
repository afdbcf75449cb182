/**
 * No credential in clear (RFC 6750 §5.3): a request that carries a bearer
 * token, a Basic credential, an API key or any Authorization header is never
 * sent over `http://` to a host that is not loopback. The one check sits in
 * the HTTP client (pipeline.ts), so no command can forget it. A lab setup
 * opts in per host (LANYARD_ALLOW_PLAIN_HTTP in the CLI).
 */
import { LanyardError } from '../errors.js';
import { isLoopbackHost } from './loopback-host.js';
import type { Credential } from './types.js';

export { isLoopbackHost } from './loopback-host.js';

/** The hosts a lab setup allows credentials to over plain HTTP: `host` or `host:port`, comma-separated; `*` any. */
export function parsePlainHttpHosts(text: string | undefined): readonly string[] {
  return (text ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}

export class InsecureTransportError extends LanyardError {
  constructor(
    readonly url: string,
    what: string,
  ) {
    super(
      'insecure_transport',
      `refusing to send ${what} over plain HTTP to ${url}: it is not a loopback host, so anyone on the way could read it (nothing was sent)`,
      { hint: 'use an https:// URL', remedy: { kind: 'allow-plain-http', host: new URL(url).host } },
    );
  }
}

/** What a request carries that must not travel in clear, or undefined. */
function credentialCarried(credential: Credential | undefined, headers: Readonly<Record<string, string>>): string | undefined {
  switch (credential?.scheme) {
    case 'bearer':
      return 'a bearer token';
    case 'dpop':
      return 'a DPoP-bound token';
    case 'basic':
      return 'a Basic credential';
    case 'query':
    case 'header':
      return 'an API key';
  }
  if (Object.keys(headers).some((k) => k.toLowerCase() === 'authorization')) return 'an Authorization header';
  return undefined;
}

/** Whether `url` is plain HTTP to a host that is neither loopback nor allowed. */
export function isClearTextUrl(url: URL, allowed: readonly string[] = []): boolean {
  if (url.protocol !== 'http:' || isLoopbackHost(url.hostname)) return false;
  const host = url.host.toLowerCase();
  return !allowed.some((a) => a === '*' || a === host || a === url.hostname.toLowerCase());
}

/** Throws before anything is sent when a credential would go in clear. */
export function assertNoClearCredential(
  url: URL,
  credential: Credential | undefined,
  headers: Readonly<Record<string, string>>,
  allowed: readonly string[] = [],
): void {
  if (!isClearTextUrl(url, allowed)) return;
  const what = credentialCarried(credential, headers);
  if (what) throw new InsecureTransportError(`${url.origin}${url.pathname}`, what);
}
