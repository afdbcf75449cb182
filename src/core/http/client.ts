/**
 * The one HTTP client every service uses. It composes, in this order:
 * - the request pipeline (pipeline.ts): base-URL joining, credential
 *   injection, body encoding, the redacted `--debug` trace;
 * - client-side guards (guards.ts): a concurrency gate and the pacing of
 *   content-creating requests;
 * - the transport (transport.ts): node:http(s) keep-alive agents, with the
 *   timeouts and the total deadline of one exchange;
 * - response bodies (stream.ts): streamed to the caller, or read whole, or
 *   read up to a cap (error bodies);
 * - the retry, redirect and rate-limit policy (retry.ts);
 * - errors mapping (errors.ts): typed errors and their messages.
 */
import type { RateLimitPolicy } from '../ratelimit/policy.js';
import { defaultRateLimitPolicy } from '../ratelimit/policy.js';
import { HttpError } from '../errors.js';
import { sendWithAuth } from './auth-hook.js';
import { ConcurrencyGate, PacingGate } from './guards.js';
import { CONTENT_CREATING_WINDOWS, MemoryPacing } from './pacing.js';
import { prepareRequest, traceReceived } from './pipeline.js';
import { redactUrl } from './redact.js';
import { backoff, isRetryable, isTransient, sendWithPolicy, type RetryContext } from './retry.js';
import { NodeHttpTransport, type Transport } from './transport.js';
import type { HttpClientOptions, HttpResponse, RequestSpec, Timeouts } from './types.js';

export type { Credential, HttpClientOptions, HttpResponse, QueryValue, RequestSpec } from './types.js';
export { buildUrl } from './pipeline.js';
export { REDACTED } from './redact.js';

const CONTENT_CREATING = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
export const DEFAULT_TIMEOUTS: Readonly<Timeouts> = { connectMs: 10_000, headersMs: 30_000, bodyMs: 60_000, totalMs: 5 * 60_000 };
/** The total deadline of requestStream() (downloads) unless the client is given one. */
export const DEFAULT_STREAM_TOTAL_MS = 60 * 60_000;

export class HttpClient {
  readonly #o: HttpClientOptions;
  readonly #retry: RetryContext;
  readonly #gate: ConcurrencyGate;
  readonly #writes: PacingGate;
  readonly #transport: Transport;
  readonly #timeouts: Timeouts;

  constructor(options: HttpClientOptions) {
    this.#o = options;
    const policy: RateLimitPolicy = options.rateLimitPolicy ?? defaultRateLimitPolicy;
    this.#retry = {
      clock: options.clock,
      policy,
      maxNetworkRetries: options.maxNetworkRetries ?? 2,
      random: options.random ?? Math.random,
      trace: options.trace,
      onRateLimitWait: options.onRateLimitWait,
      onRetry: options.onRetry,
    };
    this.#gate = new ConcurrencyGate(options.maxConcurrent ?? 100);
    const [minute, hour] = CONTENT_CREATING_WINDOWS;
    const windows = [
      { limit: options.contentCreatingPerMinute ?? minute!.limit, windowMs: minute!.windowMs },
      { limit: options.contentCreatingPerHour ?? hour!.limit, windowMs: hour!.windowMs },
    ];
    this.#writes = new PacingGate(options.pacing ?? new MemoryPacing(), windows, options.clock);
    // Connections per origin: the gate's, plus headroom for OAuth requests, which bypass it and must not queue.
    this.#transport = new NodeHttpTransport((options.maxConcurrent ?? 100) + 8, { proxy: options.proxy, trust: options.trust, trace: options.trace });
    this.#timeouts = { ...DEFAULT_TIMEOUTS, ...definedOnly(options.timeouts) };
  }

  /** Sends a request, applying the rate-limit policy and retries; throws on unexpected status. */
  request(spec: RequestSpec): Promise<HttpResponse> {
    const method = (spec.method ?? 'GET').toUpperCase();
    return sendWithAuth(spec, (a) => sendWithPolicy(this.#retry, method, a, (m, s) => this.#send(m, s, this.#timeouts)));
  }

  /**
   * Like request(), for large downloads: the response body is never traced,
   * and the total deadline is the one for downloads (streamTotalMs, 1 h by
   * default). Credentials, redacted trace of the request, guards, rate-limit
   * policy, retries before the body and typed errors are those of request().
   */
  requestStream(spec: RequestSpec): Promise<HttpResponse> {
    const method = (spec.method ?? 'GET').toUpperCase();
    const t = { ...this.#timeouts, totalMs: this.#o.streamTotalMs ?? DEFAULT_STREAM_TOTAL_MS };
    return sendWithAuth({ ...spec, streamResponse: true }, (a) => sendWithPolicy(this.#retry, method, a, (m, s) => this.#send(m, s, t)));
  }

  /**
   * GET-style helper: sends the request and parses a JSON body, retrying an
   * idempotent request whose body was cut short by a connection reset.
   */
  async json<T = unknown>(spec: RequestSpec): Promise<{ data: T; response: HttpResponse }> {
    const method = (spec.method ?? 'GET').toUpperCase();
    const retryable = isRetryable(method, spec);
    for (let attempt = 0; ; attempt++) {
      const response = await this.request(spec);
      try {
        return { data: await response.json<T>(), response };
      } catch (err) {
        if (retryable && attempt < this.#retry.maxNetworkRetries && isTransient(err)) {
          this.#o.trace?.(`* body cut short (${(err as Error).message}); retrying`);
          await backoff(this.#retry, attempt, spec.signal);
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
    await this.#transport.close();
  }

  /** Waits for the concurrency and content-creation guards; returns the release. */
  async #admit(method: string, spec: RequestSpec, url: URL): Promise<() => void> {
    const release = spec.oauth ? () => {} : await this.#gate.acquire(spec.signal);
    try {
      if (!spec.oauth && CONTENT_CREATING.has(method)) {
        await this.#writes.acquire(url.origin, spec.signal, (waitMs) => this.#o.onPacingWait?.({ waitMs, url: url.origin + url.pathname }));
      }
    } catch (err) {
      release();
      throw err;
    }
    return release;
  }

  /** One exchange: prepare (and trace), pass the guards, send, report rate-limit state, trace the answer. */
  async #send(method: string, spec: RequestSpec, timeouts: Timeouts): Promise<HttpResponse> {
    const req = prepareRequest(method, spec, this.#o.userAgent, this.#o.trace, this.#o.plainHttpHosts);
    const release = await this.#admit(method, spec, req.url);
    try {
      const res = await this.#transport.send(req, spec, { ...timeouts, ...definedOnly(spec.timeouts) });
      if (res.rateLimit) this.#o.onRateLimit?.(res.rateLimit, res.url);
      return this.#o.trace ? await traceReceived(res, !!spec.streamResponse, this.#o.trace) : res;
    } finally {
      release();
    }
  }
}

/** The fields of a partial that are set (`{ bodyMs: undefined }` does not override a default). */
function definedOnly<T extends object>(o: Partial<T> | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}
