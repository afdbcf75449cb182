/** The one place that maps errors to exit codes and one-line messages. */
import { CommanderError } from 'commander';
import { ExitCode } from '../../shared/exit-codes.js';
import { type ErrorCode, HttpError, LanyardError, RateLimitError } from '../../core/errors.js';
import { CliError, type CliErrorCode } from './cli-error.js';
import { localTime, relativeTime } from '../terminal/time-text.js';
import { hintOf } from './hints.js';
import { SERVICES } from '../services/registry.js';

/**
 * The command's own exit status, thrown by its run function instead of an
 * error: another program's (`exec`), a failed CI gate (`health check`), 0
 * when a signal is the normal end (`emulator start`, `protocol bridge`: not
 * 130). Nothing is printed for it; no other way carries an exit status.
 */
export class ExitStatus extends Error {
  constructor(readonly status: number) {
    super(`exit status ${status}`);
    this.name = 'ExitStatus';
  }
}

/** The exit code of every library error code: the one table (a test checks it covers them all). */
export const EXIT_CODES: Readonly<Record<ErrorCode, ExitCode>> = {
  validation: ExitCode.Usage,
  config: ExitCode.Usage,
  insecure_transport: ExitCode.Usage,
  checkpoint_unusable: ExitCode.Usage,
  checkpoint_busy: ExitCode.Usage,
  rate_limited: ExitCode.RateLimit,
  auth_required: ExitCode.AuthRequired,
  unauthorized: ExitCode.AuthRequired,
  cancelled: ExitCode.Interrupted,
  http_error: ExitCode.Error,
  network_error: ExitCode.Error,
  proxy_error: ExitCode.Error,
  tls_error: ExitCode.Error,
  timeout: ExitCode.Error,
  oauth_error: ExitCode.Error,
  credential_store: ExitCode.Error,
  not_found: ExitCode.Error,
  not_signed_in: ExitCode.Error,
  forbidden: ExitCode.Error,
  bad_response: ExitCode.Error,
  protocol_error: ExitCode.Error,
  rpc_error: ExitCode.Error,
  session_expired: ExitCode.Error,
  discovery_failed: ExitCode.Error,
  issuer_mismatch: ExitCode.Error,
  insecure_endpoint: ExitCode.Error,
  insecure_redirect: ExitCode.Error,
  registration_failed: ExitCode.Error,
  client_required: ExitCode.Error,
  client_secret_missing: ExitCode.Error,
  pkce_unsupported: ExitCode.Error,
  dpop_unsupported: ExitCode.Error,
  token_failed: ExitCode.Error,
  device_flow_disabled: ExitCode.Error,
  incorrect_client_credentials: ExitCode.Error,
  incorrect_device_code: ExitCode.Error,
  unsupported_grant_type: ExitCode.Error,
};

/** The exit code of every code of the CLI's own errors (cli-error.ts), beside the library's. */
export const CLI_EXIT_CODES: Readonly<Record<CliErrorCode, ExitCode>> = {
  usage: ExitCode.Usage,
  jq_error: ExitCode.Error,
  template_error: ExitCode.Error,
};

export function exitCodeFor(err: unknown): number {
  if (err instanceof ExitStatus) return err.status;
  if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : ExitCode.Usage;
  if (err instanceof CliError) return CLI_EXIT_CODES[err.code] ?? ExitCode.Error;
  if (err instanceof LanyardError) return EXIT_CODES[err.code] ?? ExitCode.Error;
  return ExitCode.Error;
}

/**
 * Whether a failure still owes its line on stderr: not a success, not an exit
 * status a command chose (it has said its piece: doctor's problems, exec's
 * child), not commander's own (it printed the usage error itself).
 */
export function owesErrorLine(err: unknown, code: number): boolean {
  return code !== 0 && !(err instanceof ExitStatus) && !(err as { code?: string })?.code?.startsWith?.('commander.');
}

/** One line (plus an optional hint line) for stderr. Stack traces only with --debug. */
export function formatError(err: unknown, debug: boolean): string {
  let msg: string;
  if (err instanceof LanyardError || err instanceof CliError) {
    const hint = err instanceof LanyardError ? libraryHint(err) : err.hint;
    // A pacing wait past its bound is one line: the wait, and how to allow it.
    const sep = err instanceof RateLimitError && err.kind === 'pacing' ? '; ' : '\n';
    msg = hint ? `${err.message}${sep}${hint}` : err.message;
  } else if (err instanceof Error) {
    msg = `unexpected error: ${err.message.split('\n')[0]}`;
  } else {
    msg = `unexpected error: ${String(err)}`;
  }
  if (debug && err instanceof Error && err.stack) msg += `\n${err.stack}`;
  return msg;
}

/**
 * The hint line of a library error: its own hint and remedy, else the CLI's
 * words for a bare 401 or rate limit (the one place a 401 gets its hint).
 * Computed, never written back into the error.
 */
function libraryHint(err: LanyardError): string | undefined {
  if (err.hint) return hintOf(err);
  if (err instanceof HttpError && err.status === 401 && !err.remedy && !err.otherOrigin) return hintOf(err, unauthorizedHint(err));
  if (err instanceof RateLimitError && err.kind !== 'budget' && err.kind !== 'pacing') return hintOf(err, rateLimitHint(err));
  return hintOf(err);
}

/**
 * A 401 nobody explained, in its service's words (the registry; hosting when
 * the service is not known): which credential was refused (its source, whose)
 * when the error names its source, else how to sign in.
 */
function unauthorizedHint(err: HttpError): string {
  const entry = SERVICES[err.service ?? 'hosting'];
  if (err.credentialSource) return entry.refused(err.credentialSource, err.credentialLogin);
  const advice = entry.signIn({});
  return advice ? `authentication needed: ${advice}` : entry.refused('unknown');
}

/** When to try again, in local time, and how to wait automatically. */
function rateLimitHint(err: RateLimitError): string {
  const how = 'rerun with --wait (or LANYARD_RATE_LIMIT_WAIT=1) to wait for it';
  if (err.resetAt === undefined) return how;
  const what = err.kind === 'primary' ? 'the budget resets' : 'try again';
  return `${what} at ${localTime(err.resetAt)} local time (${relativeTime(err.resetAt, Date.now())}); ${how}`;
}
