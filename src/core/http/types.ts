/** The HTTP client's public types: what callers send and what they get back. */
import type { Readable } from 'node:stream';
import type { Clock, TraceSink } from '../deps.js';
import type { RateLimitState } from '../ratelimit/headers.js';
import type { RateLimitPolicy } from '../ratelimit/policy.js';
import type { PacingStore, PacingWindow } from './pacing.js';
import type { ProxySettings } from './proxy.js';
import type { TrustSettings } from './trust.js';

/** How a request proves who it is; chosen per service, never built by callers. */
export type Credential =
  | { scheme: 'none' }
  | { scheme: 'bearer'; token: string }
  /** RFC 9449: a DPoP-bound access token and the proof for this one request. */
  | { scheme: 'dpop'; token: string; proof: string }
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
  /**
   * The credential's provider: its credential is sent (unless `credential`
   * is given), and a 401 is answered by one refresh and one retry.
   */
  auth?: CredentialProvider;
  signal?: AbortSignal;
  /** This request's own bounds (see Timeouts); unset ones are the client's. */
  timeouts?: Partial<Timeouts>;
  /**
   * Statuses that are returned instead of thrown. Default: 2xx. A redirect is
   * followed first (see `redirect`), so this sees the final answer.
   */
  okStatus?: (status: number) => boolean;
  /**
   * `follow` (default): up to 5 redirects are followed. Within the origin the
   * request keeps its credential; to another origin it goes without it (no
   * credential, no provider, only the caller's headers that carry none:
   * Accept, Range, conditions). A 303, and a 301 or 302 of a POST, become a
   * GET without the body (as fetch does); a method other than GET or HEAD is
   * otherwise not sent again (an error), nor is a hop from https to plain
   * http on a host that is not loopback. `manual`: a 3xx is returned as it is.
   */
  redirect?: 'follow' | 'manual';
  /** OAuth token requests: bypass the concurrency queue and rate-limit handling. */
  oauth?: boolean;
  /** Retry on connection reset / 502 / 503 / 504. Default: idempotent methods only. */
  retry?: boolean;
  /**
   * `false`: no rate limit is waited out for this request, whatever the
   * policy (`--wait`, a server's short `Retry-After`): its RateLimitError is
   * thrown at once; nor a fleet's hold (shared pacing): it is sent, and the
   * server's answer counts. For a check that has another way to answer (a status).
   */
  rateLimitWait?: false;
  /** Do not trace the response body (binary or streamed responses). */
  streamResponse?: boolean;
}

export interface HttpResponse {
  readonly status: number;
  /** Lower-cased header names; repeated headers joined with ", " (set-cookie: the first; every one: {@link headerLines}). */
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

/** Bounds of one exchange, in ms. */
export interface Timeouts {
  /** Until the connection is open. */
  connectMs: number;
  /** From the request sent until the response head. */
  headersMs: number;
  /** Silence of the body: the longest time without data (or `totalMs`, when shorter). */
  bodyMs: number;
  /**
   * The deadline: the whole exchange, from the request sent until the last
   * byte of the body — for requestStream(), until the response head; 0: none.
   */
  totalMs: number;
}

/** What a response hook sees of an answer: its status, headers and URL (redacted); never the body. */
export interface AnswerHead {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly url: string;
}

/**
 * A service's hook on the HTTP client's final answers (as ky's
 * afterResponse): the generic client knows no service; a service that gives
 * its headers a meaning of its own adds a hook.
 */
export interface ResponseHook {
  /** A successful answer (its body not yet read). */
  ok?(head: AnswerHead): void;
  /** A refusal that is not a rate limit: the service's own error for it, or undefined for the generic HttpError. */
  refused?(head: AnswerHead): Error | undefined;
}

export interface HttpClientOptions {
  clock: Clock;
  userAgent: string;
  trace?: TraceSink;
  rateLimitPolicy?: RateLimitPolicy;
  /** Called with every rate-limit state seen (header values win over /rate_limit). */
  onRateLimit?: (state: RateLimitState, url: string) => void;
  /**
   * Called before a rate-limit wait, so the CLI can say why it is waiting: the kind (`primary`, `secondary`,
   * `server`: a 429/503 with Retry-After), the HTTP status, the wait and the bound it is within.
   */
  onRateLimitWait?: (info: { kind: string; status?: number; waitMs: number; resetAt: number; url: string; boundMs?: number }) => void;
  /** Services' hooks on every final answer (e.g. the code host's single sign-on header: core/hosting/sso.ts). */
  responseHooks?: readonly ResponseHook[];
  /** Called before a retry after a transient failure (network error, 502/503/504), with the back-off about to be slept. */
  onRetry?: (info: { reason: string; attempt: number; waitMs: number; url: string }) => void;
  /** Defaults: connect 10 s, head 30 s, body silence 60 s, deadline 5 min. */
  timeouts?: Partial<Timeouts>;
  /**
   * A bound on the whole body of a requestStream() download, from its head;
   * default: none (the body is bounded by its silence, as long as data flows).
   */
  streamTotalMs?: number;
  /**
   * The code host's API roots (its REST root: `https://api.github.com`, `https://ghe.example/api/v3`; the query
   * API beside it is included). The client-side enforcement of the code host's secondary limits — at most
   * `maxConcurrent` requests at once, the pacing of what it counts as content-creating (REST writes, query-API
   * mutations), a fleet's holds — applies to requests under these only: other services state no such limit and
   * are never paced (their servers' `Retry-After` is honoured instead). Default: `['https://api.github.com']`.
   */
  hostingApis?: readonly string[];
  /** Requests to the code host's API at once (default 100, its secondary limit); others queue. */
  maxConcurrent?: number;
  /** Pacing of the code host's content-creating requests per API origin (default 80 a minute, 500 an hour). */
  contentCreatingPerMinute?: number;
  contentCreatingPerHour?: number;
  /**
   * The content-creating windows as the code host states them, instead of the two above: an installation configured
   * with other limits, or an emulator whose window is shortened for a test in real time.
   */
  contentCreatingWindows?: readonly PacingWindow[];
  /**
   * How much longer each window is counted than the server's, ms (default 1000): the margin for the requests'
   * latency and the fleet's clock skew (`DEFAULT_PACING_MARGIN_MS`; docs/fleets.md).
   */
  pacingMarginMs?: number;
  /** Where those admissions are counted: shared between processes (`FilePacing`) or this one only (`MemoryPacing`, the default). */
  pacing?: PacingStore;
  /** Called before a pacing wait (the store's windows are full), with the wait and the URL without its query. */
  onPacingWait?: (info: { waitMs: number; url: string }) => void;
  maxNetworkRetries?: number;
  /**
   * Called before a request with every form in which it carries its
   * credential (the token, key or password; a Basic header's base64), so a
   * caller can redact them from what it shows.
   */
  onCredential?: (forms: readonly string[]) => void;
  /**
   * Hosts (`host` or `host:port`; `*` any) that may receive a credential over
   * plain `http://` although they are not loopback: for lab setups only. By
   * default such a request is refused before it is sent (InsecureTransportError).
   */
  plainHttpHosts?: readonly string[];
  /**
   * Proxies (see `proxySettings` in http/proxy.ts for the environment's):
   * https through a CONNECT tunnel, http in absolute form; NO_PROXY rules and
   * loopback go direct. Unset: every connection is direct.
   */
  proxy?: ProxySettings;
  /** PEM bundles added to the default trust, and/or the OS trust store (http/trust.ts). */
  trust?: TrustSettings;
  /** An https connection opened before the client was made: its origin's first request goes over it (used only with Node's default trust). */
  preconnected?: Preconnected;
  /** Jitter source in [0,1); a seam for tests. */
  random?: () => number;
}

/** One exchange a credential is made for: its method and final URL (a DPoP proof signs them, RFC 9449 §4.2). */
export interface CredentialRequest {
  /** The method, upper case. */
  readonly method: string;
  /** The absolute URL as sent, query included (a proof's `htu` leaves the query out). */
  readonly url: string;
}

/** A server's answer as a provider sees it: the status, where it came from and the headers (a 401's challenge, a `DPoP-Nonce`). */
export interface CredentialAnswer {
  /** The HTTP status. */
  readonly status: number;
  /** The URL that answered. */
  readonly url: string;
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string>>;
}

/** The one shape of every credential (see core/auth/provider.ts): the credential to send now and, where the service can, a new one after a 401. */
export interface CredentialProvider {
  /** Where the credential comes from: `env:LANYARD_TOKEN`, `keychain`, `file`, `anonymous`… */
  readonly source: string;
  /** Whose credential it is, when known (a stored account's login). */
  readonly login?: string;
  /**
   * The credential to send now; a stored token about to expire is refreshed first.
   * `request` is given by the HTTP client to a provider that is `perRequest`, for each exchange it sends.
   * Without it, such a provider's credential names the token but carries no proof (a DPoP one has `proof: ''`):
   * it may be compared and shown, never sent.
   */
  credential(request?: CredentialRequest): Promise<Credential>;
  /**
   * The server refused `used` (HTTP 401): a new credential to retry with once,
   * or undefined when there is none (the 401 stands). A token another process
   * refreshed meanwhile is returned without refreshing again.
   */
  refresh?(used: Credential): Promise<Credential | undefined>;
  /** When the credential in use expires (epoch ms), when the provider knows. */
  expiresAt?(): number | undefined;
  /**
   * True when the credential is made for each exchange (a DPoP proof of possession, RFC 9449): the HTTP
   * client asks `credential(request)` for every exchange it sends — a retry, a redirect, the next page and
   * the retry after a 401 each get a proof of their own, made once the URL is final — whatever credential
   * the request was handed, and tells `answered` every answer.
   */
  readonly perRequest?: boolean;
  /**
   * Every answer to an exchange of a `perRequest` provider (a server hands out DPoP nonces in any answer,
   * RFC 9449 §8.2). True asks for the exchange to go once more, with a new credential (a `use_dpop_nonce`
   * refusal with a new nonce, §9): the client does that once per exchange, without a refresh.
   */
  answered?(answer: CredentialAnswer): boolean;
}

/**
 * An https connection opened ahead of the client (bin/lanyard.js opens the
 * API's while the CLI loads): to one host and port, with Node's default trust
 * (no proxy, no added CA) and the server name an https agent would give it.
 * Handed over at most once, and only while it is open.
 */
export interface Preconnected {
  /** The open connection to this host, port and server name ('' for an IP address), or undefined. */
  take(host: string, port: number, servername: string): import('node:tls').TLSSocket | undefined;
  /** The trust beyond Node's defaults the connection is verified under (none: Node's default trust). A client takes it only under the same trust. */
  readonly trust?: TrustSettings;
  /** The secure context made for {@link Preconnected.trust}, which the client then uses for that trust's other connections. */
  readonly secureContext?: import('node:tls').SecureContext;
}
