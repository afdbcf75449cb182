/**
 * The words of the pacing settings, as `LANYARD_PACING_LIMITS` /
 * `LANYARD_PACING_MARGIN` and the profile's `pacing.limits` / `pacing.margin`
 * give them (docs/fleets.md): the code host's content-creating windows
 * (`80/1m,500/1h`) and the margin each is counted longer (`1s`). A bad value
 * is a ConfigError (exit 2) naming where it came from.
 */
import { ConfigError } from '../errors.js';
import type { PacingWindow } from '../http/pacing.js';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A duration (`90` seconds, `30s`, `1m30s`, `250ms`, `1.5h`) in whole ms; undefined when the text is none. */
export function durationMs(text: string): number | undefined {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number(t) * 1000;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(t); m; m = re.exec(t)) {
    total += Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
    matched = re.lastIndex;
  }
  return t && matched === t.length ? Math.round(total) : undefined;
}

/** The longest window or margin taken: a day (beyond it a timer would not hold it, and no service counts so long). */
const MAX_MS = 86_400_000;

/** `80/1m,500/1h` → the windows; `source` names the variable or setting in the error. */
export function parsePacingLimits(text: string, source: string): PacingWindow[] {
  return text.split(',').map((part) => {
    const m = /^\s*(\d{1,9})\s*\/\s*(\S+)\s*$/.exec(part);
    const windowMs = m ? durationMs(m[2]!) : undefined;
    if (!m || windowMs === undefined || !(windowMs > 0) || windowMs > MAX_MS || Number(m[1]) < 1)
      throw new ConfigError(`${source}: "${part.trim().slice(0, 40)}" is not COUNT/DURATION (e.g. 80/1m,500/1h; at least 1 in at most 1d)`);
    return { limit: Number(m[1]), windowMs };
  });
}

/** `1s`, `250ms`, `0` → the margin in ms (0 to a day). */
export function parsePacingMargin(text: string, source: string): number {
  const ms = durationMs(text);
  if (ms === undefined || ms > MAX_MS) throw new ConfigError(`${source}: "${text.trim().slice(0, 40)}" is not a duration of at most 1d (e.g. 1s, 500ms, 0)`);
  return ms;
}

/** `80/1m,500/1h`: the windows as the settings write them. */
export function formatPacingLimits(windows: readonly PacingWindow[]): string {
  const d = (ms: number) =>
    ms % 3_600_000 === 0 ? `${ms / 3_600_000}h` : ms % 60_000 === 0 ? `${ms / 60_000}m` : ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
  return windows.map((w) => `${w.limit}/${d(w.windowMs)}`).join(',');
}
