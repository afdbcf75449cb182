/** `lanyard emulator budget|budgets|secondary|limits`: steer the hosting rate limiter. */
import type { Context } from '../../context.js';
import { parseDuration, parseIntOption } from '../../option-parse.js';
import { localTime, relativeTime } from '../../terminal/time-text.js';
import { UsageError } from '../../errors/usage-error.js';
import type { HostingBucketView, HostingCallerSelector } from '../../../shared/hosting-ratelimit.js';
import { emulatorAdmin } from './run.js';
import type { EmulatorTargetOptions } from './options.js';

export interface CallerFlags extends EmulatorTargetOptions {
  user?: string;
  tokenOf?: string;
  anonymous?: boolean;
  caller?: string;
}

export interface BudgetFlags extends CallerFlags {
  remaining?: string;
  resetIn?: string;
  resource?: string;
}

export interface SecondaryFlags extends CallerFlags {
  count?: string;
  retryAfter?: string;
  status?: string;
  exhaustBudget?: boolean;
  resetIn?: string;
}

export interface LimitsFlags extends EmulatorTargetOptions {
  concurrent?: string;
  pointsPerMinute?: string;
  contentPerMinute?: string;
  contentPerHour?: string;
  contentWindow?: string;
}

function selector(f: CallerFlags): HostingCallerSelector {
  if (f.tokenOf !== undefined) {
    if (f.user !== undefined) throw new UsageError('give --user or --token-of, not both');
    f = { ...f, user: f.tokenOf };
  }
  const given = [f.user !== undefined, !!f.anonymous, f.caller !== undefined].filter(Boolean).length;
  if (given > 1) throw new UsageError('give at most one of --user (--token-of), --anonymous, --caller');
  if (f.user !== undefined) return { login: f.user };
  if (f.anonymous) return { anonymous: true };
  if (f.caller !== undefined) return { caller: f.caller };
  return {};
}

const seconds = (text: string, flag: string) => Math.ceil(parseDuration(text, flag) / 1000);

function showBuckets(ctx: Context, buckets: HostingBucketView[], json: unknown): void {
  const now = ctx.clock.now();
  ctx.output.rows(
    buckets,
    [
      { header: 'caller', value: (b) => b.caller, flexible: true },
      { header: 'resource', value: (b) => b.resource },
      { header: 'limit', value: (b) => String(b.limit), align: 'right' },
      { header: 'used', value: (b) => String(b.used), align: 'right' },
      { header: 'remaining', value: (b) => String(b.remaining), align: 'right' },
      { header: 'reset', value: (b) => `${localTime(b.reset * 1000)} (${relativeTime(b.reset * 1000, now)})` },
    ],
    json,
  );
}

export async function runEmulatorBudget(ctx: Context, f: BudgetFlags): Promise<void> {
  const body = {
    ...selector(f),
    resource: f.resource ?? 'core',
    remaining: parseIntOption(f.remaining ?? '0', '--remaining'),
    ...(f.resetIn !== undefined ? { resetInSeconds: seconds(f.resetIn, '--reset-in') } : {}),
  };
  const r = (await emulatorAdmin(ctx, f, 'POST', 'hosting/budget', body)) as { buckets: HostingBucketView[]; appliesTo: string };
  if (!ctx.output.forProgram) ctx.io.err(`Budget set for ${r.appliesTo}`);
  showBuckets(ctx, r.buckets, { appliesTo: r.appliesTo, buckets: r.buckets });
}

export async function runEmulatorBudgets(ctx: Context, f: EmulatorTargetOptions): Promise<void> {
  const r = (await emulatorAdmin(ctx, f, 'POST', 'hosting/budgets', {})) as { buckets: HostingBucketView[] };
  showBuckets(ctx, r.buckets, r);
}

export async function runEmulatorSecondary(ctx: Context, f: SecondaryFlags): Promise<void> {
  if (f.resetIn !== undefined && !f.exhaustBudget) throw new UsageError('--reset-in goes with --exhaust-budget');
  const body: Record<string, unknown> = { ...selector(f), count: parseIntOption(f.count ?? '1', '--count', 1) };
  if (f.retryAfter !== undefined) body.retryAfter = seconds(f.retryAfter, '--retry-after');
  if (f.status !== undefined) {
    const status = parseIntOption(f.status, '--status');
    if (status !== 403 && status !== 429) throw new UsageError('--status must be 403 or 429');
    body.status = status;
  }
  if (f.exhaustBudget) {
    body.exhaustBudget = true;
    if (f.resetIn !== undefined) body.resetInSeconds = seconds(f.resetIn, '--reset-in');
  }
  const r = await emulatorAdmin(ctx, f, 'POST', 'hosting/secondary', body);
  const a = r as { armed: number; caller: string; status: number; retryAfter: number | null };
  ctx.output.document(a, () =>
    ctx.io.err(
      `Next ${a.armed} request(s) from ${a.caller} get a secondary rate limit (HTTP ${a.status}${a.retryAfter !== null ? `, retry-after ${a.retryAfter}` : ', no retry-after'})`,
    ),
  );
}

export async function runEmulatorLimits(ctx: Context, f: LimitsFlags): Promise<void> {
  const body: Record<string, number> = {};
  if (f.concurrent !== undefined) body.concurrent = parseIntOption(f.concurrent, '--concurrent');
  if (f.pointsPerMinute !== undefined) body.restPointsPerMinute = parseIntOption(f.pointsPerMinute, '--points-per-minute');
  if (f.contentPerMinute !== undefined) body.contentCreatingPerMinute = parseIntOption(f.contentPerMinute, '--content-per-minute');
  if (f.contentPerHour !== undefined) body.contentCreatingPerHour = parseIntOption(f.contentPerHour, '--content-per-hour');
  if (f.contentWindow !== undefined) body.contentCreatingWindowSeconds = seconds(f.contentWindow, '--content-window');
  const r = (await emulatorAdmin(ctx, f, 'POST', 'hosting/limits', body)) as { secondaryLimits: Record<string, number> };
  ctx.output.document(r, () => {
    for (const [k, v] of Object.entries(r.secondaryLimits)) ctx.io.out(`${k}\t${v}`);
  });
}
