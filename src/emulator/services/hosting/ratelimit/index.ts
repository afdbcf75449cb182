/**
 * Hosting rate limits: per-caller primary buckets (every row of the spec's
 * Primary REST limits table), `x-ratelimit-*` on every API response,
 * `GET /api/v3/rate_limit`, secondary limits, and the admin verbs under
 * `/_emulator/hosting/`. Wired into the hosting service by
 * `registerRateLimits` (register) and `resetRateLimits` (reset).
 */
import { randomBytes } from 'node:crypto';
import { RateLimitHeader } from '../../../../shared/constants.js';
import type { AdminVerb, EmulatorEnv } from '../../../service.js';
import type { EmuRequest, EmuResponse, Router } from '../../../router.js';
import type { HostingState } from '../state.js';
import { BucketStore, type Bucket } from './buckets.js';
import { bucketKey, identifyCaller, primaryMessage, resourceLimit, RESOURCES, type Caller, type Resource } from './callers.js';
import { classifyRequest, cpuCostOf, isContentCreating, MAX_QUERY_BODY, pointsOf, queryOperationOf, type RequestClass } from './classify.js';
import { scopeHeaders } from '../scopes.js';
import { SECONDARY_MESSAGE, SecondaryLimiter, type SecondaryRefusal } from './secondary.js';
import { seedRateLimitCallers } from './seed.js';
import { adminVerbs } from './admin.js';
import { REFUND } from '../conditional.js';
import { CHARGE, type RateLimiter } from './types.js';

export type { RateLimiter } from './types.js';
import { reposOf } from './fixtures.js';
import { apiError, REST_DOCS } from '../errors.js';

export const DOCS_URL = `${REST_DOCS}/overview/rate-limits-for-the-rest-api`;

const limiters = new WeakMap<HostingState, RateLimiter>();

/** Seeds the rate-limit callers, adds the middleware and `/rate_limit`; returns the admin verbs. */
export function registerRateLimits(router: Router, state: HostingState, env: EmulatorEnv): Record<string, AdminVerb> {
  const buckets = new BucketStore(() => env.clock.nowSec());
  const rl: RateLimiter = {
    state,
    env,
    buckets,
    secondary: new SecondaryLimiter(() => env.clock.now()),
    bucket(c, resource) {
      const { limit, windowSec } = resourceLimit(c, resource);
      return buckets.get(bucketKey(c, resource), resource, limit, windowSec);
    },
  };
  limiters.set(state, rl);
  seedRateLimitCallers(state, env.clock.now());
  router.use('', (req, res, next) => limit(rl, req, res, next));
  router.get('/api/v3/rate_limit', (req, res) => rateLimitOverview(rl, req, res));
  return adminVerbs(rl);
}

/** Back to the seeded state: buckets, secondary counters and seeded callers. */
export function resetRateLimits(state: HostingState): void {
  const rl = limiters.get(state);
  if (!rl) return;
  rl.buckets.clear();
  rl.secondary.reset();
  reposOf(state, () => rl.env.clock.now()).reset();
  seedRateLimitCallers(state, rl.env.clock.now());
}

function headersOf(b: Bucket): Record<string, string> {
  return {
    [RateLimitHeader.limit]: String(b.limit),
    [RateLimitHeader.remaining]: String(BucketStore.remaining(b)),
    [RateLimitHeader.used]: String(b.used),
    [RateLimitHeader.reset]: String(b.resetAt),
    [RateLimitHeader.resource]: b.resource,
  };
}

function limit(rl: RateLimiter, req: EmuRequest, res: EmuResponse, next: () => Promise<void>): void | Promise<void> {
  const cls = classifyRequest(req.method, req.path);
  if (!cls) return next();
  const caller = identifyCaller(rl.state, req.header('authorization'), req.ip);
  req.locals.rateLimitCaller = caller;
  if (caller.kind === 'anonymous' && caller.badCredentials) return badCredentials(rl, req, res, caller);
  Object.assign(res.extraHeaders, scopeHeaders(rl.state, req));
  const release = rl.secondary.enter(caller.key);
  res.raw.once('close', release);
  // The query API's cost depends on its body (a mutation costs more): read it first.
  // At most 1 MiB of it (the query API answers 413 past that); an anonymous caller's is not looked at (the route's 401).
  if (cls.graphql && req.method === 'POST')
    return req.text(MAX_QUERY_BODY).then(
      (b) => count(rl, req, res, next, cls, caller, caller.kind === 'anonymous' ? '' : b),
      () => count(rl, req, res, next, cls, caller, ''),
    );
  return count(rl, req, res, next, cls, caller, undefined);
}

/** Counts a request against the secondary limits and its primary bucket; the refusal, or on to the route. */
function count(
  rl: RateLimiter,
  req: EmuRequest,
  res: EmuResponse,
  next: () => Promise<void>,
  cls: RequestClass,
  caller: Caller,
  gqlBody: string | undefined,
): void | Promise<void> {
  const resource: Resource = cls.resource === 'rate_limit' ? 'core' : cls.resource;
  const bucket = rl.bucket(caller, resource);
  const operation = gqlBody === undefined ? undefined : queryOperationOf(gqlBody);
  const refusal = rl.secondary.check({
    caller: caller.key,
    endpoint: cls.endpoint,
    points: pointsOf(req.method, operation),
    cpuMs: cpuCostOf(req.method, req.path, cls, operation, rl.secondary.cpuCosts),
    graphql: cls.graphql,
    contentCreating: isContentCreating(req.method, cls, operation),
  });
  if (refusal) return secondaryRefusal(rl, res, refusal, bucket);
  if (cls.resource !== 'rate_limit' && bucket.limit > 0) {
    if (BucketStore.remaining(bucket) <= 0) {
      const status = resource === 'lfs' ? 429 : 403;
      return res.json(status, apiError(status, primaryMessage(caller), undefined, DOCS_URL), headersOf(bucket));
    }
    bucket.used++;
    // The query API charges a costlier query the rest of its points (see ../graphql.ts).
    if (cls.graphql)
      req.locals[CHARGE] = (points: number) => {
        if (BucketStore.remaining(bucket) < points) return false;
        bucket.used += points;
        Object.assign(res.extraHeaders, headersOf(bucket));
        return true;
      };
    // A conditional read answered 304 gives the count back (see ../conditional.ts).
    req.locals[REFUND] = () => {
      if (bucket.used > 0) bucket.used--;
      Object.assign(res.extraHeaders, headersOf(bucket));
    };
  }
  // A zero limit (anonymous callers of authenticated-only APIs): the route answers 401.
  Object.assign(res.extraHeaders, headersOf(bucket));
  return next();
}

function secondaryRefusal(rl: RateLimiter, res: EmuResponse, r: SecondaryRefusal, bucket: Bucket): void {
  if (r.exhaustBudget) rl.buckets.override(bucket, 0, r.exhaustBudget.resetInSeconds);
  const id = randomBytes(8)
    .toString('hex')
    .toUpperCase()
    .replace(/(.{4})(?=.)/g, '$1:');
  const headers: Record<string, string> = { ...headersOf(bucket), 'x-request-id': id };
  if (r.retryAfter !== undefined) headers[RateLimitHeader.retryAfter] = String(r.retryAfter);
  rl.env.log(`hosting: secondary rate limit (${r.reason}) for ${bucket.caller}`);
  res.json(r.status, apiError(r.status, `${SECONDARY_MESSAGE}${id}.`, undefined, `${DOCS_URL}#about-secondary-rate-limits`), headers);
}

/**
 * A token, or a login and password, that is not valid: 401 `Bad credentials`
 * on every endpoint, public ones included (the real service never falls back
 * to anonymous access). It counts against the address's unauthenticated budget.
 */
function badCredentials(rl: RateLimiter, req: EmuRequest, res: EmuResponse, caller: Caller): void {
  const bucket = rl.bucket(caller, 'core');
  if (BucketStore.remaining(bucket) > 0) bucket.used++;
  const docs = req.path.startsWith('/api/graphql') ? 'https://docs.example.com/graphql' : REST_DOCS;
  res.json(401, apiError(401, 'Bad credentials', undefined, docs), headersOf(bucket));
}

function rateLimitOverview(rl: RateLimiter, req: EmuRequest, res: EmuResponse): void {
  const caller = (req.locals.rateLimitCaller as Caller | undefined) ?? identifyCaller(rl.state, req.header('authorization'), req.ip);
  const resources: Record<string, { limit: number; used: number; remaining: number; reset: number }> = {};
  for (const r of RESOURCES) {
    if (r === 'lfs') continue; // its own bucket, reported in headers only (as the real service does)
    const b = rl.bucket(caller, r);
    resources[r] = { limit: b.limit, used: b.used, remaining: BucketStore.remaining(b), reset: b.resetAt };
  }
  res.json(200, { resources, rate: { ...resources.core! } });
}
