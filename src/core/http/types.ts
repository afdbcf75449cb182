/** The HTTP client's public types: what callers send and what they get back. */
import type { Dispatcher } from 'undici';
import type { Readable } from 'node:stream';
import type { Clock, TraceSink } from '../deps.js';
import type { RateLimitState } from '../ratelimit/headers.js';
import type { RateLimitPolicy } from '../ratelimit/policy.js';

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

export interface Timeouts {
  connectMs: number;
  headersMs: number;
  bodyMs: number;
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
  timeouts?: Timeouts;
  maxConcurrent?: number;
  contentCreatingPerMinute?: number;
  maxNetworkRetries?: number;
  dispatcher?: Dispatcher;
  /** Jitter source in [0,1); a seam for tests. */
  random?: () => number;
}
