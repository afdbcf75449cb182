/** Times and durations as a person reads them: "in 12m", "3h ago", a local date and time. */

/** "in 12m", "3h ago", "now". */
export function relativeTime(targetMs: number, nowMs: number): string {
  const d = Math.round((targetMs - nowMs) / 1000);
  const a = Math.abs(d);
  const text =
    a < 5 ? '' : a < 90 ? `${a}s` : a < 90 * 60 ? `${Math.round(a / 60)}m` : a < 36 * 3600 ? `${Math.round(a / 3600)}h` : `${Math.round(a / 86400)}d`;
  if (!text) return 'now';
  return d > 0 ? `in ${text}` : `${text} ago`;
}

/** Local time "2026-11-22 14:05:09". */
export function localTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
