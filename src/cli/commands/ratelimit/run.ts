import type { Context } from '../../context.js';
import { appendStepSummary, ciEvent } from '../../ci.js';
import { renderTable } from '../../output/output.js';
import { parseIntOption, waitTimeoutMs } from '../../option-parse.js';
import { localTime, relativeTime } from '../../terminal/time-text.js';
import { hostingTarget } from '../../services/hosting/wiring.js';
import { fetchRateLimit, type RateLimitOverview, type ResourceBudget } from '../../../core/hosting/rate-limit.js';
import type { SharedBudget } from '../../../core/http/pacing.js';
import { RateLimitError } from '../../../core/errors.js';
import { UsageError } from '../../errors/usage-error.js';
import { exitCodeFor } from '../../errors/exit.js';
import { createSpinner, type Spinner } from '../../terminal/spinner.js';
import type { RatelimitStatusOptions, RatelimitWaitOptions } from './options.js';

interface Overview extends RateLimitOverview {
  /** What the fleet sharing the pacing server saw, per resource (only with a shared pacing server). */
  shared?: Record<string, SharedBudget>;
}

/**
 * The server's answer (GET /rate_limit) and, with a shared pacing server,
 * the last budget any process of the fleet saw in a response's headers.
 */
async function overview(ctx: Context, login: string | undefined): Promise<Overview> {
  const t = await hostingTarget(ctx, { login });
  const o: Overview = await fetchRateLimit(t.http, t.apiUrl, t.auth, ctx.signal, () => ctx.clock.now());
  const seen = await t.http.sharedBudgets(t.apiUrl, await t.auth.credential());
  if (seen) o.shared = Object.fromEntries(seen.map((b) => [b.resource, b]));
  return o;
}

/** The server's budget of a resource (an unknown one: exit 2). */
function pickServer(o: RateLimitOverview, resource: string): ResourceBudget {
  const b = o.resources[resource];
  if (!b) throw new UsageError(`unknown resource "${resource}"`, `known: ${Object.keys(o.resources).join(', ')}`);
  return b;
}

/**
 * The budget to act on: the server's, unless the fleet saw less left in the
 * same window or a later one (answers may lag between regions; headers are
 * authoritative over GET /rate_limit).
 */
function pick(o: Overview, resource: string): ResourceBudget {
  const b = pickServer(o, resource);
  const s = o.shared?.[resource];
  return s && s.reset >= b.reset && s.remaining < b.remaining ? { limit: s.limit, used: s.used, remaining: s.remaining, reset: s.reset } : b;
}

/** The fleet's budget as --json shows it: the numbers, when seen and how long ago. */
function sharedJson(s: SharedBudget) {
  return {
    limit: s.limit,
    used: s.used,
    remaining: s.remaining,
    reset: s.reset,
    seen_at: new Date(s.seenAt).toISOString(),
    age_seconds: Math.round(s.ageMs / 1000),
  };
}

/** A local time, without its date when that is today's (a reset is most often within the hour). */
function sameDayTime(ms: number, now: number): string {
  const t = localTime(ms);
  return t.slice(0, 10) === localTime(now).slice(0, 10) ? t.slice(11) : t;
}

/** A resource name (`core`, `search`, `code_search`, ...), checked before any request. */
function resourceOption(name: string | undefined): string | undefined {
  if (name !== undefined && !/^[a-z][a-z0-9_]{0,63}$/.test(name))
    throw new UsageError(`--resource: ${JSON.stringify(name)} is not a resource name (e.g. core, search, graphql)`);
  return name;
}

export async function runRatelimitStatus(ctx: Context, opts: RatelimitStatusOptions): Promise<void> {
  resourceOption(opts.resource);
  const failUnder = opts.failUnder !== undefined ? parseIntOption(opts.failUnder, '--fail-under') : undefined;
  const o = await overview(ctx, opts.user);
  const shown: RateLimitOverview = { resources: opts.resource ? { [opts.resource]: pickServer(o, opts.resource) } : o.resources };
  const shared = o.shared && Object.fromEntries(Object.entries(o.shared).filter(([n]) => !opts.resource || n === opts.resource));
  const json = shared ? { ...shown, shared: Object.fromEntries(Object.entries(shared).map(([n, b]) => [n, sharedJson(b)])) } : shown;
  const failure = failUnder === undefined ? undefined : budgetFailure(ctx, o, opts.resource ?? 'core', failUnder);
  // Said before the table: a CI log cut short (`| head`) still fails the job.
  if (failure) ctx.exitWith(exitCodeFor(failure));
  ctx.output.document(json, () => {
    const now = ctx.clock.now();
    // Reset times are the server's clock: shown in local time, corrected for the measured skew (as `api` does).
    const resetAt = (epochSec: number) => epochSec * 1000 - (o.skewMs ?? 0);
    const rows = Object.entries(shown.resources).map(([name, b]) => ({ name, ...b }));
    renderTable(ctx.io, rows, [
      // Fits 80 columns (`reset` without today's date); narrower terminals cut the longest names, then leave out `fleet saw`.
      { header: 'resource', value: (r) => r.name, flexible: true, min: 12 },
      { header: 'limit', value: (r) => String(r.limit), align: 'right' },
      { header: 'used', value: (r) => String(r.used), align: 'right' },
      {
        header: 'remaining',
        value: (r) => String(r.remaining),
        align: 'right',
        style: (c, r) => (r.remaining === 0 ? `\u001b[31m${c}\u001b[39m` : r.remaining < r.limit / 10 ? `\u001b[33m${c}\u001b[39m` : c),
      },
      { header: 'reset', value: (r) => `${sameDayTime(resetAt(r.reset), now)} (${relativeTime(resetAt(r.reset), now)})`, raw: (r) => String(r.reset) },
      // With a shared pacing server: the last budget the fleet saw, and its age.
      ...(shared
        ? [
            {
              header: 'fleet saw',
              optional: true,
              value: (r: { name: string }) => {
                const b = shared[r.name];
                return b ? `${b.remaining} left, ${relativeTime(b.seenAt, b.seenAt + b.ageMs).replace(/^now$/, 'just now')}` : '-';
              },
            },
          ]
        : []),
    ]);
  });
  await appendStepSummary(
    ctx.env,
    [
      '### Rate-limit budget',
      '',
      '| resource | limit | used | remaining | resets (UTC) |',
      '|---|---:|---:|---:|---|',
      ...Object.entries(shown.resources).map(([n, b]) => `| ${n} | ${b.limit} | ${b.used} | ${b.remaining} | ${new Date(b.reset * 1000).toISOString()} |`),
      '',
    ].join('\n'),
    (t) => ctx.warn(t),
  );
  if (failure) throw failure;
}

/** `--fail-under`: the error the run ends with (exit 3) when `resource` has fewer than `failUnder` requests left; undefined when it passes. */
function budgetFailure(ctx: Context, o: Overview, resource: string, failUnder: number): RateLimitError | undefined {
  const b = pick(o, resource);
  if (b.remaining >= failUnder) return undefined;
  const reset = b.reset * 1000 - (o.skewMs ?? 0);
  return new RateLimitError(
    `budget check failed: ${resource} has ${b.remaining} requests left, fewer than ${failUnder}; it resets at ${localTime(reset)} (${relativeTime(reset, ctx.clock.now())})`,
    'budget',
    reset,
  );
}

export async function runRatelimitWait(ctx: Context, opts: RatelimitWaitOptions): Promise<void> {
  const resource = resourceOption(opts.resource) ?? 'core';
  const min = parseIntOption(opts.min ?? '1', '--min', 1);
  const timeoutMs = waitTimeoutMs(ctx);
  const start = ctx.clock.monotonic();
  const spinner = await createSpinner(ctx.io);
  try {
    let lastTry = false;
    for (;;) {
      const o = await overview(ctx, opts.user);
      const b = pick(o, resource);
      if (min > b.limit) throw new UsageError(`--min ${min} is more than the ${resource} limit (${b.limit})`);
      if (b.remaining >= min) return await reportAvailable(ctx, spinner, resource, b, start);
      const now = ctx.clock.now();
      // The reset is in server time: convert with the measured skew, plus a
      // second of margin for the header's 1 s resolution.
      const resetLocal = b.reset * 1000 - (o.skewMs ?? 0);
      if (lastTry) {
        throw new RateLimitError(
          `timed out waiting for ${resource}: ${b.remaining} left, resets at ${localTime(resetLocal)} (${relativeTime(resetLocal, now)})`,
          'budget',
          resetLocal,
        );
      }
      let waitMs = resetLocal <= now ? 5_000 : resetLocal - now + 1000;
      const left = timeoutMs === undefined ? Infinity : timeoutMs - (ctx.clock.monotonic() - start);
      if (waitMs >= left) {
        waitMs = Math.max(0, left);
        lastTry = true;
      }
      await waitForBudget(ctx, spinner, { resource, budget: b, min, waitMs, resetLocal, now });
    }
  } finally {
    spinner.stop();
  }
}

/** `ratelimit wait` is done (it began at `start`, monotonic): the budget on stderr and in the CI step summary. */
async function reportAvailable(ctx: Context, spinner: Spinner, resource: string, b: ResourceBudget, start: number): Promise<void> {
  const done = `${resource}: ${b.remaining} of ${b.limit} requests available`;
  if (spinner.live) spinner.succeed(done);
  else ctx.io.err(done);
  const waited = Math.round((ctx.clock.monotonic() - start) / 1000);
  await appendStepSummary(
    ctx.env,
    `**ratelimit wait**: ${resource} has ${b.remaining} of ${b.limit} requests available${waited ? ` after waiting ${waited} s` : ''}.\n`,
    (t) => ctx.warn(t),
  );
}

/** One wait of `ratelimit wait`, said as a CI event and/or a countdown (moving on a terminal, one line elsewhere). */
async function waitForBudget(
  ctx: Context,
  spinner: Spinner,
  w: { resource: string; budget: ResourceBudget; min: number; waitMs: number; resetLocal: number; now: number },
): Promise<void> {
  const { resource, budget: b } = w;
  const evented = ciEvent(ctx.io, ctx.env, w.now, 'rate_limit_wait', {
    kind: 'budget',
    resource,
    remaining: b.remaining,
    limit: b.limit,
    min: w.min,
    wait_ms: Math.round(w.waitMs),
    reset_at: new Date(w.resetLocal).toISOString(),
  });
  const text = () => `waiting for ${resource} budget: ${b.remaining} left, resets ${countdown(w.resetLocal, ctx.clock.now())}`;
  // In CI the event line says it (stderr stays machine-readable); a terminal still gets the countdown.
  if (!evented || spinner.live) spinner.show(text());
  const tick = spinner.live ? setInterval(() => spinner.update(text()), 1000) : undefined;
  try {
    await ctx.clock.sleep(w.waitMs, ctx.signal);
  } finally {
    clearInterval(tick);
  }
}

/** "in 1m 05s", "in 9s", "now": to the second, for a countdown. */
export function countdown(targetMs: number, nowMs: number): string {
  const s = Math.ceil((targetMs - nowMs) / 1000);
  if (s <= 0) return 'now';
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h) return `in ${h}h ${String(m).padStart(2, '0')}m ${String(sec).padStart(2, '0')}s`;
  if (m) return `in ${m}m ${String(sec).padStart(2, '0')}s`;
  return `in ${sec}s`;
}
