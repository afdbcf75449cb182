/**
 * The rate-limit policy, as one pure decision function: the hosting spec's
 * ("Rate limit responses": primary and secondary limits) and, for every
 * service, a server's `Retry-After` on a 429 or 503. Parsing is in
 * headers.ts; waiting is the caller's.
 */
import { parseRateLimitHeaders, parseRetryAfter, parseServerDate, type RateLimitState } from './headers.js';

export interface RateLimitPolicy {
  /**
   * Wait out primary limits too, and waits up to `maxWaitMs` (`--wait`).
   * Without it a primary limit fails at once (exit 3), and a wait the server
   * asks for (its `Retry-After`, a secondary limit) is waited out only up to
   * `serverWaitMs`.
   */
  wait: boolean;
  /** With `wait`: never wait longer than this in one go; beyond it, fail. */
  maxWaitMs: number;
  /**
   * Without `wait`: the longest single wait the server may ask for (a 429 or
   * 503 with `Retry-After`, the code host's secondary limit) that is waited
   * out before sending again; a longer one fails at once. 0: never wait.
   * Default (unset): one minute.
   */
  serverWaitMs?: number;
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

/** The longest wait a server may ask for that is waited out without `wait`: one minute. */
export const DEFAULT_SERVER_WAIT_MS = 60_000;

/** The bound of one wait under `policy`: `maxWaitMs` with `wait`, else `serverWaitMs`. */
export function waitBoundMs(policy: RateLimitPolicy): number {
  return policy.wait ? policy.maxWaitMs : (policy.serverWaitMs ?? DEFAULT_SERVER_WAIT_MS);
}

export const defaultRateLimitPolicy: RateLimitPolicy = {
  wait: false,
  maxWaitMs: 60 * 60 * 1000,
  serverWaitMs: DEFAULT_SERVER_WAIT_MS,
  maxSecondaryRetries: 4,
  maxPrimaryRetries: 2,
  secondaryBaseWaitMs: 60_000,
};

/**
 * `primary`, `secondary`: the code host's limits (hosting spec). `server`: any
 * service's 429 or 503 with `Retry-After` that is neither of them.
 */
export type RateLimitKind = 'primary' | 'secondary' | 'server';

export interface RateLimitClassification {
  kind: RateLimitKind;
  state?: RateLimitState;
  retryAfterMs?: number;
  /** Server time minus local time, ms (positive: server ahead). */
  skewMs: number;
  message?: string;
  /** The HTTP status of the refusal. */
  status: number;
}

const SECONDARY_RE = /secondary rate limit|abuse detection|too many (concurrent )?requests/i;

/**
 * Whether a response is a rate-limit refusal. Primary: 403/429 with remaining 0.
 * Secondary: 403/429 whose message says so, or a 429 with `Retry-After` and
 * budget headers. Server: any other 429 or 503 with a valid `Retry-After`.
 * Anything else: undefined.
 */
export function classifyRateLimit(
  status: number,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  bodyMessage: string | undefined,
  localNowMs: number,
): RateLimitClassification | undefined {
  if (status !== 403 && status !== 429 && status !== 503) return undefined;
  const state = parseRateLimitHeaders(headers);
  const dateHeader = headers.date;
  const serverNow = parseServerDate(Array.isArray(dateHeader) ? dateHeader[0] : dateHeader);
  const skewMs = serverNow === undefined ? 0 : serverNow - localNowMs;
  const ra = headers['retry-after'];
  const retryAfterMs = parseRetryAfter(Array.isArray(ra) ? ra[0] : ra, serverNow ?? localNowMs);
  const found = { state, retryAfterMs, skewMs, message: bodyMessage, status };
  if (status === 503) return retryAfterMs === undefined ? undefined : { kind: 'server', ...found };
  const secondary = bodyMessage !== undefined && SECONDARY_RE.test(bodyMessage);
  if (secondary) return { kind: 'secondary', ...found };
  if (state?.remaining === 0) return { kind: 'primary', ...found };
  // A 429 with Retry-After: the code host's secondary limit when it comes with its budget headers.
  if (status === 429 && retryAfterMs !== undefined) return { kind: state ? 'secondary' : 'server', ...found };
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
      return { action: 'fail', resetAt: resetLocal, reason: `${describeKind(c)}: gave up after ${attempt} retries` };
    }
    waitMs = secondaryWaitMs(c, attempt, localNowMs, policy);
  }
  const resetAt = localNowMs + waitMs;
  if (!policy.wait && c.kind === 'primary') return { action: 'fail', resetAt, reason: 'primary rate limit exceeded' };
  const bound = waitBoundMs(policy);
  if (waitMs > bound) {
    const most = policy.wait ? 'the maximum wait' : 'the longest wait without --wait';
    return { action: 'fail', resetAt, reason: `${describeKind(c)}: the wait (${seconds(waitMs)}) exceeds ${most} (${seconds(bound)})` };
  }
  return { action: 'wait', waitMs, resetAt };
}

/**
 * A wait Lanyard itself imposes (the pacing of the code host's content-creating
 * requests, a fleet's hold) under the same bound as a server's: undefined
 * when `waitMs` is within it (`slackMs`: Lanyard's own margin on top of a
 * window, so a full minute's wait stays within a minute's bound), else the
 * bound and, when waiting for primary limits too would allow it (without
 * `wait`), the longest wait that would.
 */
export function beyondWaitBound(waitMs: number, policy: RateLimitPolicy, slackMs = 0): { boundMs: number; waitingAllowsMs?: number } | undefined {
  const boundMs = waitBoundMs(policy);
  if (waitMs <= boundMs + slackMs) return undefined;
  return !policy.wait && waitMs <= policy.maxWaitMs + slackMs ? { boundMs, waitingAllowsMs: policy.maxWaitMs } : { boundMs };
}

/** `45 s`, `50 min`, `1 h 5 min`: a wait in words, rounded up. */
export function waitWords(ms: number): string {
  const s = Math.ceil(ms / 1000);
  if (s < 120) return `${s} s`;
  const min = Math.ceil(s / 60);
  return min < 60 ? `${min} min` : `${Math.floor(min / 60)} h${min % 60 ? ` ${min % 60} min` : ''}`;
}

/** `secondary rate limit`, `HTTP 429 with Retry-After`: what refused, in a few words. */
export function describeKind(c: Pick<RateLimitClassification, 'kind' | 'status'>): string {
  return c.kind === 'server' ? `HTTP ${c.status} with Retry-After` : `${c.kind} rate limit`;
}

const seconds = (ms: number) => `${Math.ceil(ms / 1000)} s`;

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
