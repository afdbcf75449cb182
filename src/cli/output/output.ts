/** Shared rendering: JSON, NDJSON and tables. */
import type { IO } from '../io.js';
import type { JsonShaper } from '../shape/registry.js';
import type { Pager } from './pager.js';
import { terminalText } from '../terminal/terminal-text.js';
import { displayWidth, padToWidth } from './text-width.js';

/** What a command's output is for: a person (tables, text), or a program (`--json`, `--ndjson`). */
export type OutputFormat = 'human' | 'json' | 'ndjson';

/** What a run's Output is made of (command-kit.ts's commandOutput). */
export interface OutputChoice {
  format?: OutputFormat;
  /** What `--jq` / `--template` make of the JSON. */
  shaper?: JsonShaper;
  /** The pager stdout goes into (pager.ts). */
  pager?: Pager;
}

/**
 * The output of one run: made from `--json`, `--ndjson`, `--jq`,
 * `--template` and the pager when the run's context is made (command-kit.ts's
 * `runs`), and reached by the run function as `ctx.output`. The run function says what it has — a document, rows with
 * columns, the items of a stream — and the Output decides how they are shown.
 * Everything it writes goes through the IO, whose terminal writes pass the
 * one sanitiser (terminal-text.ts).
 */
export class Output {
  readonly format: OutputFormat;
  readonly #shaper: JsonShaper | undefined;
  readonly #pager: Pager | undefined;

  constructor(
    readonly io: IO,
    o: OutputChoice = {},
  ) {
    this.format = o.format ?? 'human';
    this.#shaper = o.shaper;
    this.#pager = o.pager;
  }

  /** A program reads the output (`--json`, `--ndjson`, `--jq`, `--template`): notes meant for a person are left out. */
  get forProgram(): boolean {
    return this.format !== 'human';
  }

  /** `--jq` or `--template` shape the JSON. */
  get shaped(): boolean {
    return this.#shaper !== undefined;
  }

  /** What shapes the JSON (`jq:EXPRESSION`, `template:TEXT`), if anything. */
  get shapedBy(): string | undefined {
    return this.#shaper?.source;
  }

  /**
   * A document: JSON (or what `--jq` / `--template` make of it) for a
   * program; else what `human` prints. Without `human` it is JSON either way
   * (`lanyard api`), `compact` on one line.
   */
  document<T, R = void>(value: T, human?: (value: T) => R, o: { compact?: boolean } = {}): R | undefined {
    if (human && this.format === 'human') return human(value);
    if (this.#shaper) this.#printShaped(this.#shaper.format(value));
    else this.io.out(JSON.stringify(value, null, o.compact ? 0 : 2));
    return undefined;
  }

  /** Rows: the JSON value (the rows unless `json` is given) for a program, else a table (renderTable). */
  rows<T>(rows: readonly T[], columns: ReadonlyArray<Column<T>>, json: unknown = rows): void {
    this.document(json, () => renderTable(this.io, rows, columns));
  }

  /**
   * One item of a stream as it arrives: a line of NDJSON with `--ndjson` (or
   * what `--jq` / `--template` make of it), else `human(item)` (without
   * `human`, the NDJSON line either way).
   */
  item<T>(value: T, human?: (value: T) => void): void {
    if (human && this.format !== 'ndjson') human(value);
    else this.#printShaped(this.line(value));
  }

  /** `--jq` / `--template` coloured their result on a colour terminal (the exact data shaped, what they print made safe: jq.ts, template.ts). */
  get styled(): boolean {
    return !!this.#shaper?.styled;
  }

  /** Text of this output (`line`s) fit for stdout: on a terminal through the sanitiser, keeping only the shaper's own colour. */
  forStdout(text: string): string {
    return this.io.stdoutIsTTY ? terminalText(text, this.styled && this.io.color) : text;
  }

  #printShaped(text: string): void {
    if (this.styled) this.io.printStyled(text);
    else this.io.print(text);
  }

  /** Items all at hand: one JSON array (`--json`), a line each (`--ndjson`), else `human(item)` each. */
  items<T>(values: readonly T[], human: (value: T) => void): void {
    if (this.format === 'json') this.document(values);
    else for (const v of values) this.item(v, human);
  }

  /** The text of one stream item as `--ndjson` writes it. */
  line(value: unknown): string {
    if (!this.#shaper) return JSON.stringify(value) + '\n';
    const text = this.#shaper.format(value);
    return text && !text.endsWith('\n') ? text + '\n' : text;
  }

  /** Whether a pager shows the output (main's Ctrl-C handler then waits for it). */
  pagerRunning(): boolean {
    return !!this.#pager?.running();
  }

  /** Waits until the person has left the pager, if there is one (main, before exiting). */
  async finish(): Promise<void> {
    await this.#pager?.finish();
  }
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

/** The narrowest a flexible column is cut to when nothing else is left to give: its header, at least 4 columns. */
const floorOf = <T>(c: Column<T>) => Math.max(4, displayWidth(c.header));

/**
 * Widths that fit `maxWidth` (cells + gaps): flexible columns are cut, the
 * highest `shrink` first, each down to its minimum before the next one gives
 * anything (`belowMin`: down to its header's width, when leaving columns out
 * was not enough). When even that is not enough the table stays wider (fixed
 * columns are never cut).
 */
export function fitWidths<T>(natural: readonly number[], columns: ReadonlyArray<Column<T>>, maxWidth: number, belowMin = false): number[] {
  const widths = [...natural];
  let over = widths.reduce((a, b) => a + b, 0) + GAP * Math.max(0, widths.length - 1) - maxWidth;
  const order = columns
    .map((c, i) => ({ c, i }))
    .filter(({ c }) => c.flexible)
    .sort((a, b) => (b.c.shrink ?? 1) - (a.c.shrink ?? 1) || b.i - a.i);
  for (const { c, i } of order) {
    if (over <= 0) break;
    const min = Math.min(widths[i]!, belowMin ? floorOf(c) : (c.min ?? Math.max(10, c.header.length)));
    const cut = Math.min(over, widths[i]! - min);
    widths[i]! -= cut;
    over -= cut;
  }
  return widths;
}

/**
 * The columns shown on a terminal `maxWidth` wide and their widths, as gh
 * fits its tables: flexible columns are cut to their minimum (the least
 * useful first), then optional ones left out (the highest `shrink` first),
 * then flexible columns cut below their minimum. Widths are display widths.
 */
function layout<T>(rows: readonly T[], columns: ReadonlyArray<Column<T>>, maxWidth: number) {
  const all = rows.map((r) => columns.map((c) => sanitize(c.value(r))));
  const naturalAll = columns.map((c, i) => all.reduce((w, row) => Math.max(w, displayWidth(row[i]!)), displayWidth(c.header)));
  let kept = columns.map((_, i) => i);
  const total = (widths: number[]) => widths.reduce((a, b) => a + b, 0) + GAP * (widths.length - 1);
  for (;;) {
    const shown = kept.map((i) => columns[i]!);
    const natural = kept.map((i) => naturalAll[i]!);
    let widths = fitWidths(natural, shown, maxWidth);
    const drop = shown
      .map((c, k) => ({ c, k }))
      .filter(({ c }) => c.optional)
      .sort((a, b) => (b.c.shrink ?? 1) - (a.c.shrink ?? 1) || b.k - a.k)[0];
    if (total(widths) > maxWidth && drop) {
      kept = kept.filter((_, k) => k !== drop.k);
      continue;
    }
    if (total(widths) > maxWidth) widths = fitWidths(natural, shown, maxWidth, true);
    return { shown, cells: all.map((row) => kept.map((i) => row[i]!)), widths };
  }
}

/** A human table on a TTY, fitted to its width; tab-separated raw values otherwise (like the code host's CLI). */
export function renderTable<T>(io: IO, rows: readonly T[], columns: ReadonlyArray<Column<T>>): void {
  if (!io.stdoutIsTTY) {
    for (const r of rows) io.out(pipeRow(columns, r));
    return;
  }
  const { shown, cells, widths } = layout(rows, columns, io.columns);
  const sep = ' '.repeat(GAP);
  const head = shown.map((c, i) => padToWidth(c.header.toUpperCase(), widths[i]!, c.align === 'right')).join(sep);
  // Colour is added to cells already sanitised: the styled writer keeps only it.
  io.printStyled(`${io.color ? `\u001b[1m${head.trimEnd()}\u001b[22m` : head.trimEnd()}\n`);
  rows.forEach((row, r) => {
    const line = shown
      .map((c, i) => {
        const cell = padToWidth(cells[r]![i]!, widths[i]!, c.align === 'right');
        return c.style && io.color ? c.style(cell, row) : cell;
      })
      .join(sep);
    io.printStyled(`${line.trimEnd()}\n`);
  });
}

/** A line break with the white space around it (one space in a cell). */
const LINE_BREAK = /\s*[\r\n]\s*/g;

/**
 * A row of tab-separated output into a pipe: raw values, each `sanitize`d
 * with its tabs made spaces, so a field stays a field and a row a line.
 * The controls are shown in one pass over the joined line (terminalText
 * keeps tabs): the same text as cell by cell, at half the cost.
 */
export function pipeRow<T>(columns: ReadonlyArray<Column<T>>, row: T): string {
  return terminalText(columns.map((c) => (c.raw ?? c.value)(row).replace(LINE_BREAK, ' ').replace(/\t/g, ' ')).join('\t'));
}

/** One line of server data for a table cell or a field: line breaks folded, other controls in caret notation (terminal-text.ts). */
export function sanitize(s: string): string {
  return terminalText(s.replace(LINE_BREAK, ' '));
}
