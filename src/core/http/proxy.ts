/**
 * Which proxy, if any, a request goes through: HTTPS_PROXY / HTTP_PROXY /
 * ALL_PROXY / NO_PROXY (lower-case forms first, as curl and Go read them),
 * else the profile's setting. Pure: the environment is handed in.
 *
 * Rules:
 * - `https:` URLs take https_proxy, then all_proxy; `http:` URLs take
 *   http_proxy, then all_proxy; a proxy given without a scheme is `http://`.
 * - NO_PROXY (comma- or space-separated): `*` (everything), a host name
 *   (`corp.example` or `.corp.example`, both matching the host and every
 *   subdomain; `*.corp.example` likewise), an IP address, a CIDR range
 *   (`10.0.0.0/8`, `fd00::/8`), each optionally with `:port` (then only that
 *   port; IPv6 with a port in brackets, `[::1]:8080`).
 * - Loopback (localhost, 127.0.0.0/8, ::1) never goes through a proxy: a
 *   proxy cannot reach this machine's own listeners (Go's rule).
 *
 * The agents themselves (https-proxy-agent: CONNECT tunnel; http-proxy-agent:
 * absolute-form requests) are loaded by the transport only when a proxy applies.
 */
import { BlockList, isIP } from 'node:net';
import { LanyardError } from '../errors.js';
import { isLoopbackHost } from './loopback-host.js';

/** The proxy settings a client is given; every field optional. */
export interface ProxySettings {
  httpsProxy?: string;
  httpProxy?: string;
  allProxy?: string;
  noProxy?: string;
}

/** The variables read, in order of precedence for each setting. */
export const PROXY_VARIABLES = {
  httpsProxy: ['https_proxy', 'HTTPS_PROXY'],
  httpProxy: ['http_proxy', 'HTTP_PROXY'],
  allProxy: ['all_proxy', 'ALL_PROXY'],
  noProxy: ['no_proxy', 'NO_PROXY'],
} as const;

/**
 * The settings from an environment, over a profile's (`proxy` for every
 * scheme, `noProxy`): a variable set in the environment wins.
 */
export function proxySettings(env: Readonly<Record<string, string | undefined>>, profile: { proxy?: string; noProxy?: string } = {}): ProxySettings {
  const pick = (names: readonly string[]) => names.map((n) => env[n]).find((v) => v !== undefined && v.trim() !== '');
  const s: ProxySettings = {
    httpsProxy: pick(PROXY_VARIABLES.httpsProxy) ?? profile.proxy,
    httpProxy: pick(PROXY_VARIABLES.httpProxy) ?? profile.proxy,
    allProxy: pick(PROXY_VARIABLES.allProxy),
    noProxy: pick(PROXY_VARIABLES.noProxy) ?? profile.noProxy,
  };
  return Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined)) as ProxySettings;
}

export class ProxyError extends LanyardError {
  constructor(message: string, hint?: string) {
    super('proxy_error', message, hint ? { hint } : undefined);
  }
}

/** A proxy URL as it may be shown: scheme, user name and host, never the password. */
export function proxyDisplay(proxy: URL): string {
  let user = proxy.username;
  try {
    user = decodeURIComponent(user);
  } catch {
    /* shown as written */
  }
  return `${proxy.protocol}//${user ? `${user}@` : ''}${proxy.host}`;
}

/**
 * Every form in which a request carries the proxy's credential: the password
 * as written and decoded, and the `Proxy-Authorization: Basic` value
 * (base64 of `user:password`). A diagnostic must show none of them.
 */
export function proxyCredentialForms(proxy: URL): string[] {
  if (!proxy.password) return [];
  const decode = (v: string) => {
    try {
      return decodeURIComponent(v);
    } catch {
      return v;
    }
  };
  const basic = Buffer.from(`${decode(proxy.username)}:${decode(proxy.password)}`).toString('base64');
  return [...new Set([proxy.password, decode(proxy.password), basic, basic.replace(/=+$/, '')])];
}

/** `text` with the proxy's credential, in any form a request carried it, replaced by `***`. */
export function withoutProxyCredential(text: string, proxy: URL): string {
  let out = text;
  for (const form of proxyCredentialForms(proxy).sort((a, b) => b.length - a.length)) if (form) out = out.split(form).join('***');
  return out;
}

/** Parses a proxy setting (`http://user:pass@host:3128`, `host:3128`). */
export function parseProxyUrl(text: string): URL {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text.trim()) ? text.trim() : `http://${text.trim()}`;
  let u: URL;
  try {
    u = new URL(withScheme);
  } catch {
    // The text may hold a password: only its shape is said.
    throw new ProxyError('the proxy setting is not a valid URL', 'write it as http://[user:password@]host:port');
  }
  try {
    decodeURIComponent(u.username);
    decodeURIComponent(u.password);
  } catch {
    // The agent would decode them when it sends CONNECT, and fail there.
    throw new ProxyError(`proxy ${u.protocol}//${u.host}: the user name or password has a bad percent-escape (write % as %25)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new ProxyError(`proxy ${proxyDisplay(u)}: only http:// and https:// proxies are supported`);
  }
  return u;
}

interface NoProxyRule {
  kind: 'all' | 'host' | 'ip' | 'cidr';
  host?: string;
  port?: string;
  list?: BlockList;
}

/** Splits `host:port` (IPv6 in brackets). */
function splitPort(entry: string): { host: string; port?: string } {
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (v6) return { host: v6[1]!, port: v6[2] };
  const m = /^([^:]+):(\d+)$/.exec(entry);
  if (m) return { host: m[1]!, port: m[2] };
  return { host: entry };
}

export function parseNoProxy(text: string | undefined): NoProxyRule[] {
  const rules: NoProxyRule[] = [];
  for (const raw of (text ?? '').split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') {
      rules.push({ kind: 'all' });
      continue;
    }
    const cidr = /^\[?([0-9a-f:.]+)\]?\/(\d{1,3})$/.exec(entry);
    if (cidr && isIP(cidr[1]!)) {
      const list = new BlockList();
      const type = isIP(cidr[1]!) === 6 ? 'ipv6' : 'ipv4';
      try {
        list.addSubnet(cidr[1]!, Number(cidr[2]), type);
        rules.push({ kind: 'cidr', list });
      } catch {
        /* a prefix out of range matches nothing */
      }
      continue;
    }
    // A bare IPv6 address has colons but no port.
    const { host, port } = isIP(entry) === 6 ? { host: entry, port: undefined } : splitPort(entry);
    if (isIP(host)) rules.push({ kind: 'ip', host, port });
    else rules.push({ kind: 'host', host: host.replace(/^\*?\./, ''), port });
  }
  return rules;
}

/** The port a URL connects to. */
function portOf(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/** Whether NO_PROXY sends `url` direct. */
export function bypassesProxy(url: URL, rules: readonly NoProxyRule[]): boolean {
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const ipType = isIP(host);
  for (const r of rules) {
    if (r.kind === 'all') return true;
    if (r.port !== undefined && r.port !== portOf(url)) continue;
    if (r.kind === 'cidr') {
      if (ipType && r.list!.check(host, ipType === 6 ? 'ipv6' : 'ipv4')) return true;
    } else if (r.kind === 'ip') {
      if (ipType && host === r.host) return true;
    } else if (host === r.host || host.endsWith(`.${r.host}`)) return true;
  }
  return false;
}

/** The proxy `url` goes through, or undefined for a direct connection. */
export function proxyFor(url: URL, s: ProxySettings): URL | undefined {
  if (isLoopbackHost(url.hostname)) return undefined;
  const text = url.protocol === 'https:' ? (s.httpsProxy ?? s.allProxy) : (s.httpProxy ?? s.allProxy);
  if (!text) return undefined;
  if (bypassesProxy(url, parseNoProxy(s.noProxy))) return undefined;
  return parseProxyUrl(text);
}
