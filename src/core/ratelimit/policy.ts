/**
 * The rate-limit policy of the hosting spec ("Rate limit responses"), as one
 * pure decision function. Parsing is in headers.ts; waiting is the caller's.
 */
import { parseRateLimitHeaders, parseRetryAfter, parseServerDate, type RateLimitState } from './headers.js';

export interface RateLimitPolicy {
  /** Wait and retry (`--wait`), or fail at once with exit 3. */
  wait: boolean;
  /** Never wait longer than this in one go; beyond it, fail. */
  maxWaitMs: number;
  /** Give up on a secondary limit after this many retries. */
  maxSecondaryRetries: number;
  /**
   * Give up on a primary limit after this many waits for its reset: a
   * server whose reset is in the past, or that still refuses after it, is
   * not asked again and again.
   */
  maxPrimaryRetries: number;
  /** Minimum wait for a secondary limit without retry-after and with budget left. */
  secondaryBaseWaitMs: number;
}

export const defaultRateLimitPolicy: RateLimitPolicy = {
  wait: false,
  maxWaitMs: 60 * 60 * 1000,
  maxSecondaryRetries: 4,
  maxPrimaryRetries: 2,
  secondaryBaseWaitMs: 60_000,
};

export type RateLimitKind = 'primary' | 'secondary';

export interface RateLimitClassification {
  kind: RateLimitKind;
  state?: RateLimitState;
  retryAfterMs?: number;
  /** Server time minus local time, ms (positive: server ahead). */
  skewMs: number;
  message?: string;
}

const SECONDARY_RE = /secondary rate limit|abuse detection|too many (concurrent )?requests/i;

/**
 * Whether a response is a rate-limit refusal. Primary: 403/429 with remaining 0.
 * Secondary: 403/429 whose message says so. Anything else: undefined.
 */
export function classifyRateLimit(
  status: number,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  bodyMessage: string | undefined,
  localNowMs: number,
): RateLimitClassification | undefined {
  if (status !== 403 && status !== 429) return undefined;
  const state = parseRateLimitHeaders(headers);
  const dateHeader = headers.date;
  const serverNow = parseServerDate(Array.isArray(dateHeader) ? dateHeader[0] : dateHeader);
  const skewMs = serverNow === undefined ? 0 : serverNow - localNowMs;
  const ra = headers['retry-after'];
  const retryAfterMs = parseRetryAfter(Array.isArray(ra) ? ra[0] : ra, serverNow ?? localNowMs);
  const secondary = bodyMessage !== undefined && SECONDARY_RE.test(bodyMessage);
  if (secondary) return { kind: 'secondary', state, retryAfterMs, skewMs, message: bodyMessage };
  if (state?.remaining === 0) return { kind: 'primary', state, retryAfterMs, skewMs, message: bodyMessage };
  if (status === 429 && retryAfterMs !== undefined) return { kind: 'secondary', state, retryAfterMs, skewMs, message: bodyMessage };
  return undefined;
}

export type RateLimitDecision = { action: 'wait'; waitMs: number; resetAt: number } | { action: 'fail'; resetAt?: number; reason: string };

/**
 * What to do about a classified refusal on retry number `attempt` (0 = first
 * refusal). `localNowMs` is the local wall clock; the reset epoch is the
 * server's, so it is converted with the measured skew.
 */
export function decideRateLimit(c: RateLimitClassification, attempt: number, localNowMs: number, policy: RateLimitPolicy): RateLimitDecision {
  const resetLocal = c.state?.reset !== undefined ? c.state.reset * 1000 - c.skewMs : undefined;
  let waitMs: number;
  if (c.kind === 'primary') {
    if (resetLocal === undefined) return { action: 'fail', reason: 'primary rate limit exceeded and no valid reset time given' };
    if (attempt >= policy.maxPrimaryRetries) {
      const past = resetLocal <= localNowMs ? ' (its reset time is already past)' : '';
      return { action: 'fail', resetAt: resetLocal, reason: `primary rate limit: the server still refuses after ${attempt} waits for the reset${past}` };
    }
    // Never retry before the reset: add a second for the header's 1 s resolution.
    waitMs = Math.max(0, resetLocal - localNowMs) + 1000;
  } else {
    if (attempt >= policy.maxSecondaryRetries) {
      return { action: 'fail', resetAt: resetLocal, reason: `secondary rate limit: gave up after ${attempt} retries` };
    }
    waitMs = secondaryWaitMs(c, attempt, localNowMs, policy);
  }
  const resetAt = localNowMs + waitMs;
  if (!policy.wait) return { action: 'fail', resetAt, reason: `${c.kind} rate limit exceeded` };
  if (waitMs > policy.maxWaitMs)
    return {
      action: 'fail',
      resetAt,
      reason: `${c.kind} rate limit: the wait (${Math.ceil(waitMs / 1000)} s) exceeds the maximum wait (${Math.ceil(policy.maxWaitMs / 1000)} s)`,
    };
  return { action: 'wait', waitMs, resetAt };
}

/**
 * The wait after a secondary limit, refusal number `attempt` (0 = first):
 * `retry-after`; else until the reset when no budget is left; else the base
 * wait, doubling. A fleet sharing pacing holds every request for the first one.
 */
export function secondaryWaitMs(c: RateLimitClassification, attempt: number, localNowMs: number, policy: RateLimitPolicy): number {
  const resetLocal = c.state?.reset !== undefined ? c.state.reset * 1000 - c.skewMs : undefined;
  if (c.retryAfterMs !== undefined) return c.retryAfterMs;
  if (c.state?.remaining === 0 && resetLocal !== undefined) return Math.max(0, resetLocal - localNowMs) + 1000;
  return policy.secondaryBaseWaitMs * 2 ** attempt;
}
