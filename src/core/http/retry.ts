/**
 * Retry and rate-limit policy around one request: bounded, jittered retries
 * of idempotent requests after a connection failure or a 502/503/504, and the
 * rate-limit decision (wait and re-send with `--wait`, else a RateLimitError).
 */
import type { Clock, TraceSink } from '../deps.js';
import { HttpError, NetworkError, RateLimitError } from '../errors.js';
import { classifyRateLimit, decideRateLimit, type RateLimitPolicy } from '../ratelimit/policy.js';
import { errorMessage, rateLimitMessage, readErrorBody } from './errors.js';
import { redactUrl } from './redact.js';
import type { HttpClientOptions, HttpResponse, RequestSpec } from './types.js';

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
const RETRY_STATUS = new Set([502, 503, 504]);
const RETRY_CODES = new Set([
  'ECONNRESET',
  'UND_ERR_SOCKET',
  'EPIPE',
  'UND_ERR_CLOSED',
  'ECONNREFUSED',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'LANYARD_BODY_CUT',
]);

export interface RetryContext {
  clock: Clock;
  policy: RateLimitPolicy;
  maxNetworkRetries: number;
  random: () => number;
  trace?: TraceSink;
  onRateLimitWait?: HttpClientOptions['onRateLimitWait'];
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
export async function backoff(c: RetryContext, attempt: number, signal?: AbortSignal): Promise<void> {
  const base = 250 * 2 ** attempt;
  await c.clock.sleep(base / 2 + c.random() * base, signal);
}

/** Sends with `send` until the answer is one to return; throws HttpError or RateLimitError otherwise. */
export async function sendWithPolicy(
  c: RetryContext,
  method: string,
  spec: RequestSpec,
  send: (method: string) => Promise<HttpResponse>,
): Promise<HttpResponse> {
  const retryable = isRetryable(method, spec);
  let rateAttempt = 0;
  let netAttempt = 0;
  for (;;) {
    let res: HttpResponse;
    try {
      res = await send(method);
    } catch (err) {
      if (retryable && netAttempt < c.maxNetworkRetries && isTransient(err)) {
        await backoff(c, netAttempt++, spec.signal);
        continue;
      }
      throw err;
    }
    if (retryable && RETRY_STATUS.has(res.status) && netAttempt < c.maxNetworkRetries) {
      await res.dump();
      await backoff(c, netAttempt++, spec.signal);
      continue;
    }
    const ok = spec.okStatus ? spec.okStatus(res.status) : res.status >= 200 && res.status < 400;
    if (ok) return res;
    const body = await readErrorBody(res);
    if (!spec.oauth) {
      const message = errorMessage(body);
      const now = c.clock.now();
      const cls = classifyRateLimit(res.status, res.headers, message, now);
      if (cls) {
        const decision = decideRateLimit(cls, rateAttempt, now, c.policy);
        // A streamed body is spent: such a request cannot be sent again.
        if (decision.action === 'wait' && !isStream(spec.body)) {
          c.onRateLimitWait?.({ kind: cls.kind, waitMs: decision.waitMs, resetAt: decision.resetAt, url: res.url });
          c.trace?.(`* rate limited (${cls.kind}); waiting ${Math.ceil(decision.waitMs / 1000)} s`);
          await c.clock.sleep(decision.waitMs, spec.signal);
          rateAttempt++;
          continue;
        }
        const err = new RateLimitError(rateLimitMessage(cls.kind, message, decision.resetAt), cls.kind, decision.resetAt, cls.state);
        // Waiting was allowed but not possible (too long, too many retries): say why.
        if (c.policy.wait)
          err.hint = decision.action === 'wait' ? 'the request body was streamed and cannot be sent again; retry the command' : decision.reason;
        throw err;
      }
    }
    throw new HttpError(res.status, method, redactUrl(res.url), body, res.headers);
  }
}
