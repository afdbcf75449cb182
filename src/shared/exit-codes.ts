/** Process exit codes, fixed for every command (documented in the README). */
export const ExitCode = {
  Ok: 0,
  Error: 1,
  Usage: 2,
  RateLimit: 3,
  AuthRequired: 4,
  /** A CI gate found what it gates on (`health check --fail-if-active`). */
  GateFailed: 5,
  Interrupted: 130,
  /** Ended by SIGTERM (128 + 15), as a shell reports a process the signal ended. */
  Terminated: 143,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** What each code means, for every command: the README's "Exit codes" table, and each command's "Exit status:" help (a test keeps them equal). */
export const EXIT_MEANINGS: Readonly<Record<ExitCode, string>> = {
  0: 'success',
  1: 'error (HTTP error, network, server refusal)',
  2: 'usage or bad input (unknown flag, invalid value, missing profile setting)',
  3: 'rate limit hit or budget check failed',
  4: 'authentication needed (no credential, 401, refused sign-in)',
  5: 'a CI gate failed',
  130: 'interrupted (Ctrl-C)',
  143: 'ended by SIGTERM',
};
