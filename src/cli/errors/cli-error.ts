/**
 * The CLI's own errors: failures only the command line has (its arguments,
 * `--jq`, `--template`). Their codes are not the library's (`ERROR_CODES`):
 * `cli/errors/exit.ts` maps them in a table of their own, and prints them as it
 * prints the library's errors (the message, then the hint).
 */

/** Every code of the CLI's own errors: a closed set beside the library's `ERROR_CODES`. */
export const CLI_ERROR_CODES = [
  // exit 2: bad flags or arguments, conflicting options
  'usage',
  // exit 1: a --jq filter failed on the data
  'jq_error',
  // exit 1: a --template failed on the data
  'template_error',
] as const;

export type CliErrorCode = (typeof CLI_ERROR_CODES)[number];

export class CliError extends Error {
  /** Why, or what to do, printed on the line after the message. */
  hint?: string;
  constructor(
    readonly code: CliErrorCode,
    message: string,
    hint?: string,
  ) {
    super(message);
    this.name = new.target.name;
    if (hint) this.hint = hint;
  }
}
