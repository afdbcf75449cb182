import type { Context } from '../../context.js';
import { localTime, parseDuration, parseIntOption, printJson, relativeTime, renderTable } from '../../output.js';
import { hostingTarget } from '../../hosting.js';
import { fetchRateLimit, type RateLimitOverview, type ResourceBudget } from '../../../core/hosting/rate-limit.js';
import { RateLimitError } from '../../../core/errors.js';
import { UsageError } from '../../usage-error.js';
import type { RatelimitStatusOptions, RatelimitWaitOptions } from './index.js';

async function overview(ctx: Context): Promise<RateLimitOverview> {
  const t = await hostingTarget(ctx);
  return fetchRateLimit(t.http, t.apiUrl, t.credential, ctx.signal);
}

function pick(o: RateLimitOverview, resource: string): ResourceBudget {
  const b = o.resources[resource];
  if (!b) throw new UsageError(`unknown resource "${resource}"`, `known: ${Object.keys(o.resources).join(', ')}`);
  return b;
}

export async function runRatelimitStatus(ctx: Context, opts: RatelimitStatusOptions): Promise<void> {
  const failUnder = opts.failUnder !== undefined ? parseIntOption(opts.failUnder, '--fail-under') : undefined;
  const o = await overview(ctx);
  const shown: RateLimitOverview = opts.resource ? { resources: { [opts.resource]: pick(o, opts.resource) } } : o;
  if (opts.json) printJson(ctx.io, shown);
  else {
    const now = ctx.clock.now();
    const rows = Object.entries(shown.resources).map(([name, b]) => ({ name, ...b }));
    renderTable(ctx.io, rows, [
      { header: 'resource', value: (r) => r.name },
      { header: 'limit', value: (r) => String(r.limit), align: 'right' },
      { header: 'used', value: (r) => String(r.used), align: 'right' },
      {
        header: 'remaining',
        value: (r) => String(r.remaining),
        align: 'right',
        style: (c, r) => (r.remaining === 0 ? `\u001b[31m${c}\u001b[39m` : r.remaining < r.limit / 10 ? `\u001b[33m${c}\u001b[39m` : c),
      },
      { header: 'reset', value: (r) => `${localTime(r.reset * 1000)} (${relativeTime(r.reset * 1000, now)})` },
    ]);
  }
  if (failUnder !== undefined) {
    const resource = opts.resource ?? 'core';
    const b = pick(o, resource);
    if (b.remaining < failUnder) {
      throw new RateLimitError(
        `budget check failed: ${resource} has ${b.remaining} requests left, fewer than ${failUnder}; it resets at ${localTime(b.reset * 1000)} (${relativeTime(b.reset * 1000, ctx.clock.now())})`,
        'budget',
        b.reset * 1000,
      );
    }
  }
}

export async function runRatelimitWait(ctx: Context, opts: RatelimitWaitOptions): Promise<void> {
  const resource = opts.resource ?? 'core';
  const min = parseIntOption(opts.min ?? '1', '--min', 1);
  const timeoutMs = opts.timeout ? parseDuration(opts.timeout, '--timeout') : undefined;
  const start = ctx.clock.monotonic();
  const spinner = ctx.io.stderrIsTTY ? (await import('ora')).default({ stream: ctx.io.stderr, isEnabled: true }) : undefined;
  try {
    for (;;) {
      const b = pick(await overview(ctx), resource);
      if (b.remaining >= min) {
        spinner?.succeed(`${resource}: ${b.remaining} of ${b.limit} requests available`);
        if (!spinner) ctx.io.err(`${resource}: ${b.remaining} of ${b.limit} requests available`);
        return;
      }
      const now = ctx.clock.now();
      // The reset is in server time; a second of margin for its 1 s resolution.
      let waitMs = Math.max(1000, b.reset * 1000 - now + 1000);
      if (waitMs > 60_000 && b.reset * 1000 <= now) waitMs = 60_000;
      const elapsed = ctx.clock.monotonic() - start;
      if (timeoutMs !== undefined && elapsed + waitMs > timeoutMs) {
        const left = timeoutMs - elapsed;
        if (left > 0) await ctx.clock.sleep(left, ctx.signal);
        throw new RateLimitError(
          `timed out waiting for ${resource}: ${b.remaining} left, resets at ${localTime(b.reset * 1000)}`,
          'budget',
          b.reset * 1000,
        );
      }
      const text = `waiting for ${resource} budget: ${b.remaining} left, resets ${relativeTime(b.reset * 1000, now)}`;
      if (spinner) spinner.start(text);
      else ctx.io.err(text);
      await ctx.clock.sleep(waitMs, ctx.signal);
    }
  } finally {
    spinner?.stop();
  }
}
