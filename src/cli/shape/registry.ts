/**
 * The output shaper of a command run with `--jq` or `--template` (set up by
 * ./prepare.ts before the action; looked up by output.ts's printJson and
 * printNdjson). Kept tiny: every command imports it, few use it.
 */
import type { IO } from '../io.js';

export interface JsonShaper {
  /** The text printed for one JSON value (the whole `--json` value, or one `--ndjson` item). */
  format(value: unknown): string;
}

const shapers = new WeakMap<IO, JsonShaper>();

export function setShaper(io: IO, shaper: JsonShaper): void {
  shapers.set(io, shaper);
}

/** The shaper in force for this IO, if `--jq` or `--template` was given. */
export function shaperOf(io: IO): JsonShaper | undefined {
  return shapers.get(io);
}
