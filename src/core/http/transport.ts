/**
 * The request transport: undici's keep-alive pool (HTTP/1.1), loaded on
 * first use so that a command that only streams (stream.ts) never pays for it.
 */
import type { Agent, Dispatcher } from 'undici';
import { parseRateLimitHeaders } from '../ratelimit/headers.js';
import { mapError } from './errors.js';
import { flattenHeaders, type PreparedRequest } from './pipeline.js';
import type { HttpResponse, RequestSpec, Timeouts } from './types.js';

/** Sends one prepared request; the answer's body is not read yet. */
export interface Transport {
  send(req: PreparedRequest, spec: RequestSpec, defaults: Timeouts): Promise<HttpResponse>;
  close(): Promise<void>;
}

let undiciP: Promise<typeof import('undici')> | undefined;
const loadUndici = () => (undiciP ??= import('undici'));

/**
 * The largest response head accepted: Node's own default. Given explicitly,
 * undici does not load node:http to ask for it (the build defers that require).
 */
const MAX_HEADER_SIZE = 16 * 1024;

export class UndiciTransport implements Transport {
  #dispatcher: Dispatcher | undefined;
  /** Agents for requests with their own connect timeout, by timeout. */
  readonly #connectAgents = new Map<number, Agent>();

  constructor(
    /** An injected dispatcher (tests), used for every request and never closed here. */
    private readonly injected: Dispatcher | undefined,
    /** Pool size: the concurrency gate's, plus headroom (OAuth requests bypass the gate and must not queue). */
    private readonly connections: number,
  ) {
    this.#dispatcher = injected;
  }

  async send(req: PreparedRequest, spec: RequestSpec, t: Timeouts): Promise<HttpResponse> {
    const { method, url, headers, body } = req;
    let raw: Dispatcher.ResponseData<unknown>;
    try {
      const [{ request: undiciRequest }, dispatcher] = await Promise.all([loadUndici(), this.#dispatcherFor(spec, t)]);
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
    return wrapResponse(raw, url.toString(), method, spec.signal);
  }

  async close(): Promise<void> {
    for (const a of this.#connectAgents.values()) await a.close().catch(() => undefined);
    if (!this.injected) await this.#dispatcher?.close();
  }

  async #dispatcherFor(spec: RequestSpec, t: Timeouts): Promise<Dispatcher> {
    if (this.injected) return this.injected;
    const { Agent } = await loadUndici();
    this.#dispatcher ??= new Agent({
      keepAliveTimeout: 10_000,
      maxHeaderSize: MAX_HEADER_SIZE,
      connections: this.connections,
      connect: { timeout: t.connectMs },
    });
    const ms = spec.timeouts?.connectMs;
    if (ms === undefined) return this.#dispatcher;
    let a: Agent | undefined = this.#connectAgents.get(ms);
    if (!a) this.#connectAgents.set(ms, (a = new Agent({ keepAliveTimeout: 10_000, maxHeaderSize: MAX_HEADER_SIZE, connect: { timeout: ms } })));
    return a;
  }
}

function wrapResponse(raw: Dispatcher.ResponseData<unknown>, url: string, method: string, signal?: AbortSignal): HttpResponse {
  const headers = flattenHeaders(raw.headers as Record<string, string | string[] | undefined>);
  const body = raw.body as unknown as import('node:stream').Readable & {
    text(): Promise<string>;
    json(): Promise<unknown>;
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
