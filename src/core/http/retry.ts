/**
 * Retry and rate-limit policy around one request: bounded, jittered retries
 * of idempotent requests after a connection failure or a 502/503/504, and the
 * rate-limit decision (wait and re-send with `--wait`, else a RateLimitError).
 */
import type { Clock, TraceSink } from '../deps.js';
import { HttpError, NetworkError, oneLine, RateLimitError } from '../errors.js';
import { classifyRateLimit, decideRateLimit, describeKind, type RateLimitPolicy, secondaryWaitMs, waitBoundMs } from '../ratelimit/policy.js';
import { parseRetryAfter } from '../ratelimit/headers.js';
import { errorMessage, rateLimitMessage } from './errors.js';
import { redactUrl } from './redact.js';
import { redirectHop } from './redirect.js';
import { readErrorBody } from './stream.js';
import type { HttpClientOptions, HttpResponse, RequestSpec, ResponseHook } from './types.js';

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
const RETRY_STATUS = new Set([502, 503, 504]);
const RETRY_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'LANYARD_BODY_CUT']);
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);
export { MAX_REDIRECTS } from './redirect.js';

export interface RetryContext {
  clock: Clock;
  policy: RateLimitPolicy;
  maxNetworkRetries: number;
  random: () => number;
  trace?: TraceSink;
  onRateLimitWait?: HttpClientOptions['onRateLimitWait'];
  onRetry?: HttpClientOptions['onRetry'];
  /** Services' hooks on the final answers (HttpClientOptions.responseHooks). */
  responseHooks?: readonly ResponseHook[];
  /** A secondary limit refused `spec` at `url`: the wait it asks for (a shared store holds every process for it). */
  onSecondaryLimit?: (spec: RequestSpec, url: string, waitMs: number) => Promise<void>;
  /** Hosts allowed a credential over plain http (HttpClientOptions.plainHttpHosts): a redirect from https may go to them in clear. */
  plainHttpHosts?: readonly string[];
}

export function isStream(b: unknown): boolean {
  return !!b && typeof b === 'object' && Symbol.asyncIterator in b && !(b instanceof Uint8Array);
}

/** Whether a failed request may be sent again: idempotent methods whose body can be re-read, unless the spec says. */
export function isRetryable(method: string, spec: RequestSpec): boolean {
  return spec.retry ?? (IDEMPOTENT.has(method) && !isStream(spec.body));
}

/** A connection refused, reset or cut short: worth another try. */
export function isTransient(err: unknown): boolean {
  if (err instanceof NetworkError) {
    const c = err.cause as { code?: string } | undefined;
    return !!c?.code && RETRY_CODES.has(c.code);
  }
  return false;
}

/** Sleeps before retry number `attempt` (0-based): base 250 ms doubling, jittered in [base/2, 3·base/2). */
export async function backoff(c: RetryContext, attempt: number, signal?: AbortSignal, why?: { reason: string; url: string }): Promise<void> {
  const base = 250 * 2 ** attempt;
  const waitMs = base / 2 + c.random() * base;
  if (why) c.onRetry?.({ ...why, attempt: attempt + 1, waitMs });
  await c.clock.sleep(waitMs, signal);
}

/**
 * Sends with `send` until the answer is one to return: retries, rate-limit
 * waits and redirects; throws HttpError or RateLimitError otherwise.
 */
export async function sendWithPolicy(
  c: RetryContext,
  firstMethod: string,
  first: RequestSpec,
  send: (method: string, spec: RequestSpec) => Promise<HttpResponse>,
): Promise<HttpResponse> {
  let method = firstMethod;
  let spec = first;
  const retryable = isRetryable(method, spec);
  let rateAttempt = 0;
  let netAttempt = 0;
  let hops = 0;
  const route: Route = {};
  for (;;) {
    let res: HttpResponse;
    try {
      res = await send(method, spec);
    } catch (err) {
      if (retryable && netAttempt < c.maxNetworkRetries && isTransient(err)) {
        await backoff(c, netAttempt++, spec.signal, { reason: (err as { code?: string }).code ?? 'network error', url: spec.url });
        continue;
      }
      throw err;
    }
    // A 503 with Retry-After says when to come back: the rate-limit wait below honours it, for any method.
    if (retryable && RETRY_STATUS.has(res.status) && netAttempt < c.maxNetworkRetries && !(res.status === 503 && res.headers['retry-after'])) {
      await res.dump();
      await backoff(c, netAttempt++, spec.signal, { reason: `HTTP ${res.status}`, url: res.url });
      continue;
    }
    if (REDIRECT_STATUS.has(res.status) && spec.redirect !== 'manual') {
      // A redirect's body is not read: the connection is closed instead.
      res.body.destroy();
      const hop = redirectHop(res, method, spec, hops++, c.plainHttpHosts);
      if (hop instanceof HttpError) throw hop;
      route.requested ??= redactUrl(res.url);
      if (hop.crossOrigin) route.dropped = route.dropped || hop.crossOrigin.dropped;
      if (hop.crossOrigin) route.crossed = true;
      c.trace?.(`* following the redirect (HTTP ${res.status}) to ${redactUrl(hop.spec.url)}`);
      for (const note of hop.notes) c.trace?.(note);
      ({ method, spec } = hop);
      continue;
    }
    const ok = accepted(spec, res.status, route);
    // A server asking to come back later is waited out even where the caller takes every status (a protocol message).
    if (ok && asksToWait(res, c.clock.now()) && !spec.oauth && (await waitOutRateLimit(c, spec, res, await readErrorBody(res), rateAttempt))) {
      rateAttempt++;
      continue;
    }
    if (ok) {
      for (const h of c.responseHooks ?? []) h.ok?.({ status: res.status, headers: res.headers, url: redactUrl(res.url) });
      return res;
    }
    const body = await readErrorBody(res);
    if (!spec.oauth && (await waitOutRateLimit(c, spec, res, body, rateAttempt))) {
      rateAttempt++;
      continue;
    }
    // A service's own error for the refusal (the code host's single sign-on), else the generic one.
    throw serviceError(c, res) ?? answerError(firstMethod, method, res, body, route);
  }
}

/** Where the redirects followed led: the URL first answered with one, whether a hop went to another origin, and whether it left a credential behind. */
interface Route {
  requested?: string;
  crossed?: boolean;
  dropped?: boolean;
}

/**
 * Whether an answer is returned: the caller's `okStatus` (default 2xx), but
 * never a 401 or 403 of an origin the request reached without the credential
 * it carried: a caller takes those to judge its credential, and they say
 * nothing of it (thrown, HttpError.otherOrigin set).
 */
function accepted(spec: RequestSpec, status: number, route: Route): boolean {
  if (route.dropped && (status === 401 || status === 403)) return false;
  return spec.okStatus ? spec.okStatus(status) : status >= 200 && status < 300;
}

/** The error of an answer not accepted; after a redirect to another origin, one line naming that origin as the one that answered. */
function answerError(firstMethod: string, method: string, res: HttpResponse, body: unknown, route: Route): HttpError {
  const url = redactUrl(res.url);
  if (!route.crossed) return new HttpError(res.status, method, url, body, res.headers);
  const origin = new URL(res.url).origin;
  const said = errorMessage(body);
  const detail = said?.trim() ? `: ${oneLine(said).slice(0, 200)}` : '';
  const why = route.dropped && res.status >= 400 && res.status < 500 ? ' (no credential is sent to another origin)' : '';
  const message = `${firstMethod} ${route.requested}: redirected to ${origin}, which answered HTTP ${res.status}${detail}${why}`;
  return new HttpError(res.status, method, url, body, res.headers, message, origin);
}

/** A 429 or 503 with a valid `Retry-After`: always a rate limit (policy.ts), whatever its body says. */
function asksToWait(res: HttpResponse, now: number): boolean {
  return (res.status === 429 || res.status === 503) && parseRetryAfter(res.headers['retry-after'], now) !== undefined;
}

function serviceError(c: RetryContext, res: HttpResponse): Error | undefined {
  for (const h of c.responseHooks ?? []) {
    const err = h.refused?.({ status: res.status, headers: res.headers, url: redactUrl(res.url) });
    if (err) return err;
  }
  return undefined;
}

/**
 * An error answer that is a rate limit: waits it out when the policy allows
 * (true: send again), else throws the RateLimitError (saying why it did not
 * wait). False when the answer is not a rate limit.
 */
async function waitOutRateLimit(c: RetryContext, spec: RequestSpec, res: HttpResponse, body: unknown, attempt: number): Promise<boolean> {
  const message = errorMessage(body);
  const now = c.clock.now();
  const cls = classifyRateLimit(res.status, res.headers, message, now);
  if (!cls) return false;
  if (cls.kind === 'secondary') await c.onSecondaryLimit?.(spec, res.url, secondaryWaitMs(cls, 0, now, c.policy));
  const decision = decideRateLimit(cls, attempt, now, c.policy);
  // A streamed body is spent: such a request cannot be sent again; a caller may ask never to wait.
  const waits = decision.action === 'wait' && spec.rateLimitWait !== false;
  if (waits && !isStream(spec.body)) {
    const boundMs = waitBoundMs(c.policy);
    c.onRateLimitWait?.({ kind: cls.kind, status: cls.status, waitMs: decision.waitMs, resetAt: decision.resetAt, url: res.url, boundMs });
    c.trace?.(`* rate limited (${describeKind(cls)}); waiting ${Math.ceil(decision.waitMs / 1000)} s`);
    await c.clock.sleep(decision.waitMs, spec.signal);
    return true;
  }
  const err = new RateLimitError(rateLimitMessage(cls.kind, message, decision.resetAt, cls.status), cls.kind, decision.resetAt, cls.state);
  // Waiting was allowed but not possible (too long, too many retries): say why.
  if (c.policy.wait && decision.action !== 'wait') err.hint = decision.reason;
  else if (c.policy.wait && waits) err.hint = 'the request body was streamed and cannot be sent again; retry the command';
  throw err;
}
