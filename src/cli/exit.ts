/** The one place that maps errors to exit codes and one-line messages. */
import { CommanderError } from 'commander';
import { ExitCode } from '../shared/exit-codes.js';
import { AuthRequiredError, CancelledError, ConfigError, HttpError, LanyardError, OAuthError, RateLimitError, ValidationError } from '../core/errors.js';
import { UsageError } from './usage-error.js';
import { localTime, relativeTime } from './output.js';

export function exitCodeFor(err: unknown): number {
  if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : ExitCode.Usage;
  if (err instanceof UsageError || err instanceof ValidationError || err instanceof ConfigError) return ExitCode.Usage;
  if (err instanceof RateLimitError) return ExitCode.RateLimit;
  if (err instanceof AuthRequiredError) return ExitCode.AuthRequired;
  if (err instanceof CancelledError) return ExitCode.Interrupted;
  if (err instanceof OAuthError) return err.status === 401 ? ExitCode.AuthRequired : ExitCode.Error;
  if (err instanceof HttpError) return err.status === 401 ? ExitCode.AuthRequired : ExitCode.Error;
  return ExitCode.Error;
}

/** One line (plus an optional hint line) for stderr. Stack traces only with --debug. */
export function formatError(err: unknown, debug: boolean): string {
  let msg: string;
  if (err instanceof LanyardError) {
    msg = err.message;
    if (err instanceof HttpError && err.status === 401 && !err.hint) {
      err.hint = 'authentication needed: run `lanyard auth login` (or set LANYARD_TOKEN)';
    }
    if (err instanceof RateLimitError && !err.hint && err.kind !== 'budget') err.hint = rateLimitHint(err);
    if (err.hint) msg += `\n${err.hint}`;
  } else if (err instanceof Error) {
    msg = `unexpected error: ${err.message.split('\n')[0]}`;
  } else {
    msg = `unexpected error: ${String(err)}`;
  }
  if (debug && err instanceof Error && err.stack) msg += `\n${err.stack}`;
  return msg;
}

/** When to try again, in local time, and how to wait automatically. */
function rateLimitHint(err: RateLimitError): string {
  const how = 'rerun with --wait (or LANYARD_RATE_LIMIT_WAIT=1) to wait for it';
  if (err.resetAt === undefined) return how;
  const what = err.kind === 'primary' ? 'the budget resets' : 'try again';
  return `${what} at ${localTime(err.resetAt)} local time (${relativeTime(err.resetAt, Date.now())}); ${how}`;
}
