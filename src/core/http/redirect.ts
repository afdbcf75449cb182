/**
 * Redirects: where one goes, with which method, and what the next request
 * carries. A credential is only ever sent to the origin it belongs to: a hop
 * to another origin (a code host's download endpoints answer 302 to a
 * download or storage host) goes without it, as the code host's own CLI and
 * browsers do.
 */
import { HttpError } from '../errors.js';
import { isClearTextUrl } from './plain-http.js';
import { redactUrl } from './redact.js';
import type { HttpResponse, RequestSpec } from './types.js';

/** Redirects followed for one request (the code host's CLI follows 10; its API uses one). */
export const MAX_REDIRECTS = 5;

/**
 * The caller's headers a hop to another origin keeps: those that carry no
 * credential (content negotiation, ranges, conditions). Every other one is
 * dropped — `Authorization`, cookies, an API key or session header of any
 * name — since a header the client does not know may be a secret.
 */
const CROSS_ORIGIN_HEADERS = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'user-agent',
  'range',
  'if-range',
  'if-match',
  'if-none-match',
  'if-modified-since',
  'if-unmodified-since',
  'cache-control',
  'pragma',
]);

/** The headers of a request body, dropped with it when a redirect turns the request into a GET (fetch, "request-body-header name"). */
const BODY_HEADERS = new Set(['content-type', 'content-length', 'transfer-encoding', 'content-encoding', 'content-language', 'content-location']);

/** The next request of a followed redirect. */
export interface RedirectHop {
  method: string;
  spec: RequestSpec;
  /** Trace lines saying what the hop does (never a value). */
  notes: string[];
  /** The hop goes to another origin; `dropped`: it leaves behind the credential or caller headers the request carried. */
  crossOrigin?: { dropped: boolean };
}

/**
 * The method of the next request, as fetch (and browsers) decide it: a 303
 * turns anything but GET or HEAD into a GET, a 301 or 302 turns a POST into
 * one, both without the body; otherwise the method stays. A 307 or 308 keeps
 * the method and its body: followed within the origin when the body can be
 * sent again (the code host answers a write to a renamed or moved repository
 * so, and its CLI re-sends it), refused elsewhere or for a streamed body.
 * Undefined: not followed (also a 301 or 302 of a PATCH, PUT or DELETE).
 */
function nextMethod(status: number, method: string, sameOrigin: boolean, spec: RequestSpec): string | undefined {
  if (method === 'GET' || method === 'HEAD') return method;
  if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) return 'GET';
  if ((status === 307 || status === 308) && sameOrigin && replayable(spec)) return method;
  return undefined;
}

/** Whether the request's body can be sent a second time: none, JSON, a form, a string or bytes — not a stream. */
function replayable(spec: RequestSpec): boolean {
  const b = spec.body;
  return b === undefined || typeof b === 'string' || b instanceof Uint8Array;
}

/** `headers` less those `drop` says; the names dropped. */
function filterHeaders(headers: Readonly<Record<string, string>>, drop: (name: string) => boolean): [Record<string, string>, string[]] {
  const kept: Record<string, string> = {};
  const dropped: string[] = [];
  for (const [k, v] of Object.entries(headers)) {
    if (drop(k.toLowerCase())) dropped.push(k.toLowerCase());
    else kept[k] = v;
  }
  return [kept, dropped];
}

/** Whether `spec` sends anything that identifies its caller: a credential, its provider, a header of the caller's. */
function carriesCredential(spec: RequestSpec): boolean {
  return !!spec.auth || (!!spec.credential && spec.credential.scheme !== 'none');
}

/**
 * The next request after the redirect `res` answered `method` with, or the
 * one-line error saying why it is not followed: no or a bad Location, not an
 * HTTP URL, a URL with user-info, too many hops, a method that would be sent
 * again with its body, or from https to plain http on a host that is not
 * loopback (nor allowed by `plainHttpHosts`). Within the origin the request
 * keeps its credential; to another origin it goes without any: no
 * credential, no provider (no DPoP proof), and only the caller's headers
 * that carry none (CROSS_ORIGIN_HEADERS). Once dropped, the credential stays
 * dropped for the hops after.
 */
export function redirectHop(
  res: HttpResponse,
  method: string,
  spec: RequestSpec,
  hops: number,
  plainHttpHosts: readonly string[] = [],
): RedirectHop | HttpError {
  const here = redactUrl(res.url);
  const fail = (why: string) => new HttpError(res.status, method, here, undefined, res.headers, `${method} ${here}: ${why}`);
  const location = res.headers.location;
  if (!location) return fail(`the server answered HTTP ${res.status} (a redirect) without a Location`);
  let to: URL;
  try {
    to = new URL(location, res.url);
  } catch {
    return fail(`the server answered HTTP ${res.status} with an invalid Location`);
  }
  const there = redactUrl(to.toString());
  if (to.protocol !== 'https:' && to.protocol !== 'http:') return fail(`redirected (HTTP ${res.status}) to ${there}, not an HTTP URL; not followed`);
  if (to.username || to.password) return fail(`redirected (HTTP ${res.status}) to a URL with user-info (${there}); not followed`);
  const from = new URL(res.url);
  const next = nextMethod(res.status, method, to.origin === from.origin, spec);
  if (!next) return fail(`redirected (HTTP ${res.status}) to ${there}; a ${method} is not sent again elsewhere`);
  if (hops >= MAX_REDIRECTS) return fail(`more than ${MAX_REDIRECTS} redirects (the last to ${there}); not followed`);
  // A download in clear after asking over TLS: anyone on the way could change it.
  if (from.protocol === 'https:' && isClearTextUrl(to, plainHttpHosts))
    return fail(`redirected (HTTP ${res.status}) from https to plain ${there}; not followed`);
  const notes: string[] = [];
  // The Location is the whole URL: no base, no query of the first request.
  let out: RequestSpec = { ...spec, url: to.toString(), baseUrl: undefined, query: undefined };
  if (next !== method) {
    const [headers] = filterHeaders(out.headers ?? {}, (h) => BODY_HEADERS.has(h));
    out = { ...out, headers, json: undefined, form: undefined, body: undefined };
    notes.push(`* HTTP ${res.status}: the ${method} becomes a GET, without its body`);
  }
  if (to.origin === from.origin) return { method: next, spec: out, notes };
  const [headers, dropped] = filterHeaders(out.headers ?? {}, (h) => !CROSS_ORIGIN_HEADERS.has(h));
  const carried = carriesCredential(out);
  if (carried || dropped.length > 0) {
    const what = [carried ? 'the credential' : '', dropped.length ? `the headers ${dropped.join(', ')}` : ''].filter(Boolean).join(' and ');
    notes.push(`* ${to.origin} is another origin: sent without ${what}`);
  }
  out = { ...out, headers, credential: { scheme: 'none' }, auth: undefined };
  return { method: next, spec: out, notes, crossOrigin: { dropped: carried || dropped.length > 0 } };
}
