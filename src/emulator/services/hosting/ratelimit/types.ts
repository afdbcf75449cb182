/** The emulator's hosting rate limiter as its admin verbs see it. */
import type { EmulatorEnv } from '../../../service.js';
import type { HostingState } from '../state.js';
import type { Bucket, BucketStore } from './buckets.js';
import type { Caller, Resource } from './callers.js';
import type { SecondaryLimiter } from './secondary.js';

export interface RateLimiter {
  readonly state: HostingState;
  readonly env: EmulatorEnv;
  readonly buckets: BucketStore;
  readonly secondary: SecondaryLimiter;
  bucket(c: Caller, resource: Resource): Bucket;
}

/**
 * `req.locals` key of a function that charges a request more points of the
 * primary budget it counted against (a query API call whose connections
 * cost more than one point): true when the budget had that many left.
 */
export const CHARGE = 'rateLimitCharge';
