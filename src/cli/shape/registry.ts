/**
 * What `--jq` and `--template` make of JSON (built by ./prepare.ts before
 * the run function runs, held by the run's Output, output.ts). Kept tiny: every command
 * loads it, few use it.
 */

export interface JsonShaper {
  /** The text printed for one JSON value (the whole `--json` value, or one `--ndjson` item). */
  format(value: unknown): string;
}
