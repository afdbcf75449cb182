/**
 * The request pipeline's pure steps: URL building, credential injection,
 * body encoding and the redacted `--debug` trace of requests and responses.
 */
import type { TraceSink } from '../deps.js';
import { redactBody, redactHeaderValue, redactUrl } from './redact.js';
import type { Credential, HttpResponse, RequestSpec } from './types.js';

/** A request ready for a transport: URL and headers final, credential applied, body encoded. */
export interface PreparedRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: RequestSpec['body'];
}

export function buildUrl(spec: Pick<RequestSpec, 'url' | 'baseUrl' | 'query'>): URL {
  let url: URL;
  if (/^https?:\/\//i.test(spec.url)) url = new URL(spec.url);
  else {
    if (!spec.baseUrl) throw new TypeError(`relative URL ${spec.url} without a base URL`);
    const base = spec.baseUrl.endsWith('/') ? spec.baseUrl : spec.baseUrl + '/';
    url = new URL(spec.url.replace(/^\/+/, ''), base);
  }
  for (const [k, v] of Object.entries(spec.query ?? {})) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const item of v) url.searchParams.append(k, String(item));
    else url.searchParams.append(k, String(v));
  }
  return url;
}

export function applyCredential(c: Credential | undefined, headers: Record<string, string>, url: URL): void {
  if (!c || c.scheme === 'none') return;
  switch (c.scheme) {
    case 'bearer':
      headers.authorization = `Bearer ${c.token}`;
      return;
    case 'basic':
      headers.authorization = 'Basic ' + Buffer.from(`${c.username}:${c.password}`).toString('base64');
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
export function prepareRequest(method: string, spec: RequestSpec, userAgent: string, trace?: TraceSink): PreparedRequest {
  const url = buildUrl(spec);
  const headers: Record<string, string> = { 'user-agent': userAgent, accept: 'application/json' };
  for (const [k, v] of Object.entries(spec.headers ?? {})) headers[k.toLowerCase()] = v;
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
    for (const [k, v] of Object.entries(headers)) trace(`> ${k}: ${redactHeaderValue(k, v)}`);
    if (traceBody !== undefined) trace(`> ${redactBody(traceBody, headers['content-type'])}`);
    else if (body !== undefined) trace('> [streamed body]');
  }
  return { method, url, headers, body };
}

/** Traces a response's status and headers (redacted), and its body unless it is streamed. */
export function traceReceived(res: HttpResponse, streamed: boolean, trace: TraceSink): HttpResponse | Promise<HttpResponse> {
  trace(`< HTTP ${res.status}`);
  for (const [k, v] of Object.entries(res.headers)) trace(`< ${k}: ${redactHeaderValue(k, v)}`);
  return streamed ? res : traceResponse(res, trace);
}

/** Buffers a (small, non-streamed) response to trace its redacted body, then re-serves it. */
async function traceResponse(res: HttpResponse, trace: TraceSink): Promise<HttpResponse> {
  const ct = res.headers['content-type'] ?? '';
  if (!/json|text|xml|x-www-form-urlencoded/i.test(ct)) return res;
  const buf = Buffer.from(await res.bytes());
  const text = buf.toString('utf8');
  trace(`< ${redactBody(text.length > 4000 ? text.slice(0, 4000) + '…' : text, ct)}`);
  const { Readable } = await import('node:stream');
  return {
    ...res,
    body: Readable.from([buf]),
    text: async () => text,
    json: async <T>() => JSON.parse(text) as T,
    bytes: async () => new Uint8Array(buf),
    dump: async () => undefined,
  };
}

/** Response headers as lower-cased names to one string (repeats joined with ", ", set-cookie kept first). */
export function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? (k.toLowerCase() === 'set-cookie' ? v[0]! : v.join(', ')) : v;
  }
  return out;
}
