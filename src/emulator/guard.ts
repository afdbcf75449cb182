/**
 * What keeps a running emulator safe from the web pages of the user's browser
 * (one layer in front of every service):
 *
 * - **Host**: a request whose `Host` is not a loopback name (127.x.y.z, [::1],
 *   localhost, *.localhost) or a name of the configured TLS certificate is
 *   refused: a DNS-rebinding page reaches the emulator under its own name.
 * - **Origin**: a state-changing request a browser sends on behalf of another
 *   origin (`Origin` not the emulator's own, `Sec-Fetch-Site` cross-site or
 *   same-site) to the admin API or the mailbox is refused.
 * - **Forms**: every HTML page's `<form method="post">` carries a token bound
 *   to a SameSite=Strict cookie; a browser's form post (any request with an
 *   `Origin` or `Sec-Fetch-Site`, with a body a form can send) must come from
 *   the emulator's origin and carry it. Programs that are not browsers (no
 *   `Origin`) are nobody's confused deputy and post as before.
 *
 * Path parameters that could leave a directory are refused by the router
 * (`unsafeParam`).
 */
import { createHmac, randomBytes, timingSafeEqual, X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { EmulatorAdminPrefix } from '../shared/constants.js';
import { Mailbox } from '../shared/mailbox.js';
import type { EmuRequest, Middleware, Router } from './router.js';

export const CSRF_COOKIE = 'lanyard_emu_csrf';
export const CSRF_FIELD = '_csrf';

/** Paths where any state-changing request from another origin is refused. */
const ORIGIN_BOUND = [EmulatorAdminPrefix, Mailbox.pathPrefix, '/_objects'];

/** Content types an HTML form (or a no-pre-flight fetch) can send across sites. */
const SIMPLE_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];

/** 127.0.0.0/8, ::1, localhost and *.localhost (RFC 6761: always this machine). */
export function isLoopbackName(name: string): boolean {
  const h = name.toLowerCase().replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

/** The DNS names and IP addresses a PEM certificate is valid for. */
export function certificateNames(pem: string | Buffer): string[] {
  try {
    const alt = new X509Certificate(pem).subjectAltName ?? '';
    return alt
      .split(/,\s*/)
      .map((e) => /^(?:DNS|IP Address):(.+)$/.exec(e.trim())?.[1]?.toLowerCase())
      .filter((n): n is string => !!n);
  } catch {
    return [];
  }
}

/** The host name of a `Host` header value (without port and IPv6 brackets); undefined when malformed. */
export function hostName(header: string): string | undefined {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+))(?::\d{1,5})?$/.exec(header.trim());
  return m ? (m[1] ?? m[2])!.toLowerCase() : undefined;
}

function nameAllowed(name: string, certNames: readonly string[]): boolean {
  if (isLoopbackName(name)) return true;
  return certNames.some((c) => c === name || (c.startsWith('*.') && name.endsWith(c.slice(1)) && !name.slice(0, -c.length + 1).includes('.')));
}

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}/`);

/** The request's own origin (scheme from the connection, host from `Host`). */
function ownOrigin(req: EmuRequest): string | undefined {
  const host = req.header('host');
  if (!host) return undefined;
  const scheme = (req.raw.socket as { encrypted?: boolean }).encrypted ? 'https' : 'http';
  try {
    return new URL(`${scheme}://${host}`).origin;
  } catch {
    return undefined;
  }
}

/** True when a browser sent this request on behalf of a page of another origin. */
function crossOrigin(req: EmuRequest): boolean {
  const site = req.header('sec-fetch-site')?.toLowerCase();
  if (site === 'cross-site' || site === 'same-site') return true;
  const origin = req.header('origin');
  return origin !== undefined && origin !== ownOrigin(req);
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

const HOSTS_KEPT = 64;

/** The guard of one emulator: its secret for form tokens and the certificate's names. */
export class Guard {
  readonly #secret = randomBytes(32);
  readonly #certNames: readonly string[];
  /** `Host` values already found allowed (at most HOSTS_KEPT: the check is the same each time). */
  readonly #hostsAllowed = new Set<string>();

  constructor(certNames: readonly string[] = []) {
    this.#certNames = certNames;
  }

  tokenFor(cookie: string): string {
    return createHmac('sha256', this.#secret).update(cookie).digest('base64url');
  }

  #validToken(req: EmuRequest, given: string | null | undefined): boolean {
    const cookie = cookieValue(req, CSRF_COOKIE);
    if (!cookie || !given) return false;
    const want = Buffer.from(this.tokenFor(cookie));
    const got = Buffer.from(given);
    return want.length === got.length && timingSafeEqual(want, got);
  }

  #allow(host: string): void {
    if (this.#hostsAllowed.size >= HOSTS_KEPT) this.#hostsAllowed.clear();
    this.#hostsAllowed.add(host);
  }

  /** Installs the guard in front of every route. */
  install(router: Router): void {
    router.use('', this.middleware(router));
  }

  middleware(router: Router): Middleware {
    return (req, res, next) => {
      const host = req.header('host');
      if (host !== undefined && !this.#hostsAllowed.has(host)) {
        const name = hostName(host);
        if (name && nameAllowed(name, this.#certNames)) this.#allow(host);
        else {
          req.raw.resume();
          return router.sendError(req, res, 403, `Host ${JSON.stringify(host)} is not a name of this emulator (loopback or its certificate)`);
        }
      }
      if (!SAFE.has(req.method)) return this.#stateChanging(router, req, res, next);
      this.#tokenizeForms(req, res);
      return next();
    };
  }

  /** The origin and form-token checks of a request that may change state. */
  async #stateChanging(router: Router, req: EmuRequest, res: Parameters<Middleware>[1], next: () => Promise<void>): Promise<void> {
    if (ORIGIN_BOUND.some((p) => under(req.path, p)) && crossOrigin(req)) {
      req.raw.resume();
      return router.sendError(req, res, 403, 'Cross-origin request refused');
    }
    if (fromBrowser(req) && isSimpleBody(req)) {
      if (crossOrigin(req)) {
        req.raw.resume();
        return router.sendError(req, res, 403, 'Cross-origin form post refused');
      }
      if (!ORIGIN_BOUND.some((p) => under(req.path, p)) && !this.#validToken(req, await formField(req, CSRF_FIELD))) {
        return router.sendError(req, res, 403, 'Form token missing or invalid: reload the page and submit its form');
      }
    }
    this.#tokenizeForms(req, res);
    return next();
  }

  /** Every form posted by an HTML page carries the token of this browser's cookie (set when missing). */
  #tokenizeForms(req: EmuRequest, res: Parameters<Middleware>[1]): void {
    const html = res.html.bind(res);
    res.html = (status, body, headers = {}) => {
      if (!/<form\b[^>]*method="post"/i.test(body)) return html(status, body, headers);
      let cookie = cookieValue(req, CSRF_COOKIE);
      const cookies: string[] = [];
      if (!cookie) {
        cookie = randomBytes(18).toString('base64url');
        cookies.push(`${CSRF_COOKIE}=${cookie}; Path=/; HttpOnly; SameSite=Strict`);
      }
      const field = `<input type="hidden" name="${CSRF_FIELD}" value="${this.tokenFor(cookie)}">`;
      const out = body.replace(/(<form\b[^>]*method="post"[^>]*>)/gi, `$1${field}`);
      if (!cookies.length) return html(status, out, headers);
      const earlier = headers['set-cookie'] ?? res.extraHeaders['set-cookie'];
      if (earlier) {
        delete res.extraHeaders['set-cookie'];
        cookies.unshift(earlier);
      }
      return html(status, out, { ...headers, 'set-cookie': cookies as unknown as string });
    };
  }
}

export function cookieValue(req: EmuRequest, name: string): string | undefined {
  for (const part of (req.header('cookie') ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

/** A browser says where a request comes from; other programs normally don't. */
function fromBrowser(req: EmuRequest): boolean {
  return req.header('origin') !== undefined || req.header('sec-fetch-site') !== undefined;
}

function isSimpleBody(req: EmuRequest): boolean {
  const ct = (req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  return ct === '' || SIMPLE_TYPES.includes(ct);
}

/** A field of a url-encoded or multipart form body (the body stays readable by the handler). */
async function formField(req: EmuRequest, name: string): Promise<string | undefined> {
  const ct = (req.header('content-type') ?? '').toLowerCase();
  const text = await req.text();
  if (ct.startsWith('multipart/form-data')) {
    const m = new RegExp(`name="${name}"\\r\\n\\r\\n([^\\r]*)`).exec(text);
    return m?.[1];
  }
  return new URLSearchParams(text).get(name) ?? undefined;
}
