/**
 * The one HTTP client every service uses. It composes, in this order:
 * - the request pipeline (pipeline.ts): base-URL joining, credential
 *   injection, body encoding, the redacted `--debug` trace;
 * - client-side guards (guards.ts): a concurrency gate and the pacing of
 *   content-creating requests;
 * - the transport (transport.ts): node:http(s) keep-alive agents, with the
 *   timeouts and the deadline of one exchange (a download's: to its head);
 * - response bodies (stream.ts): streamed to the caller, or read whole, or
 *   read up to a cap (error bodies);
 * - the retry, redirect and rate-limit policy (retry.ts);
 * - errors mapping (errors.ts): typed errors and their messages.
 */
import type { RateLimitPolicy } from '../ratelimit/policy.js';
import { defaultRateLimitPolicy } from '../ratelimit/policy.js';
import { HttpError, ValidationError } from '../errors.js';
import { parseServerDate } from '../ratelimit/headers.js';
import { sendWithAuth } from './auth-hook.js';
import { ConcurrencyGate, PacingGate, pacingBound } from './guards.js';
import {
  CONTENT_CREATING_WINDOWS,
  DEFAULT_PACING_MARGIN_MS,
  credentialIdentity,
  holdsPacing,
  isSharedPacing,
  MemoryPacing,
  type PacingScope,
  type PacingStore,
  type SharedBudget,
} from './pacing.js';
import { DEFAULT_HOSTING_API, hostingApiRoots, isContentCreating, underRoots } from '../ratelimit/secondary-scope.js';
import { stringOption } from '../options.js';
import { applyCredential, buildUrl, credentialForms, prepareRequest, traceReceived } from './pipeline.js';
import { redactUrl } from './redact.js';
import { backoff, isRetryable, isStream, isTransient, sendWithPolicy, type RetryContext } from './retry.js';
import { type Download, NodeHttpTransport, type Transport } from './transport.js';
import type { Credential, HttpClientOptions, HttpResponse, RequestSpec, Timeouts } from './types.js';

export type { Credential, HttpClientOptions, HttpResponse, QueryValue, RequestSpec } from './types.js';
export { buildUrl } from './pipeline.js';
export { REDACTED } from './redact.js';

const NO_RELEASE = () => {};
export const DEFAULT_TIMEOUTS: Readonly<Timeouts> = { connectMs: 10_000, headersMs: 30_000, bodyMs: 60_000, totalMs: 5 * 60_000 };

export class HttpClient {
  readonly #o: HttpClientOptions;
  readonly #retry: RetryContext;
  readonly #gate: ConcurrencyGate;
  readonly #writes: PacingGate;
  readonly #pacing: PacingStore;
  readonly #transport: Transport;
  readonly #timeouts: Timeouts;
  /** Where the code host's secondary limits are enforced (the concurrency gate, pacing, a fleet's holds). */
  readonly #hostingRoots: readonly string[];

  constructor(options: HttpClientOptions) {
    // A program without types may leave them out: said now, not as a failed request later.
    stringOption(options?.userAgent, 'userAgent');
    if (typeof options.clock?.now !== 'function') throw new ValidationError('clock is required: a Clock (systemClock, or your own)');
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
      responseHooks: options.responseHooks,
      plainHttpHosts: options.plainHttpHosts,
      onSecondaryLimit: async (spec, url, waitMs) => {
        const store = this.#pacing;
        if (!holdsPacing(store)) return;
        const now = options.clock.now();
        await store.hold(await pacingScope(new URL(url), spec), now + waitMs, now);
      },
    };
    this.#gate = new ConcurrencyGate(options.maxConcurrent ?? 100);
    this.#hostingRoots = (options.hostingApis ?? [DEFAULT_HOSTING_API]).flatMap(hostingApiRoots);
    const [minute, hour] = CONTENT_CREATING_WINDOWS;
    const stated = options.contentCreatingWindows ?? [
      { limit: options.contentCreatingPerMinute ?? minute!.limit, windowMs: minute!.windowMs },
      { limit: options.contentCreatingPerHour ?? hour!.limit, windowMs: hour!.windowMs },
    ];
    // Each window is counted longer by the margin: the server counts arrivals, this client admissions.
    const margin = options.pacingMarginMs ?? DEFAULT_PACING_MARGIN_MS;
    const windows = stated.map((w) => ({ limit: w.limit, windowMs: w.windowMs + margin }));
    this.#pacing = options.pacing ?? new MemoryPacing();
    // Its waits are bounded as a server's are (--max-wait): past the bound, a RateLimitError at once.
    this.#writes = new PacingGate(this.#pacing, windows, options.clock, pacingBound(policy, stated, margin, options.clock));
    // Connections per origin: the gate's, plus headroom for OAuth requests, which bypass it and must not queue.
    this.#transport = new NodeHttpTransport((options.maxConcurrent ?? 100) + 8, {
      proxy: options.proxy,
      trust: options.trust,
      trace: options.trace,
      preconnected: options.preconnected,
    });
    this.#timeouts = { ...DEFAULT_TIMEOUTS, ...definedOnly(options.timeouts) };
  }

  /** Sends a request, applying the rate-limit policy and retries; throws on unexpected status. */
  request(spec: RequestSpec): Promise<HttpResponse> {
    const method = (spec.method ?? 'GET').toUpperCase();
    return sendWithAuth(spec, (a) => sendWithPolicy(this.#retry, method, a, (m, s) => this.#send(m, s, this.#timeouts)));
  }

  /**
   * Like request(), for a body the caller writes out as it comes (a
   * download): the body is never traced, and the deadline (`totalMs`) bounds
   * the wait for the response head, not the body: a successful answer's body
   * goes on as long as data flows, and ends when it is silent for the idle
   * timeout (or the deadline, when shorter) — or, when the client has one,
   * after `streamTotalMs`. An error's body keeps the deadline. Credentials,
   * redacted trace of the request, guards, rate-limit policy, retries before
   * the body and typed errors are those of request().
   */
  requestStream(spec: RequestSpec): Promise<HttpResponse> {
    const method = (spec.method ?? 'GET').toUpperCase();
    const download = { totalMs: this.#o.streamTotalMs ?? 0 };
    return sendWithAuth({ ...spec, streamResponse: true }, (a) => sendWithPolicy(this.#retry, method, a, (m, s) => this.#send(m, s, this.#timeouts, download)));
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

  /**
   * The primary budgets the fleet sharing this client's pacing store saw for
   * `credential` at `apiUrl`'s origin, with their age; undefined without a
   * shared store (or when it cannot be used).
   */
  async sharedBudgets(apiUrl: string, credential: Credential): Promise<SharedBudget[] | undefined> {
    const store = this.#pacing;
    if (!isSharedPacing(store)) return undefined;
    const url = new URL(apiUrl);
    return store.budgets(await pacingScope(url, { url: apiUrl, credential }), this.#o.clock.now());
  }

  async close(): Promise<void> {
    const store = this.#pacing;
    await Promise.all([this.#transport.close(), isSharedPacing(store) ? store.close() : undefined]);
  }

  /**
   * Waits for the code host's guards — the concurrency gate, the pacing of
   * content-creating requests and the holds of secondary limits — when the
   * request goes to its API (`hostingApis`); any other request passes at
   * once. Returns the release, the pacing scope (when the store needed it)
   * and, for a content-creating request, the time it was admitted at.
   */
  async #admit(method: string, spec: RequestSpec, url: URL): Promise<Admission> {
    if (spec.oauth || !underRoots(url, this.#hostingRoots)) return { release: NO_RELEASE };
    const release = await this.#gate.acquire(spec.signal);
    const store = this.#pacing;
    try {
      const onWait = (waitMs: number) => this.#o.onPacingWait?.({ waitMs, url: url.origin + url.pathname });
      const creating = isContentCreating(method, url, spec.json ?? (typeof spec.body === 'string' ? spec.body : undefined));
      // A read names its credential (a digest) only where a hold may be in force, or for a fleet's budgets.
      const holding = holdsPacing(store) && (store.mayHold?.(url.origin, this.#o.clock.now()) ?? true);
      const scope = creating || holding || isSharedPacing(store) ? await pacingScope(url, spec) : undefined;
      // A hold is waited for (or refused) as a hold; a write whose store cannot tell at once learns it with its slot.
      // With --wait, a budget another process saw spent is waited for before sending a read, as its refusal would be;
      // a read that never waits on a limit (rateLimitWait: false, a status check) is sent: the server answers for itself.
      const asksHold = creating ? holdsPacing(store) && !!store.mayHold : spec.rateLimitWait !== false;
      if (scope && holding && asksHold) await this.#writes.held(scope, !creating && this.#retry.policy.wait ? resourceOf(url) : undefined, spec.signal, onWait);
      if (creating) return { release, scope, admittedAt: await this.#writes.acquire(url.origin, spec.signal, onWait, scope?.identity) };
      return { release, scope };
    } catch (err) {
      release();
      throw err;
    }
  }

  /**
   * One exchange. A provider's credential made for each exchange (a DPoP
   * proof) is made here, for this method and final URL, whatever credential
   * the request was handed; the provider sees the answer, and when it asks
   * (a server that wants its new nonce in the proof) the exchange goes once
   * more with a new one — not with a streamed body, which cannot be sent twice.
   */
  async #send(method: string, spec: RequestSpec, timeouts: Timeouts, download?: Download): Promise<HttpResponse> {
    const auth = spec.auth;
    if (!auth?.perRequest) return this.#exchange(method, spec, timeouts, download);
    for (let again = !isStream(spec.body); ; again = false) {
      const credential = await auth.credential({ method, url: buildUrl(spec).toString() });
      const res = await this.#exchange(method, { ...spec, credential }, timeouts, download);
      if (!auth.answered?.(res) || !again) return res;
      await res.dump();
    }
  }

  /** One exchange as it is: prepare (and trace), pass the guards, send, report rate-limit state, trace the answer. */
  async #exchange(method: string, spec: RequestSpec, timeouts: Timeouts, download?: Download): Promise<HttpResponse> {
    if (spec.credential) this.#o.onCredential?.(credentialForms(spec.credential));
    const req = prepareRequest(method, spec, this.#o.userAgent, this.#o.trace, this.#o.plainHttpHosts);
    const { release, scope, admittedAt } = await this.#admit(method, spec, req.url);
    try {
      const res = await this.#transport.send(req, spec, { ...timeouts, ...definedOnly(spec.timeouts) }, download).finally(
        // The server counted the request when it arrived, by the time its answer (or the failure) is here: counted from then.
        () => (admittedAt === undefined ? undefined : this.#writes.answered(req.url.origin, admittedAt, this.#o.clock.now(), scope?.identity)),
      );
      if (res.rateLimit) {
        this.#o.onRateLimit?.(res.rateLimit, res.url);
        const store = this.#pacing;
        // Shared with the fleet after the answer; the request does not wait for it.
        if (scope && isSharedPacing(store)) {
          const now = this.#o.clock.now();
          const serverNow = parseServerDate(res.headers.date);
          void store.recordBudget(scope, res.rateLimit, now, serverNow === undefined ? 0 : serverNow - now);
        }
      }
      return this.#o.trace ? await traceReceived(res, !!spec.streamResponse, this.#o.trace) : res;
    } finally {
      release();
    }
  }
}

/** What the guards let through: the release of the concurrency gate, the pacing scope, a content-creating request's admission time. */
interface Admission {
  release: () => void;
  scope?: PacingScope;
  admittedAt?: number;
}

/**
 * Who a request is paced with, in every store: its origin and the one-way
 * digest of the credential it carries (the service's, or an `Authorization`
 * header of the caller's).
 */
async function pacingScope(url: URL, spec: RequestSpec): Promise<PacingScope> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(spec.headers ?? {})) headers[k.toLowerCase()] = v;
  const c = spec.credential;
  applyCredential(c, headers, new URL(url));
  const material = headers.authorization ?? (c?.scheme === 'query' ? `${c.name}=${c.value}` : c?.scheme === 'header' ? `${c.name}: ${c.value}` : undefined);
  return { origin: url.origin, identity: await credentialIdentity(url.origin, material) };
}

/** The primary-limit resource a request counts against, as far as its path tells. */
function resourceOf(url: URL): string {
  if (/\/graphql$/.test(url.pathname)) return 'graphql';
  if (/\/search\//.test(url.pathname)) return 'search';
  return 'core';
}

/** The fields of a partial that are set (`{ bodyMs: undefined }` does not override a default). */
function definedOnly<T extends object>(o: Partial<T> | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(o ?? {}).filter(([, v]) => v !== undefined)) as Partial<T>;
}
