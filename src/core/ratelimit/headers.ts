/** Parsing of rate-limit timing headers; separate from the decision (policy.ts). */
import { RateLimitHeader } from '../../shared/constants.js';

export interface RateLimitState {
  limit?: number;
  remaining?: number;
  used?: number;
  /** Window reset, UTC epoch seconds. */
  reset?: number;
  resource?: string;
}

/** Response headers, lower-cased names. */
export type HeaderBag = Readonly<Record<string, string | string[] | undefined>>;

function header(h: HeaderBag, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

function int(v: string | undefined): number | undefined {
  if (v === undefined || !/^\s*-?\d+\s*$/.test(v)) return undefined;
  return Number.parseInt(v, 10);
}

/** The latest instant a Date holds (year 275760), in seconds. */
const MAX_EPOCH_SECONDS = 8.64e12;

/** An epoch in seconds a Date can hold; anything else (an absurd header) as absent. */
function epochSeconds(v: number | undefined): number | undefined {
  return v !== undefined && v >= 0 && v <= MAX_EPOCH_SECONDS ? v : undefined;
}

/** The `x-ratelimit-*` state of a response, or undefined when it has none. */
export function parseRateLimitHeaders(h: HeaderBag): RateLimitState | undefined {
  const state: RateLimitState = {
    limit: int(header(h, RateLimitHeader.limit)),
    remaining: int(header(h, RateLimitHeader.remaining)),
    used: int(header(h, RateLimitHeader.used)),
    reset: epochSeconds(int(header(h, RateLimitHeader.reset))),
    resource: header(h, RateLimitHeader.resource)?.trim() || undefined,
  };
  if (state.limit === undefined && state.remaining === undefined && state.reset === undefined) return undefined;
  return state;
}

/**
 * `Retry-After` as milliseconds from `nowMs`: delta-seconds or an HTTP date.
 * Undefined when absent or unparseable; never negative.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number.parseInt(v, 10) * 1000;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/** The server's idea of "now" from its `Date` header, for clock-skew correction. */
export function parseServerDate(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : t;
}
