/** Shared rendering: JSON, NDJSON and tables. */
import type { IO } from './io.js';
import { shaperOf } from './shape/registry.js';
import { stripControls } from './safe-text.js';

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

/** One line of server data for a table cell or a field: control characters removed (safe-text.ts), line breaks folded. */
export function sanitize(s: string): string {
  return stripControls(s.replace(/\s*[\r\n]\s*/g, ' '));
}
