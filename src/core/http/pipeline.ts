/**
 * The request pipeline's pure steps: URL building, credential injection,
 * body encoding and the redacted `--debug` trace of requests and responses.
 */
import type { TraceSink } from '../deps.js';
import { ValidationError } from '../errors.js';
import { assertNoClearCredential } from './plain-http.js';
import { redactBody, redactHeaderValue, redactUrl, redactUrlHeader } from './redact.js';
import { headerLines, withBody } from './stream.js';
import type { Credential, HttpResponse, RequestSpec } from './types.js';

/** A request ready for a transport: URL and headers final, credential applied, body encoded. */
export interface PreparedRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: RequestSpec['body'];
}

/**
 * The request's URL. A URL that cannot be made is bad input, found before any
 * request: a ValidationError (the value unshown, as it may carry a secret).
 */
export function buildUrl(spec: Pick<RequestSpec, 'url' | 'baseUrl' | 'query'>): URL {
  let url: URL;
  if (/^https?:\/\//i.test(spec.url)) url = parsedUrl(spec.url, 'the request URL');
  else {
    if (!spec.baseUrl) throw new ValidationError('a relative request URL needs a base URL (an absolute http:// or https:// URL)');
    const base = parsedUrl(spec.baseUrl, 'the base URL');
    if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new ValidationError('the base URL must be an http:// or https:// URL');
    url = new URL(spec.url.replace(/^\/+/, ''), base.href.endsWith('/') ? base : `${base.href}/`);
  }
  for (const [k, v] of Object.entries(spec.query ?? {})) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) url.searchParams.append(k, String(item));
    else url.searchParams.append(k, String(v));
  }
  return url;
}

function parsedUrl(value: string, what: string): URL {
  try {
    return new URL(value);
  } catch {
    throw new ValidationError(`${what} is not an absolute URL (it needs http:// or https:// and a host)`);
  }
}

/**
 * Every form in which a request carries the credential: the token, key or
 * password as sent, and a Basic header's base64 of `user:password` (a server
 * that reflects the header in an error body shows that, not the password).
 */
export function credentialForms(c: Credential | undefined): string[] {
  if (!c) return [];
  switch (c.scheme) {
    case 'bearer':
    case 'dpop':
      return [c.token];
    case 'basic':
      return [c.password, basicValue(c.username, c.password)];
    case 'query':
    case 'header':
      return [c.value];
    default:
      return [];
  }
}

const basicValue = (username: string, password: string) => Buffer.from(`${username}:${password}`).toString('base64');

export function applyCredential(c: Credential | undefined, headers: Record<string, string>, url: URL): void {
  if (!c || c.scheme === 'none') return;
  switch (c.scheme) {
    case 'bearer':
      headers.authorization = `Bearer ${c.token}`;
      return;
    case 'dpop':
      headers.authorization = `DPoP ${c.token}`;
      headers.dpop = c.proof;
      return;
    case 'basic':
      headers.authorization = `Basic ${basicValue(c.username, c.password)}`;
      return;
    case 'query':
      url.searchParams.set(c.name, c.value);
      return;
    case 'header':
      headers[c.name.toLowerCase()] = c.value;
      return;
  }
}

/** URL, headers (credential applied) and body of a request; traces it (redacted). */
export function prepareRequest(
  method: string,
  spec: RequestSpec,
  userAgent: string,
  trace?: TraceSink,
  plainHttpHosts: readonly string[] = [],
): PreparedRequest {
  const url = buildUrl(spec);
  const headers: Record<string, string> = { 'user-agent': userAgent, accept: 'application/json' };
  for (const [k, v] of Object.entries(spec.headers ?? {})) headers[k.toLowerCase()] = v;
  // No credential in clear: refused before anything is traced or sent.
  assertNoClearCredential(url, spec.credential, headers, plainHttpHosts);
  // A DPoP token without a proof of this exchange (a provider's credential() asked without a request) is never sent.
  if (spec.credential?.scheme === 'dpop' && !spec.credential.proof)
    throw new TypeError('a DPoP-bound token goes out only with a proof of its request: hand its provider to the request as `auth`');
  applyCredential(spec.credential, headers, url);
  let body: RequestSpec['body'];
  let traceBody: string | undefined;
  if (spec.json !== undefined) {
    body = JSON.stringify(spec.json);
    headers['content-type'] ??= 'application/json';
    traceBody = body;
  } else if (spec.form) {
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(spec.form)) if (v !== undefined) p.append(k, v);
    body = p.toString();
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
    traceBody = body;
  } else if (spec.body !== undefined) {
    body = spec.body;
    if (typeof body === 'string') traceBody = body;
  }
  if (trace) {
    trace(`> ${method} ${redactUrl(url.toString())}`);
    for (const [k, v] of Object.entries(headers)) trace(`> ${k}: ${redactHeaderValue(k, redactUrlHeader(k, v))}`);
    if (traceBody !== undefined) trace(`> ${redactBody(traceBody, headers['content-type'])}`);
    else if (body !== undefined) trace('> [streamed body]');
  }
  return { method, url, headers, body };
}

/** Traces a response's status and headers (redacted), and its body unless it is streamed. */
export function traceReceived(res: HttpResponse, streamed: boolean, trace: TraceSink): HttpResponse | Promise<HttpResponse> {
  trace(`< HTTP ${res.status}`);
  // A Location (a signed download URL), Link or Content-Location: its secret parameters too, as the request line's.
  for (const [k, v] of headerLines(res.headers)) trace(`< ${k}: ${redactHeaderValue(k, redactUrlHeader(k, v))}`);
  return streamed ? res : traceResponse(res, trace);
}

/** The most of a response body buffered for the trace: beyond it the body is not traced. */
const TRACE_BODY_CAP = 1024 * 1024;

/**
 * Buffers a (non-streamed) response to trace its redacted body, then
 * re-serves it. A body over TRACE_BODY_CAP is not traced (it is redacted
 * whole or not shown) and is re-served as the buffered part and the rest.
 */
async function traceResponse(res: HttpResponse, trace: TraceSink): Promise<HttpResponse> {
  const ct = res.headers['content-type'] ?? '';
  if (!/json|text|xml|x-www-form-urlencoded/i.test(ct)) return res;
  const it = res.body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const chunks: Buffer[] = [];
  let size = 0;
  let done = false;
  try {
    while (size <= TRACE_BODY_CAP) {
      const n = await it.next();
      if (n.done) {
        done = true;
        break;
      }
      chunks.push(n.value);
      size += n.value.length;
    }
  } catch (err) {
    // Served as it came: the reader sees the error where it reads.
    return withBody(
      res,
      (async function* () {
        yield* chunks;
        throw err;
      })(),
    );
  }
  if (!done) {
    trace(`< [body over ${TRACE_BODY_CAP / 1024 / 1024} MiB, not traced]`);
    const rest = { [Symbol.asyncIterator]: () => it };
    return withBody(
      res,
      (async function* () {
        yield* chunks;
        yield* rest;
      })(),
    );
  }
  const shown = redactBody(Buffer.concat(chunks).toString('utf8'), ct);
  trace(`< ${shown.length > 4000 ? shown.slice(0, 4000) + '…' : shown}`);
  return withBody(res, chunks);
}
