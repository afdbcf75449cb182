/**
 * `--template TEXT`: Liquid templates (LiquidJS; loaded only when
 * `--template` is given). The JSON value is `data` (an object's fields are
 * also variables of their own). Beside Liquid's standard filters (join, date,
 * json, map, where, sort, default, truncate, …) the helpers of the code host's
 * CLI: `timeago`, `color`, `pluck`, and the `tablerow` / `tablerender` tags,
 * which line cells up in columns.
 */
import type { Context as LiquidContext, Liquid as LiquidEngine, TagToken, Template, TopLevelToken, Value as LiquidValue } from 'liquidjs';
import { CliError } from '../errors/cli-error.js';
import { relativeTime } from '../terminal/time-text.js';
import { UsageError } from '../errors/usage-error.js';
import type { JsonShaper } from './registry.js';
import { terminalText } from '../terminal/terminal-text.js';

const COLORS: Record<string, [number, number]> = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  blue: [34, 39],
  magenta: [35, 39],
  cyan: [36, 39],
  gray: [90, 39],
};

/** Liquid's "…, line:1, col:5" as "(line 1, column 5)". */
function position(message: string): string {
  return message.replace(/, line:(\d+), col:(\d+)$/, ' (line $1, column $2)').split('\n')[0]!;
}

/** Colour as `color` writes it on a colour terminal (an SGR whose ESC is the render's mark), and as printed. */
const COLOUR_MARK = /\u001b\[[0-9;]*m|\d{20}\[\d+m/g;

/** Rows of `{% tablerow %}` as aligned text: two spaces between columns on a terminal (colour takes no width), tabs in a pipe. */
function renderRows(rows: string[][], tty: boolean): string {
  if (!rows.length) return '';
  if (!tty) return rows.map((r) => `${r.join('\t')}\n`).join('');
  const width = (c: string) => [...c.replace(COLOUR_MARK, '')].length;
  const widths: number[] = [];
  for (const r of rows) {
    r.forEach((c, i) => {
      widths[i] = Math.max(widths[i] ?? 0, width(c));
    });
  }
  return rows.map((r) => `${r.map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(widths[i]! - width(c)))).join('  ')}\n`).join('');
}

/** The rows `{% tablerow %}` collected since the render began or the last `{% tablerender %}`. */
class RowBuffer {
  rows: string[][] = [];
  constructor(readonly tty: boolean) {}
  /** The rows as aligned text, and an empty buffer. */
  flush(): string {
    const text = renderRows(this.rows, this.tty);
    this.rows = [];
    return text;
  }
}

export async function templateShaper(source: string, o: { tty: boolean; color: boolean; now: () => number }): Promise<JsonShaper> {
  const liquidjs = await import('liquidjs');
  const liquid: LiquidEngine = new liquidjs.Liquid({ strictFilters: true, jsTruthy: false, ownPropertyOnly: true });
  const table = new RowBuffer(o.tty);
  registerTableTags(liquid, liquidjs, table);
  // On a colour terminal `color` writes its SGR with a mark no server can guess in place of ESC: the
  // whole result is sanitised (a server's ESC shown as ^[), then the marks become ESC again.
  const mark = o.color ? String(process.getBuiltinModule('node:crypto').randomBytes(8).readBigUInt64BE() + 10n ** 19n).padStart(20, '0') : '';
  registerFilters(liquid, { ...o, esc: mark });
  let parsed: Template[];
  try {
    parsed = liquid.parse(source);
  } catch (err) {
    throw new UsageError(`--template: ${position((err as Error).message)}`);
  }
  return {
    source: `template:${source}`,
    format(value) {
      table.rows = [];
      const scope: Record<string, unknown> =
        value && typeof value === 'object' && !Array.isArray(value) ? { ...(value as object), data: value } : { data: value };
      let text: string;
      try {
        text = String(liquid.renderSync(parsed, scope));
      } catch (err) {
        throw new CliError('template_error', `--template: ${position((err as Error).message)}`);
      }
      text += table.flush();
      return mark ? terminalText(text).split(`${mark}[`).join('\u001b[') : text;
    },
    styled: o.color,
  };
}

/** `{% tablerow a, b | filter, … %}` adds a row of cells to `table`; `{% tablerender %}` prints the rows so far, aligned. */
function registerTableTags(liquid: LiquidEngine, { Tag, Value }: typeof import('liquidjs'), table: RowBuffer): void {
  class TableRow extends Tag {
    private readonly cells: LiquidValue[] = [];
    constructor(token: TagToken, remain: TopLevelToken[], engine: LiquidEngine) {
      super(token, remain, engine);
      this.tokenizer.skipBlank();
      while (!this.tokenizer.end()) {
        this.cells.push(new Value(this.tokenizer.readFilteredValue(), engine));
        this.tokenizer.skipBlank();
        if (this.tokenizer.peek() !== ',') break;
        this.tokenizer.advance();
        this.tokenizer.skipBlank();
      }
      if (!this.tokenizer.end()) throw new Error(`tablerow: unexpected "${this.tokenizer.remaining()}"`);
      if (!this.cells.length) throw new Error('tablerow needs at least one cell');
    }
    *render(ctx: LiquidContext): Generator<unknown, void, unknown> {
      const row: string[] = [];
      for (const c of this.cells) {
        const v = yield c.value(ctx, false);
        const cell = v === undefined || v === null ? '' : String(v).replace(/[\t\n\r]+/g, ' ');
        // Sanitised here on a terminal, so that the columns are measured as they will be shown.
        row.push(table.tty ? terminalText(cell) : cell);
      }
      table.rows.push(row);
    }
  }
  class TableRender extends Tag {
    render(_ctx: LiquidContext, emitter: { write(html: unknown): void }): void {
      emitter.write(table.flush());
    }
  }
  liquid.registerTag('tablerow', TableRow);
  liquid.registerTag('tablerender', TableRender);
}

/** The code host's CLI's helpers: `timeago`, `color` (plain without colour), `pluck`. */
function registerFilters(liquid: LiquidEngine, o: { color: boolean; esc: string; now: () => number }): void {
  liquid.registerFilter('timeago', (v: unknown) => {
    const ms = typeof v === 'number' ? (v < 1e12 ? v * 1000 : v) : Date.parse(String(v));
    return Number.isNaN(ms) ? v : relativeTime(ms, o.now());
  });
  liquid.registerFilter('color', (v: unknown, name: string) => {
    const c = COLORS[String(name)];
    if (!c) throw new Error(`color: unknown colour "${name}" (one of ${Object.keys(COLORS).join(', ')})`);
    return o.color ? `${o.esc}[${c[0]}m${v}${o.esc}[${c[1]}m` : v;
  });
  liquid.registerFilter('pluck', (v: unknown, key: string) =>
    Array.isArray(v) ? v.map((x) => (x && typeof x === 'object' ? (x as Record<string, unknown>)[key] : undefined)) : v,
  );
}
