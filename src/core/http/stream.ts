/**
 * Response bodies: node:http's stream handed to the caller as it is (large
 * downloads are piped, never buffered), helpers that read it whole, and
 * bounded reads (error bodies).
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { parseRateLimitHeaders } from '../ratelimit/headers.js';
import { mapError } from './errors.js';
import type { HttpResponse } from './types.js';

/** The most of an error response's body that is read (1 MiB); the rest is discarded unread. */
export const ERROR_BODY_CAP = 1024 * 1024;

export function wrapResponse(raw: IncomingMessage, url: string, method: string, signal?: AbortSignal): HttpResponse {
  const headers = flattenHeaders(raw.headers);
  return respond(raw, { status: raw.statusCode ?? 0, headers, url, rateLimit: parseRateLimitHeaders(headers) }, method, signal);
}

/** The same response with another body (a traced body re-served, say). */
export function withBody(res: HttpResponse, body: Iterable<Uint8Array> | AsyncIterable<Uint8Array>): HttpResponse {
  return respond(Readable.from(body, { objectMode: false }), res, 'GET', undefined);
}

function respond(raw: Readable, head: Pick<HttpResponse, 'status' | 'headers' | 'url' | 'rateLimit'>, method: string, signal?: AbortSignal): HttpResponse {
  const read = async (): Promise<Buffer> => {
    try {
      const chunks: Buffer[] = [];
      for await (const c of raw) chunks.push(c as Buffer);
      return Buffer.concat(chunks);
    } catch (err) {
      // node:http reports a body cut short as "aborted" (ECONNRESET).
      throw mapError(err, method, head.url, signal, 'body');
    }
  };
  return {
    status: head.status,
    headers: head.headers,
    url: head.url,
    rateLimit: head.rateLimit,
    body: raw,
    text: async () => (await read()).toString('utf8'),
    json: async <T>() => JSON.parse((await read()).toString('utf8')) as T,
    bytes: async () => new Uint8Array(await read()),
    dump: async () => {
      if (raw.readableEnded || raw.destroyed) return;
      await new Promise<void>((r) => {
        for (const e of ['end', 'close', 'error']) raw.once(e, () => r());
        raw.resume();
      });
    },
  };
}

/**
 * Every Set-Cookie of an answer: `headers['set-cookie']` is the first only
 * (they cannot be joined into one value); all of them sit under this symbol
 * of the same object — no entry of it (Object.entries, JSON), but kept by a
 * spread.
 */
const SET_COOKIES = Symbol('set-cookie');

/** Response headers as lower-cased names to one string (repeats joined with ", "; set-cookie: the first, see headerLines). */
export function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> & { [SET_COOKIES]?: readonly string[] } = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    const name = k.toLowerCase();
    if (Array.isArray(v) && name === 'set-cookie') {
      if (v.length === 0) continue;
      out[name] = v[0]!;
      out[SET_COOKIES] = v;
    } else out[name] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/**
 * The header lines of an answer's (or an HttpError's) headers as
 * `[name, value]` pairs: each Set-Cookie on its own line, in the order
 * received (`headers['set-cookie']` holds only the first).
 *
 * @example
 * const cookies = headerLines(res.headers).filter(([name]) => name === 'set-cookie').map(([, v]) => v);
 */
export function headerLines(headers: Readonly<Record<string, string>>): Array<[name: string, value: string]> {
  const cookies = (headers as { [SET_COOKIES]?: readonly string[] })[SET_COOKIES];
  return Object.entries(headers).flatMap(([k, v]): Array<[string, string]> => (k === 'set-cookie' && cookies ? cookies.map((c) => [k, c]) : [[k, v]]));
}

/**
 * At most `max` bytes of a body; the rest is not read: the stream is
 * destroyed (its connection is not reused). `truncated` says whether
 * anything was left.
 */
export async function readAtMost(body: AsyncIterable<Uint8Array>, max: number): Promise<{ bytes: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop early (return) destroys the stream.
  for await (const c of body) {
    const b = Buffer.from(c.buffer, c.byteOffset, c.byteLength);
    if (size + b.length > max) {
      chunks.push(b.subarray(0, max - size));
      return { bytes: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(b);
    size += b.length;
  }
  return { bytes: Buffer.concat(chunks), truncated: false };
}

/**
 * The body of an error response: parsed JSON when it is JSON, else the text
 * (truncated). At most ERROR_BODY_CAP bytes are read: a huge body is cut, not
 * held in memory to print a line of it.
 */
export async function readErrorBody(res: HttpResponse): Promise<unknown> {
  let text: string;
  try {
    text = (await readAtMost(res.body, ERROR_BODY_CAP)).bytes.toString('utf8');
  } catch {
    return undefined;
  }
  const ct = res.headers['content-type'] ?? '';
  if (ct.includes('json') || /^\s*[{[]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      /* not JSON after all */
    }
  }
  return text.length > 2000 ? text.slice(0, 2000) : text;
}
