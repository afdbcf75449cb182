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
