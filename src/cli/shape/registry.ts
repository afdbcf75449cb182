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
  /** Its result is safe for a writer that keeps colour: the only SGR in it is the colour it added (a colour terminal; jq.ts, template.ts). */
  readonly styled?: boolean;
}
