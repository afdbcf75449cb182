/**
 * The one HTTP client every service uses. It composes, in this order:
 * - the request pipeline (pipeline.ts): base-URL joining, credential
 *   injection, body encoding, the redacted `--debug` trace;
 * - client-side guards (guards.ts): a concurrency gate and the pacing of
 *   content-creating requests;
 * - a transport: undici's keep-alive pool for requests (transport.ts),
 *   node:http for large downloads (stream.ts);
 * - the retry and rate-limit policy (retry.ts);
 * - errors mapping (errors.ts): typed errors, error bodies.
 */
import type { RateLimitPolicy } from '../ratelimit/policy.js';
import { defaultRateLimitPolicy } from '../ratelimit/policy.js';
import { HttpError } from '../errors.js';
import { ConcurrencyGate, SlidingWindowGate } from './guards.js';
import { prepareRequest, traceReceived } from './pipeline.js';
import { redactUrl } from './redact.js';
import { backoff, isRetryable, isTransient, sendWithPolicy, type RetryContext } from './retry.js';
import { NodeHttpTransport } from './stream.js';
import { type Transport, UndiciTransport } from './transport.js';
import type { HttpClientOptions, HttpResponse, RequestSpec, Timeouts } from './types.js';

export type { Credential, HttpClientOptions, HttpResponse, QueryValue, RequestSpec } from './types.js';
export { buildUrl } from './pipeline.js';
export { REDACTED } from './redact.js';

const CONTENT_CREATING = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);
const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 10_000, headersMs: 30_000, bodyMs: 60_000 };

export class HttpClient {
  readonly #o: HttpClientOptions;
  readonly #retry: RetryContext;
  readonly #gate: ConcurrencyGate;
  readonly #writes: SlidingWindowGate;
  readonly #requests: Transport;
  #streams: Transport | undefined;

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
    };
    this.#gate = new ConcurrencyGate(options.maxConcurrent ?? 100);
    this.#writes = new SlidingWindowGate(options.contentCreatingPerMinute ?? 80, 60_000, options.clock);
    this.#requests = new UndiciTransport(options.dispatcher, this.#poolSize());
  }

  /** Sends a request, applying the rate-limit policy and retries; throws on unexpected status. */
  request(spec: RequestSpec): Promise<HttpResponse> {
    const method = (spec.method ?? 'GET').toUpperCase();
    return sendWithPolicy(this.#retry, method, spec, (m) => this.#send(m, spec, this.#requests));
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
    const transport = this.#o.dispatcher ? this.#requests : (this.#streams ??= new NodeHttpTransport(this.#poolSize()));
    const method = (spec.method ?? 'GET').toUpperCase();
    return sendWithPolicy(this.#retry, method, s, (m) => this.#send(m, s, transport));
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
    await this.#requests.close();
    await this.#streams?.close();
  }

  /** Connections per origin: the gate's, plus headroom for OAuth requests, which bypass it and must not queue. */
  #poolSize(): number {
    return (this.#o.maxConcurrent ?? 100) + 8;
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

  /** One exchange: prepare (and trace), pass the guards, send, report rate-limit state, trace the answer. */
  async #send(method: string, spec: RequestSpec, transport: Transport): Promise<HttpResponse> {
    const req = prepareRequest(method, spec, this.#o.userAgent, this.#o.trace);
    const release = await this.#admit(method, spec);
    try {
      const res = await transport.send(req, spec, this.#o.timeouts ?? DEFAULT_TIMEOUTS);
      if (res.rateLimit) this.#o.onRateLimit?.(res.rateLimit, res.url);
      return this.#o.trace ? await traceReceived(res, !!spec.streamResponse, this.#o.trace) : res;
    } finally {
      release();
    }
  }
}
