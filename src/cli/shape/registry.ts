/**
 * What `--jq` and `--template` make of JSON (built by ./prepare.ts before
 * the run function runs, held by the run's Output, output.ts). Kept tiny: every command
 * loads it, few use it.
 */

export interface JsonShaper {
  /** What shapes: `jq:EXPRESSION` or `template:TEXT` (a checkpoint records it). */
  readonly source: string;
  /** The text printed for one JSON value (the whole `--json` value, or one `--ndjson` item). */
  format(value: unknown): string;
  /** Its result holds colour it added itself to JSON sanitised first (a colour terminal; prepare.ts). */
  readonly styled?: boolean;
}
