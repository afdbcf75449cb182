/**
 * What the code host's REST API sends on every answer besides the body, and
 * its conditional requests:
 *
 * - the usual headers: `x-github-media-type` (the version and format asked
 *   for in `Accept`), `x-github-request-id`, `x-github-api-version-selected`
 *   (an unsupported `X-GitHub-Api-Version` is a 400), `vary`,
 *   `cache-control` on reads (private for a signed-in caller, public
 *   otherwise), the CORS headers (`access-control-allow-origin: *` and the
 *   exposed header list: no cookies, so a page reads only what anyone may;
 *   a pre-flight is not served, so a page cannot send a token), and the
 *   browser hardening headers;
 * - `etag` (weak, over the body and what the answer varies on: the media
 *   type Accept names, not its spelling) on every
 *   successful read, and `last-modified` where the resource says when it was
 *   last changed (`updated_at`);
 * - `If-None-Match` (else `If-Modified-Since`) that matches: `304 Not
 *   Modified` with no body, which does not count against the primary rate
 *   limit when the request carried valid credentials (as the service
 *   documents under conditional requests).
 */
import { createHash, randomBytes } from 'node:crypto';
import { Hosting } from '../../../shared/constants.js';
import type { EmuRequest, EmuResponse, Router } from '../../router.js';
import { apiError, REST_DOCS } from './errors.js';

/** The REST API versions the service accepts in `X-GitHub-Api-Version` (the first is the default). */
export const API_VERSIONS = ['2022-11-28', '2026-03-10'] as const;

/** Set by the rate limiter on a counted request: gives the count back (a 304 to a caller with credentials). */
export const REFUND = 'rateLimitRefund';

const EXPOSED = [
  'ETag',
  'Link',
  'Location',
  'Retry-After',
  'X-GitHub-OTP',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Used',
  'X-RateLimit-Resource',
  'X-RateLimit-Reset',
  'X-OAuth-Scopes',
  'X-Accepted-OAuth-Scopes',
  'X-Poll-Interval',
  'X-GitHub-Media-Type',
  'X-GitHub-SSO',
  'X-GitHub-Request-Id',
  'Deprecation',
  'Sunset',
].join(', ');

/** Headers of the 200 a 304 leaves out: those describing the body it does not send (RFC 9110 15.4.5). */
const BODY_HEADERS = /^(?:content-type|content-length|link|location)$/i;

/** `github.v3; format=json`, or with the media type's parameter (`application/vnd.github.raw+json` → `param=raw`). */
export function mediaTypeOf(accept: string | undefined): string {
  const m = /application\/vnd\.github(?:\.(v\d+))?(?:\.([a-z0-9-]+))?(?:\+([a-z]+))?/i.exec(accept ?? '');
  const version = m?.[1] ?? 'v3';
  const param = m?.[2];
  const format = m?.[3] ?? 'json';
  return `github.${version}; ${param ? `param=${param}; ` : ''}format=${format}`;
}

/** Random bytes drawn ahead in one call (a call per request to the system's generator costs more than the rest of the id). */
let pool = Buffer.alloc(0);
let poolAt = 0;

function randomHex(bytes: number): string {
  if (poolAt + bytes > pool.length) {
    pool = randomBytes(4096);
    poolAt = 0;
  }
  poolAt += bytes;
  return pool.toString('hex', poolAt - bytes, poolAt);
}

/** GitHub's request id form: five groups of upper-case hex, colon separated. */
function requestId(): string {
  const h = randomHex(14).toUpperCase();
  return [h.slice(0, 4), h.slice(4, 8), h.slice(8, 15), h.slice(15, 22), h.slice(22, 28)].join(':');
}

/** Weak comparison of an entity tag against an `If-None-Match` list (`*` matches any). */
export function noneMatchHits(header: string, etag: string): boolean {
  const opaque = (t: string) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => t.trim() === '*' || opaque(t) === opaque(etag));
}

export function registerApiHeaders(router: Router): void {
  router.use(Hosting.apiPathPrefix, (req, res, next) => {
    const asked = req.header('x-github-api-version');
    const authenticated = !!req.header('authorization');
    Object.assign(res.extraHeaders, {
      'x-github-media-type': mediaTypeOf(req.header('accept')),
      'x-github-request-id': requestId(),
      'x-github-api-version-selected': asked ?? API_VERSIONS[0],
      vary: authenticated
        ? 'Accept, Authorization, Cookie, X-GitHub-OTP, Accept-Encoding, Accept, X-Requested-With'
        : 'Accept, Accept-Encoding, Accept, X-Requested-With',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'deny',
      'x-xss-protection': '0',
      'referrer-policy': 'origin-when-cross-origin, strict-origin-when-cross-origin',
      'content-security-policy': "default-src 'none'",
    });
    // Pre-flights are not served (405), so they get no CORS headers either.
    if (req.method !== 'OPTIONS') Object.assign(res.extraHeaders, { 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSED });
    if (asked !== undefined && !(API_VERSIONS as readonly string[]).includes(asked)) {
      delete res.extraHeaders['x-github-api-version-selected'];
      req.raw.resume();
      return res.json(400, apiError(400, `API version ${asked} is not supported.`, undefined, `${REST_DOCS}/overview/api-versions`));
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      res.extraHeaders['cache-control'] = authenticated ? 'private, max-age=60, s-maxage=60' : 'public, max-age=60, s-maxage=60';
      conditional(req, res);
    }
    return next();
  });
}

/**
 * The entity tag of a successful read: weak, over what the answer varies on
 * (`Vary`, the media type asked for, `Authorization`) and the JSON text of the body.
 */
export function etagOf(req: EmuRequest, res: EmuResponse, bodyText: string): string {
  return `W/"${createHash('sha256')
    // The representation asked for (its media type), not how Accept spelt it: none, `application/json` and `application/vnd.github+json` are one.
    .update(`${res.extraHeaders.vary}\n${res.extraHeaders['x-github-media-type']}\n${req.header('authorization') ?? ''}\n`)
    .update(bodyText)
    .digest('hex')}"`;
}

/** Wraps the answer's JSON writer: a successful read gets its validators, and a matching condition a 304. */
function conditional(req: EmuRequest, res: EmuResponse): void {
  const json = res.json.bind(res);
  res.json = (status, body, headers = {}) => {
    if (status !== 200) return json(status, body, headers);
    const text = JSON.stringify(body);
    const etag = etagOf(req, res, text);
    const updated = body && typeof body === 'object' && !Array.isArray(body) ? (body as { updated_at?: unknown }).updated_at : undefined;
    const modified = typeof updated === 'string' && !Number.isNaN(Date.parse(updated)) ? new Date(updated).toUTCString() : undefined;
    const validators: Record<string, string> = { etag, ...(modified ? { 'last-modified': modified } : {}) };
    if (!notModified(req, etag, modified)) return res.jsonText(status, text, { ...validators, ...headers });
    // Not modified: a caller with credentials gets the count back.
    if (req.header('authorization')) (req.locals[REFUND] as (() => void) | undefined)?.();
    const kept = Object.entries({ ...res.extraHeaders, ...validators, ...headers }).filter(([k]) => !BODY_HEADERS.test(k));
    res.raw.writeHead(304, Object.fromEntries(kept)).end();
  };
}

/** RFC 9110 13.2.2: `If-None-Match` when present, else `If-Modified-Since` against `Last-Modified`. */
function notModified(req: EmuRequest, etag: string, modified: string | undefined): boolean {
  const inm = req.header('if-none-match');
  if (inm !== undefined) return noneMatchHits(inm, etag);
  const ims = req.header('if-modified-since');
  if (ims === undefined || !modified) return false;
  const since = Date.parse(ims);
  return !Number.isNaN(since) && Date.parse(modified) <= since;
}
