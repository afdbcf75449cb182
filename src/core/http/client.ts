/**
 * The one HTTP client every service uses: undici keep-alive pool, base-URL
 * joining, timeouts, credential injection, typed errors, `--debug` traces
 * (redacted), rate-limit state, the rate-limit policy, client-side guards and
 * bounded retries of idempotent requests.
 */
import type { Agent as HttpAgent, IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import type { Agent, Dispatcher } from 'undici';
import type { Clock, TraceSink } from '../deps.js';
import { CancelledError, HttpError, NetworkError, RateLimitError, TimeoutError, oneLine } from '../errors.js';
import { parseRateLimitHeaders, type RateLimitState } from '../ratelimit/headers.js';
import { classifyRateLimit, decideRateLimit, defaultRateLimitPolicy, type RateLimitPolicy } from '../ratelimit/policy.js';
import { ConcurrencyGate, SlidingWindowGate } from './guards.js';
import { redactBody, redactHeaderValue, redactUrl, REDACTED } from './redact.js';

/** How a request proves who it is; chosen per service, never built by callers. */
export type Credential =
  | { scheme: 'none' }
  | { scheme: 'bearer'; token: string }
  | { scheme: 'basic'; username: string; password: string }
  | { scheme: 'query'; name: string; value: string }
  | { scheme: 'header'; name: string; value: string };

export type QueryValue = string | number | boolean | undefined | null | ReadonlyArray<string | number>;

export interface RequestSpec {
  method?: string;
  /** Absolute URL, or a path joined to `baseUrl`. */
  url: string;
  baseUrl?: string;
  query?: Readonly<Record<string, QueryValue>>;
  headers?: Readonly<Record<string, string>>;
  /** JSON body (sets Content-Type). */
  json?: unknown;
  /** Form body (application/x-www-form-urlencoded). */
  form?: Readonly<Record<string, string | undefined>>;
  /** Raw body: a string, bytes or a stream (streamed, never buffered). */
  body?: string | Uint8Array | Readable | AsyncIterable<Uint8Array>;
  credential?: Credential;
  signal?: AbortSignal;
  timeouts?: { connectMs?: number; headersMs?: number; bodyMs?: number };
  /** Statuses that are returned instead of thrown. Default: 2xx and 3xx. */
  okStatus?: (status: number) => boolean;
  /** OAuth token requests: bypass the concurrency queue and rate-limit handling. */
  oauth?: boolean;
  /** Retry on connection reset / 502 / 503 / 504. Default: idempotent methods only. */
  retry?: boolean;
  /** Do not trace the response body (binary or streamed responses). */
  streamResponse?: boolean;
}

export interface HttpResponse {
  readonly status: number;
  /** Lower-cased header names; repeated headers joined with ", " (set-cookie kept first). */
  readonly headers: Readonly<Record<string, string>>;
  readonly url: string;
  readonly rateLimit?: RateLimitState;
  /** The body as a stream; read it once. */
  readonly body: Readable;
  text(): Promise<string>;
  json<T = unknown>(): Promise<T>;
  bytes(): Promise<Uint8Array>;
  /** Discards the body (frees the connection). */
  dump(): Promise<void>;
}

export interface HttpClientOptions {
  clock: Clock;
  userAgent: string;
  trace?: TraceSink;
  rateLimitPolicy?: RateLimitPolicy;
  /** Called with every rate-limit state seen (header values win over /rate_limit). */
  onRateLimit?: (state: RateLimitState, url: string) => void;
  /** Called before a rate-limit wait, so the CLI can say why it is waiting. */
  onRateLimitWait?: (info: { kind: string; waitMs: number; resetAt: number; url: string }) => void;
  timeouts?: { connectMs: number; headersMs: number; bodyMs: number };
  maxConcurrent?: number;
  contentCreatingPerMinute?: number;
  maxNetworkRetries?: number;
  dispatcher?: Dispatcher;
  /** Jitter source in [0,1); a seam for tests. */
  random?: () => number;
}

/** undici is loaded on first use: a command that only streams (requestStream) never pays for it. */
let undiciP: Promise<typeof import('undici')> | undefined;
const loadUndici = () => (undiciP ??= import('undici'));

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
const CONTENT_CREATING = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
const RETRY_STATUS = new Set([502, 503, 504]);
/**
 * The largest response head accepted: Node's own default. Given explicitly,
 * undici does not load node:http to ask for it (the build defers that require).
 */
const MAX_HEADER_SIZE = 16 * 1024;

const RETRY_CODES = new Set([
  'ECONNRESET',
  'UND_ERR_SOCKET',
  'EPIPE',
  'UND_ERR_CLOSED',
  'ECONNREFUSED',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'LANYARD_BODY_CUT',
]);

export class HttpClient {
  readonly #o: Required<Pick<HttpClientOptions, 'userAgent' | 'clock' | 'maxNetworkRetries'>> & HttpClientOptions;
  readonly #policy: RateLimitPolicy;
  #dispatcher: Dispatcher | undefined;
  /** node:http(s) agents of requestStream(), by protocol. */
  readonly #nativeAgents = new Map<string, HttpAgent>();
  readonly #gate: ConcurrencyGate;
  readonly #writes: SlidingWindowGate;
  readonly #random: () => number;
  /** Agents for requests with their own connect timeout, by timeout. */
  readonly #connectAgents = new Map<number, Agent>();

  constructor(options: HttpClientOptions) {
    this.#o = { maxNetworkRetries: 2, ...options };
    this.#policy = options.rateLimitPolicy ?? defaultRateLimitPolicy;
    this.#dispatcher = options.dispatcher;
    this.#gate = new ConcurrencyGate(options.maxConcurrent ?? 100);
    this.#writes = new SlidingWindowGate(options.contentCreatingPerMinute ?? 80, 60_000, options.clock);
    this.#random = options.random ?? Math.random;
  }

  /** Sends a request, applying the rate-limit policy and retries; throws on unexpected status. */
  request(spec: RequestSpec): Promise<HttpResponse> {
    return this.#request(spec, (method) => this.#send(method, spec));
  }

  /**
   * Like request(), for large downloads: the response body is node:http's own
   * stream (native HTTP parser, socket buffers handed over without copies),
   * never traced. Credentials, redacted trace of the request, guards, rate-limit
   * policy, retries before the body and typed errors are those of request().
   * With an injected `dispatcher` (tests) it goes through undici like request().
   */
  requestStream(spec: RequestSpec): Promise<HttpResponse> {
    const s: RequestSpec = { ...spec, streamResponse: true };
    return this.#request(s, (method) => (this.#o.dispatcher ? this.#send(method, s) : this.#sendNative(method, s)));
  }

  async #request(spec: RequestSpec, send: (method: string) => Promise<HttpResponse>): Promise<HttpResponse> {
    const method = (spec.method ?? 'GET').toUpperCase();
    const retryable = spec.retry ?? (IDEMPOTENT.has(method) && !isStream(spec.body));
    let rateAttempt = 0;
    let netAttempt = 0;
    for (;;) {
      let res: HttpResponse;
      try {
        res = await send(method);
      } catch (err) {
        if (retryable && netAttempt < this.#o.maxNetworkRetries && isTransient(err)) {
          await this.#backoff(netAttempt++, spec.signal);
          continue;
        }
        throw err;
      }
      if (retryable && RETRY_STATUS.has(res.status) && netAttempt < this.#o.maxNetworkRetries) {
        await res.dump();
        await this.#backoff(netAttempt++, spec.signal);
        continue;
      }
      const ok = spec.okStatus ? spec.okStatus(res.status) : res.status >= 200 && res.status < 400;
      if (ok) return res;
      const body = await readErrorBody(res);
      if (!spec.oauth) {
        const message = errorMessage(body);
        const now = this.#o.clock.now();
        const cls = classifyRateLimit(res.status, res.headers, message, now);
        if (cls) {
          const decision = decideRateLimit(cls, rateAttempt, now, this.#policy);
          // A streamed body is spent: such a request cannot be sent again.
          if (decision.action === 'wait' && !isStream(spec.body)) {
            this.#o.onRateLimitWait?.({ kind: cls.kind, waitMs: decision.waitMs, resetAt: decision.resetAt, url: res.url });
            this.#trace(`* rate limited (${cls.kind}); waiting ${Math.ceil(decision.waitMs / 1000)} s`);
            await this.#o.clock.sleep(decision.waitMs, spec.signal);
            rateAttempt++;
            continue;
          }
          const err = new RateLimitError(rateLimitMessage(cls.kind, message, decision.resetAt), cls.kind, decision.resetAt, cls.state);
          // Waiting was allowed but not possible (too long, too many retries): say why.
          if (this.#policy.wait)
            err.hint = decision.action === 'wait' ? 'the request body was streamed and cannot be sent again; retry the command' : decision.reason;
          throw err;
        }
      }
      throw new HttpError(res.status, method, redactUrl(res.url), body, res.headers);
    }
  }

  /**
   * GET-style helper: sends the request and parses a JSON body, retrying an
   * idempotent request whose body was cut short by a connection reset.
   */
  async json<T = unknown>(spec: RequestSpec): Promise<{ data: T; response: HttpResponse }> {
    const method = (spec.method ?? 'GET').toUpperCase();
    const retryable = spec.retry ?? (IDEMPOTENT.has(method) && !isStream(spec.body));
    for (let attempt = 0; ; attempt++) {
      const response = await this.request(spec);
      try {
        return { data: await response.json<T>(), response };
      } catch (err) {
        if (retryable && attempt < this.#o.maxNetworkRetries && isTransient(err)) {
          this.#trace(`* body cut short (${(err as Error).message}); retrying`);
          await this.#backoff(attempt, spec.signal);
          continue;
        }
        if (err instanceof SyntaxError) {
          throw new HttpError(
            response.status,
            method,
            redactUrl(response.url),
            undefined,
            response.headers,
            `${method} ${redactUrl(response.url)}: the response is not valid JSON`,
          );
        }
        throw err;
      }
    }
  }

  async close(): Promise<void> {
    for (const a of this.#connectAgents.values()) await a.close().catch(() => undefined);
    for (const a of this.#nativeAgents.values()) a.destroy();
    if (!this.#o.dispatcher) await this.#dispatcher?.close();
  }

  async #dispatcherFor(spec: RequestSpec): Promise<Dispatcher> {
    if (this.#o.dispatcher) return this.#o.dispatcher;
    const { Agent } = await loadUndici();
    // Headroom above the gate: OAuth requests bypass it and must not queue in the pool.
    this.#dispatcher ??= new Agent({
      keepAliveTimeout: 10_000,
      maxHeaderSize: MAX_HEADER_SIZE,
      connections: (this.#o.maxConcurrent ?? 100) + 8,
      connect: { timeout: this.#timeouts().connectMs },
    });
    const ms = spec.timeouts?.connectMs;
    if (ms === undefined) return this.#dispatcher;
    let a: Agent | undefined = this.#connectAgents.get(ms);
    if (!a) this.#connectAgents.set(ms, (a = new Agent({ keepAliveTimeout: 10_000, maxHeaderSize: MAX_HEADER_SIZE, connect: { timeout: ms } })));
    return a;
  }

  #timeouts(): { connectMs: number; headersMs: number; bodyMs: number } {
    return this.#o.timeouts ?? { connectMs: 10_000, headersMs: 30_000, bodyMs: 60_000 };
  }

  async #backoff(attempt: number, signal?: AbortSignal): Promise<void> {
    const base = 250 * 2 ** attempt;
    await this.#o.clock.sleep(base / 2 + this.#random() * base, signal);
  }

  #trace(line: string): void {
    this.#o.trace?.(line);
  }

  /** URL, headers (credential applied) and body of a request; traces it (redacted). */
  #prepare(method: string, spec: RequestSpec): { url: URL; headers: Record<string, string>; body: RequestSpec['body'] } {
    const url = buildUrl(spec);
    const headers: Record<string, string> = { 'user-agent': this.#o.userAgent, accept: 'application/json' };
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
    if (this.#o.trace) {
      this.#trace(`> ${method} ${redactUrl(url.toString())}`);
      for (const [k, v] of Object.entries(headers)) this.#trace(`> ${k}: ${redactHeaderValue(k, v)}`);
      if (traceBody !== undefined) this.#trace(`> ${redactBody(traceBody, headers['content-type'])}`);
      else if (body !== undefined) this.#trace('> [streamed body]');
    }
    return { url, headers, body };
  }

  /** Waits for the concurrency and content-creation guards; returns the release. */
  async #admit(method: string, spec: RequestSpec): Promise<() => void> {
    const release = spec.oauth ? () => {} : await this.#gate.acquire(spec.signal);
    try {
      if (!spec.oauth && CONTENT_CREATING.has(method)) await this.#writes.acquire(spec.signal);
    } catch (err) {
      release();
      throw err;
    }
    return release;
  }

  #received(res: HttpResponse, spec: RequestSpec): HttpResponse | Promise<HttpResponse> {
    if (res.rateLimit) this.#o.onRateLimit?.(res.rateLimit, res.url);
    if (this.#o.trace) {
      this.#trace(`< HTTP ${res.status}`);
      for (const [k, v] of Object.entries(res.headers)) this.#trace(`< ${k}: ${redactHeaderValue(k, v)}`);
      if (!spec.streamResponse) return traceResponse(res, (l) => this.#trace(l));
    }
    return res;
  }

  async #send(method: string, spec: RequestSpec): Promise<HttpResponse> {
    const { url, headers, body } = this.#prepare(method, spec);
    const release = await this.#admit(method, spec);
    try {
      const t = this.#timeouts();
      let raw: Dispatcher.ResponseData<unknown>;
      try {
        const [{ request: undiciRequest }, dispatcher] = await Promise.all([loadUndici(), this.#dispatcherFor(spec)]);
        raw = await undiciRequest(url, {
          method: method as Dispatcher.HttpMethod,
          headers,
          body: body as Dispatcher.DispatchOptions['body'],
          signal: spec.signal,
          dispatcher,
          headersTimeout: spec.timeouts?.headersMs ?? t.headersMs,
          bodyTimeout: spec.timeouts?.bodyMs ?? t.bodyMs,
          maxRedirections: 0,
        } as Parameters<typeof undiciRequest>[1]);
      } catch (err) {
        throw mapError(err, method, url.toString(), spec.signal);
      }
      return await this.#received(wrapResponse(raw, url.toString(), method, spec.signal), spec);
    } finally {
      release();
    }
  }

  /** #send() over node:http(s): same headers, guards, timeouts and error mapping. */
  async #sendNative(method: string, spec: RequestSpec): Promise<HttpResponse> {
    const { url, headers, body } = this.#prepare(method, spec);
    const release = await this.#admit(method, spec);
    try {
      const d = this.#timeouts();
      const t = {
        connectMs: spec.timeouts?.connectMs ?? d.connectMs,
        headersMs: spec.timeouts?.headersMs ?? d.headersMs,
        bodyMs: spec.timeouts?.bodyMs ?? d.bodyMs,
      };
      const mod = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
      let agent = this.#nativeAgents.get(url.protocol);
      if (!agent) this.#nativeAgents.set(url.protocol, (agent = new mod.Agent({ keepAlive: true, maxSockets: (this.#o.maxConcurrent ?? 100) + 8 })));
      let raw: IncomingMessage;
      try {
        raw = await new Promise<IncomingMessage>((resolve, reject) => {
          const req = mod.request(url, { method, headers, agent, signal: spec.signal });
          const fail = (code: string, what: string) => req.destroy(Object.assign(new Error(`${what} timeout`), { code }));
          let timer = setTimeout(() => fail('UND_ERR_CONNECT_TIMEOUT', 'connect'), t.connectMs);
          req.once('socket', (socket) => {
            const awaitHeaders = () => {
              clearTimeout(timer);
              timer = setTimeout(() => fail('UND_ERR_HEADERS_TIMEOUT', 'headers'), t.headersMs);
            };
            if (socket.connecting) socket.once('connect', awaitHeaders);
            else awaitHeaders();
          });
          req.once('response', (r) => {
            clearTimeout(timer);
            // Idle timeout between body chunks, like undici's bodyTimeout.
            const socket = r.socket;
            const idle = () => r.destroy(Object.assign(new Error('body timeout'), { code: 'UND_ERR_BODY_TIMEOUT' }));
            socket.setTimeout(t.bodyMs, idle);
            // The socket may go back to the pool: no timer, no listener left on it.
            r.once('close', () => socket.setTimeout(0, idle));
            resolve(r);
          });
          req.once('error', (err) => {
            clearTimeout(timer);
            reject(err);
          });
          if (body === undefined || typeof body === 'string' || body instanceof Uint8Array) req.end(body);
          else
            void import('node:stream/promises')
              .then(({ pipeline }) => pipeline(body as AsyncIterable<Uint8Array>, req))
              .catch((err: unknown) => req.destroy(err as Error));
        });
      } catch (err) {
        throw mapError(err, method, url.toString(), spec.signal);
      }
      return await this.#received(wrapNative(raw, url.toString(), method, spec.signal), spec);
    } finally {
      release();
    }
  }
}

function isStream(b: unknown): boolean {
  return !!b && typeof b === 'object' && Symbol.asyncIterator in b && !(b instanceof Uint8Array);
}

function isTransient(err: unknown): boolean {
  if (err instanceof NetworkError) {
    const c = err.cause as { code?: string } | undefined;
    return !!c?.code && RETRY_CODES.has(c.code);
  }
  return false;
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

function applyCredential(c: Credential | undefined, headers: Record<string, string>, url: URL): void {
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

function flattenHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined) continue;
    out[k.toLowerCase()] = Array.isArray(v) ? (k.toLowerCase() === 'set-cookie' ? v[0]! : v.join(', ')) : v;
  }
  return out;
}

function wrapResponse(raw: Dispatcher.ResponseData<unknown>, url: string, method: string, signal?: AbortSignal): HttpResponse {
  const headers = flattenHeaders(raw.headers as Record<string, string | string[] | undefined>);
  const body = raw.body as unknown as Readable & {
    text(): Promise<string>;
    json(): Promise<unknown>;
    bytes?(): Promise<Uint8Array>;
    arrayBuffer(): Promise<ArrayBuffer>;
    dump(): Promise<void>;
  };
  const guard = async <T>(f: () => Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (err) {
      throw mapError(err, method, url, signal, 'body');
    }
  };
  return {
    status: raw.statusCode,
    headers,
    url,
    rateLimit: parseRateLimitHeaders(headers),
    body,
    text: () => guard(() => body.text()),
    json: <T>() => guard(async () => JSON.parse(await body.text()) as T),
    bytes: () => guard(async () => new Uint8Array(await body.arrayBuffer())),
    dump: () => body.dump().catch(() => undefined),
  };
}

function wrapNative(raw: IncomingMessage, url: string, method: string, signal?: AbortSignal): HttpResponse {
  const headers = flattenHeaders(raw.headers);
  const read = async (): Promise<Buffer> => {
    try {
      const chunks: Buffer[] = [];
      for await (const c of raw) chunks.push(c as Buffer);
      return Buffer.concat(chunks);
    } catch (err) {
      // node:http reports a body cut short as "aborted" (ECONNRESET).
      throw mapError(err, method, url, signal, 'body');
    }
  };
  return {
    status: raw.statusCode ?? 0,
    headers,
    url,
    rateLimit: parseRateLimitHeaders(headers),
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

/** Buffers a (small, non-streamed) response to trace its redacted body, then re-serves it. */
async function traceResponse(res: HttpResponse, trace: (l: string) => void): Promise<HttpResponse> {
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

async function readErrorBody(res: HttpResponse): Promise<unknown> {
  let text: string;
  try {
    text = await res.text();
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

function errorMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    if (typeof b.message === 'string') return b.message;
    if (b.error && typeof b.error === 'object' && typeof (b.error as Record<string, unknown>).message === 'string') {
      return (b.error as Record<string, string>).message;
    }
  }
  return undefined;
}

function rateLimitMessage(kind: string, serverMessage: string | undefined, resetAt: number | undefined): string {
  const at = resetAt !== undefined ? new Date(resetAt).toISOString() : undefined;
  const when = at === undefined ? '' : kind === 'primary' ? `; the budget resets at ${at}` : `; retry after ${at}`;
  const what = kind === 'primary' ? 'API rate limit exceeded' : 'secondary rate limit';
  // The server's first sentence names the caller ("... for user ID 1."); keep it, one line.
  const first = serverMessage
    ? oneLine(serverMessage)
        .split(/(?<=\.)\s/)[0]!
        .replace(/[.\s]+$/, '')
    : undefined;
  if (first?.toLowerCase().includes(what.toLowerCase())) return `${first}${when}`;
  const label = kind === 'primary' ? what : 'Secondary rate limit exceeded';
  return `${label}${first ? ` (${first.slice(0, 200)})` : ''}${when}`;
}

function mapError(err: unknown, method: string, url: string, signal?: AbortSignal, phase?: 'body'): Error {
  if (err instanceof HttpError || err instanceof NetworkError || err instanceof TimeoutError || err instanceof CancelledError) return err;
  const safeUrl = redactUrl(url);
  const code = (err as { code?: string; name?: string })?.code;
  const name = (err as { name?: string })?.name;
  if (signal?.aborted || name === 'AbortError' || code === 'UND_ERR_ABORTED') return new CancelledError();
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return new TimeoutError(method, safeUrl, 'connect');
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return new TimeoutError(method, safeUrl, 'headers');
  if (code === 'UND_ERR_BODY_TIMEOUT') return new TimeoutError(method, safeUrl, 'body');
  if (phase === 'body' && (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH')) {
    return new NetworkError(
      method,
      safeUrl,
      Object.assign(new Error('connection closed before the whole body arrived'), { code: 'LANYARD_BODY_CUT', original: code }),
    );
  }
  return new NetworkError(method, safeUrl, err);
}

export { REDACTED };
