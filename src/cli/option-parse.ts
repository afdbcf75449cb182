/** Option values: durations, whole numbers and the bound of a command's own wait. */
import { durationMs } from '../core/ratelimit/pacing-limits.js';
import { UsageError } from './errors/usage-error.js';

/** The longest a timer can wait (Node's setTimeout limit, about 24.8 days): the default bound of a duration option. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Parses "90", "90s", "5m", "1h30m", "250ms" into milliseconds, at most `maxMs` (usage error otherwise). */
export function parseDuration(text: string, flag: string, maxMs = MAX_TIMER_MS): number {
  const total = durationMs(text);
  if (total === undefined) throw new UsageError(`${flag}: invalid duration "${text}" (examples: 30s, 5m, 1h30m)`);
  if (!(total <= maxMs)) throw new UsageError(`${flag}: "${text}" is too long (at most ${Math.floor(maxMs / 86_400_000)} days)`);
  return total;
}

/** What waitTimeoutMs needs of the Context: the root options. */
type WithRootTimeout = { globals(): { timeout?: string } };

/**
 * The bound of a command's own wait (a sign-in, `ratelimit wait`) from
 * `--timeout`, in ms, else `byDefault` (undefined: no bound). `--timeout` is a
 * root option (each request's deadline), and commander gives a root option the
 * value wherever it stands on the command line: the commands that wait
 * describe it in their own help, but the value is always the root's, so no
 * command's option type has it.
 */
export function waitTimeoutMs(ctx: WithRootTimeout, byDefault: string): number;
export function waitTimeoutMs(ctx: WithRootTimeout): number | undefined;
export function waitTimeoutMs(ctx: WithRootTimeout, byDefault?: string): number | undefined {
  const text = ctx.globals().timeout ?? byDefault;
  return text === undefined ? undefined : parseDuration(text, '--timeout');
}

/** Parses a non-negative integer option. */
export function parseIntOption(text: string, flag: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(text.trim())) throw new UsageError(`${flag}: expected a whole number, got "${text}"`);
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new UsageError(`${flag}: "${text}" is too large`);
  if (n < min || n > max) {
    throw new UsageError(
      max === Number.MAX_SAFE_INTEGER ? `${flag}: must be at least ${min}, got ${n}` : `${flag}: must be between ${min} and ${max}, got ${n}`,
    );
  }
  return n;
}
