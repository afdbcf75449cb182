/**
 * `--since` for the health events list: `YYYY-MM-DD`, `M/D/YYYY`, or a
 * relative `3d` / `12h` / `30m` / `2w` back from now. The API takes
 * `queryStartTime` as `<month>/<day>/<year>` (UTC dates).
 */
import { ValidationError } from '../errors.js';

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;

/** `M/D/YYYY` of a UTC instant. */
export function formatQueryStartTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCMonth() + 1}/${d.getUTCDate()}/${d.getUTCFullYear()}`;
}

function checkedDate(year: number, month: number, day: number, text: string): number {
  const ms = Date.UTC(year, month - 1, day);
  const d = new Date(ms);
  if (year < 1970 || d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) {
    throw new ValidationError(`--since: "${text}" is not a valid calendar date`);
  }
  return ms;
}

/**
 * Parses `--since` against the current time and returns the UTC start instant
 * (epoch ms, midnight for dates; relative values are truncated to their day,
 * since the API only takes dates).
 */
export function parseSince(text: string, nowMs: number): number {
  const t = text.trim();
  let m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
  let ms: number;
  if (m) ms = checkedDate(Number(m[1]), Number(m[2]), Number(m[3]), t);
  else if ((m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(t))) ms = checkedDate(Number(m[3]), Number(m[1]), Number(m[2]), t);
  else if ((m = /^(\d+)\s*([mhdw])$/i.exec(t))) {
    const back = Number(m[1]) * UNIT_MS[m[2]!.toLowerCase() as keyof typeof UNIT_MS];
    const at = new Date(nowMs - back);
    if (!Number.isSafeInteger(back) || !(at.getUTCFullYear() >= 1970)) throw new ValidationError(`--since: "${text}" is too far back (before 1970)`);
    ms = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  } else {
    throw new ValidationError(`--since: expected YYYY-MM-DD, M/D/YYYY or a relative time like 3d or 12h, got "${text}"`);
  }
  if (ms > nowMs) throw new ValidationError(`--since: ${formatQueryStartTime(ms)} is in the future`);
  return ms;
}

/** `--since` text → the `queryStartTime` parameter value. */
export function sinceToQueryStartTime(text: string, nowMs: number): string {
  return formatQueryStartTime(parseSince(text, nowMs));
}
