/** Shared rendering: JSON, NDJSON, tables, times and durations. */
import type { IO } from './io.js';
import { UsageError } from './usage-error.js';
import { shaperOf } from './shape/registry.js';
import { terminalText } from './terminal-text.js';

/** Prints a command's JSON value (or what `--jq` / `--template` make of it). */
export function printJson(io: IO, value: unknown, o: { compact?: boolean } = {}): void {
  const shaper = shaperOf(io);
  if (shaper) io.print(shaper.format(value));
  else io.out(JSON.stringify(value, null, o.compact ? 0 : 2));
}

/** Prints one item of a stream (`--ndjson`): a line of JSON, or what `--jq` / `--template` make of the item. */
export function printNdjson(io: IO, value: unknown): void {
  io.print(ndjsonLine(io, value));
}

/** The text `printNdjson` writes for one item. */
export function ndjsonLine(io: IO, value: unknown): string {
  const shaper = shaperOf(io);
  if (!shaper) return JSON.stringify(value) + '\n';
  const text = shaper.format(value);
  return text && !text.endsWith('\n') ? text + '\n' : text;
}

export interface Column<T> {
  header: string;
  /** The cell as a person reads it (tables on a terminal). */
  value: (row: T) => string;
  /** The cell for scripts (tab-separated output into a pipe): raw values such as epoch seconds or bytes; default `value`. */
  raw?: (row: T) => string;
  /** Optional styling of the padded cell (colour). */
  style?: (cell: string, row: T) => string;
  align?: 'left' | 'right';
  /** Columns that may be cut (with …) to fit the terminal. */
  flexible?: boolean;
  /** Among flexible columns, the higher gives up its width first (default 1): the least useful column shrinks first. */
  shrink?: number;
  /** A flexible column is not cut below this width (default 10, or its header). */
  min?: number;
  /** May be left out on a terminal too narrow for the table even with every flexible column cut (highest `shrink` first). */
  optional?: boolean;
}

/** Columns between cells. */
const GAP = 2;

/**
 * Widths that fit `maxWidth` (cells + gaps): flexible columns are cut, the
 * highest `shrink` first, each down to its minimum before the next one gives
 * anything. When even that is not enough the table stays wider (fixed
 * columns are never cut).
 */
export function fitWidths<T>(natural: readonly number[], columns: ReadonlyArray<Column<T>>, maxWidth: number): number[] {
  const widths = [...natural];
  let over = widths.reduce((a, b) => a + b, 0) + GAP * Math.max(0, widths.length - 1) - maxWidth;
  const order = columns
    .map((c, i) => ({ c, i }))
    .filter(({ c }) => c.flexible)
    .sort((a, b) => (b.c.shrink ?? 1) - (a.c.shrink ?? 1) || b.i - a.i);
  for (const { c, i } of order) {
    if (over <= 0) break;
    const min = Math.min(widths[i]!, c.min ?? Math.max(10, c.header.length));
    const cut = Math.min(over, widths[i]! - min);
    widths[i]! -= cut;
    over -= cut;
  }
  return widths;
}

/** A human table on a TTY, fitted to its width; tab-separated raw values otherwise (like the code host's CLI). */
export function renderTable<T>(io: IO, rows: readonly T[], columns: ReadonlyArray<Column<T>>): void {
  if (!io.stdoutIsTTY) {
    for (const r of rows) io.out(columns.map((c) => sanitize((c.raw ?? c.value)(r)).replace(/\t/g, ' ')).join('\t'));
    return;
  }
  // Leave optional columns out, least useful first, while the table cannot fit otherwise.
  let shown = [...columns];
  let cells: string[][];
  let widths: number[];
  for (;;) {
    cells = rows.map((r) => shown.map((c) => sanitize(c.value(r))));
    const natural = shown.map((c, i) => Math.max(c.header.length, ...cells.map((row) => row[i]!.length)));
    widths = fitWidths(natural, shown, io.columns);
    const total = widths.reduce((a, b) => a + b, 0) + GAP * (widths.length - 1);
    const drop = shown
      .map((c, i) => ({ c, i }))
      .filter(({ c }) => c.optional)
      .sort((a, b) => (b.c.shrink ?? 1) - (a.c.shrink ?? 1) || b.i - a.i)[0];
    if (total <= io.columns || !drop) break;
    shown = shown.filter((_, i) => i !== drop.i);
  }
  const pad = (s: string, w: number, right?: boolean) => {
    const t = s.length > w ? s.slice(0, Math.max(0, w - 1)) + '…' : s;
    return right ? t.padStart(w) : t.padEnd(w);
  };
  const sep = ' '.repeat(GAP);
  const head = shown.map((c, i) => pad(c.header.toUpperCase(), widths[i]!, c.align === 'right')).join(sep);
  io.out(io.color ? `\u001b[1m${head.trimEnd()}\u001b[22m` : head.trimEnd());
  rows.forEach((row, r) => {
    const line = shown
      .map((c, i) => {
        const cell = pad(cells[r]![i]!, widths[i]!, c.align === 'right');
        return c.style && io.color ? c.style(cell, row) : cell;
      })
      .join(sep);
    io.out(line.trimEnd());
  });
}

/** One line of server data for a table cell or a field: line breaks folded, other controls in caret notation (terminal-text.ts). */
export function sanitize(s: string): string {
  return terminalText(s.replace(/\s*[\r\n]\s*/g, ' '));
}

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

/** The longest a timer can wait (Node's setTimeout limit, about 24.8 days): the default bound of a duration option. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Parses "90", "90s", "5m", "1h30m", "250ms" into milliseconds, at most `maxMs` (usage error otherwise). */
export function parseDuration(text: string, flag: string, maxMs = MAX_TIMER_MS): number {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number(t) * 1000;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(t); m; m = re.exec(t)) {
    const n = Number(m[1]);
    total += n * { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 'ms' | 's' | 'm' | 'h' | 'd'];
    matched = re.lastIndex;
  }
  if (!t || matched !== t.length) throw new UsageError(`${flag}: invalid duration "${text}" (examples: 30s, 5m, 1h30m)`);
  if (!(total <= maxMs)) throw new UsageError(`${flag}: "${text}" is too long (at most ${Math.floor(maxMs / 86_400_000)} days)`);
  return Math.round(total);
}

/** What waitTimeoutMs needs of the Context: the root options. */
type WithRootTimeout = { globals(): { timeout?: string } };

/**
 * The bound of a command's own wait (a sign-in, `ratelimit wait`) from its
 * `--timeout`, in ms. `--timeout` is also a root option (each request's
 * deadline), and commander gives a root option the value wherever it stands on
 * the command line: so the command's own value, else the root's, else
 * `byDefault` (undefined: no bound). The command's option must have no
 * commander default, or the root's value would never be seen.
 */
export function waitTimeoutMs(ctx: WithRootTimeout, own: string | undefined, byDefault: string): number;
export function waitTimeoutMs(ctx: WithRootTimeout, own: string | undefined): number | undefined;
export function waitTimeoutMs(ctx: WithRootTimeout, own: string | undefined, byDefault?: string): number | undefined {
  const text = own ?? ctx.globals().timeout ?? byDefault;
  return text === undefined ? undefined : parseDuration(text, '--timeout');
}

/** Parses a non-negative integer option. */
export function parseIntOption(text: string, flag: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(text.trim())) throw new UsageError(`${flag}: expected a whole number, got "${text}"`);
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new UsageError(`${flag}: "${text}" is too large`);
  if (n < min || n > max) {
    throw new UsageError(
      max === Number.MAX_SAFE_INTEGER ? `${flag}: must be at least ${min}, got ${n}` : `${flag}: must be between ${min} and ${max}, got ${n}`,
    );
  }
  return n;
}
