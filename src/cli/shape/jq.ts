/**
 * `--jq EXPR`: jq's own language, run by jq-web (jq compiled to WebAssembly;
 * loaded only when `--jq` is given). The expression is compiled before any
 * request is made, so a typo costs nothing and leaves no state behind.
 */
import type { JqRuntime } from 'jq-web';
import { CliError } from '../errors/cli-error.js';
import { UsageError } from '../errors/usage-error.js';
import type { JsonShaper } from './registry.js';
import { terminalText } from '../terminal/terminal-text.js';

let runtime: Promise<JqRuntime> | undefined;

/** jq's runtime (≈ 0.3 s to instantiate the first time in a process). */
export function loadJq(): Promise<JqRuntime> {
  runtime ??= import('./jq-load.cjs').then((m) => m.runtime());
  return runtime;
}

interface JqFailure {
  exitCode?: number;
  /** The first `jq: error: …` message, without the prefix. */
  message: string;
  line?: number;
}

function failure(err: unknown): JqFailure {
  const e = err as { exitCode?: number; stderr?: string; message?: string };
  const text = e.stderr ?? e.message ?? String(err);
  const m = /jq: error: (.*?) at <top-level>, line (\d+):/.exec(text);
  if (m) return { exitCode: e.exitCode, message: m[1]!, line: Number(m[2]) };
  const first = /jq: error(?: \(at [^)]*\))?: (.*)/.exec(text)?.[1] ?? text.split('\n').find((l) => l.trim()) ?? 'failed';
  return { exitCode: e.exitCode, message: first.trim() };
}

const CHECK = 'def __lanyard_check: ';

/** Compiles `body` without running it: a function (referenced, or jq drops it unchecked) that is never called. */
function compileError(jq: JqRuntime, body: string, complete: boolean): JqFailure | undefined {
  try {
    jq.raw('null', complete ? `${CHECK}${body}\n; if false then __lanyard_check else empty end` : `${CHECK}${body}`, ['-n']);
    return undefined;
  } catch (err) {
    return failure(err);
  }
}

/** Line and column (1-based) of offset `i` in `text`. */
function lineCol(text: string, i: number): { line: number; column: number } {
  const before = text.slice(0, i);
  const line = before.split('\n').length;
  return { line, column: i - before.lastIndexOf('\n') };
}

/**
 * Where a compile error is. jq names the line; the column of a syntax error
 * is the shortest prefix of the expression that already fails the same way
 * (before it, the parser only runs out of input), found by bisection; the
 * column of an undefined name is where the name is used.
 */
function locate(jq: JqRuntime, expr: string, f: JqFailure): { line: number; column?: number } {
  const lines = expr.split('\n').length;
  const line = Math.min(f.line ?? 1, lines);
  if (f.message.startsWith('syntax error')) {
    let lo = 1;
    let hi = expr.length;
    if (compileError(jq, expr, false)?.message !== f.message) return { line };
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compileError(jq, expr.slice(0, mid), false)?.message === f.message) hi = mid;
      else lo = mid + 1;
    }
    const at = lineCol(expr, lo - 1);
    return at.line === line ? at : { line };
  }
  const name = /^(\$?[A-Za-z_][\w:]*)(?:\/(\d+))? is not defined/.exec(f.message);
  if (name) {
    const n = name[1]!.replace(/\$/g, '\\$');
    const re = name[1]!.startsWith('$') ? new RegExp(`${n}\\b`) : new RegExp(`(?<![.$\\w])${n}\\b${name[2] && name[2] !== '0' ? '\\s*\\(' : ''}`);
    const m = re.exec(expr);
    if (m) return lineCol(expr, m.index);
  }
  return { line };
}

function describe(f: JqFailure): string {
  // jq-web's `input` past the last input raises a bare "break"; jq says "No more inputs".
  if (f.message === 'break') return 'No more inputs (the response is the only input: it is ".")';
  return f.message
    .replace(/ \(Unix shell quoting issues\?\)/, '')
    .replace(/^syntax error, unexpected (end of file|';')(, expecting .*)?$/, 'syntax error, unexpected end of the expression');
}

/** A usage error (exit 2) naming the line and column, when `expr` does not compile. */
export function checkJq(jq: JqRuntime, expr: string): void {
  if (!expr.trim()) throw new UsageError('--jq: the expression is empty');
  const f = compileError(jq, expr, true);
  if (!f) return;
  const exprLines = expr.split('\n').length;
  const atEnd = (f.line ?? 1) > exprLines;
  const where = atEnd ? lineCol(expr, expr.length) : locate(jq, expr, f);
  const column = 'column' in where && where.column !== undefined ? `, column ${where.column}` : '';
  const message = atEnd ? 'syntax error, unexpected end of the expression' : describe(f);
  throw new UsageError(`--jq: ${message} (line ${where.line}${column})`);
}

/**
 * The shaper: strings print raw (like `jq -r`), other values as compact JSON
 * in a pipe and indented on a terminal (like the code host's CLI). An error
 * raised while running (`error("…")`, `.a` of a number) is exit 1. The
 * program always runs on the exact data; on a colour terminal what it prints
 * is made safe instead (`colourSafe`).
 */
export async function jqShaper(expr: string, o: { pretty: boolean; color: boolean }): Promise<JsonShaper> {
  const jq = await loadJq();
  checkJq(jq, expr);
  const flags = ['-r', ...(o.pretty ? [] : ['-c']), ...(o.color ? ['-C'] : [])];
  const run = (json: string, program: string, f: string[]): string => {
    let out: string | undefined;
    try {
      out = jq.raw(json, program, f);
    } catch (err) {
      const e = failure(err);
      // A compile error here is one the check missed: still the expression's fault.
      if (e.exitCode === 3) throw new UsageError(`--jq: ${describe(e)}`);
      throw new CliError('jq_error', `--jq: ${describe(e)}`);
    }
    return out === undefined ? '' : `${out}\n`;
  };
  return {
    source: `jq:${expr}`,
    styled: o.color,
    format: (value) => (o.color ? colourSafe(run, expr, value, flags) : run(JSON.stringify(value) ?? 'null', expr, [...flags])),
  };
}

/**
 * `expr`'s output for a colour terminal, through a writer that keeps colour
 * (SGR) and shows every other control: the results are collected exactly
 * (`[EXPR]`, compact), the strings among them (printed raw) are sanitised,
 * and jq prints them all again with its colour. Every other string is inside
 * JSON, whose escaping shows a server's ESC as `\u001b`: jq's colour is the
 * only escape left.
 */
function colourSafe(run: (json: string, program: string, f: string[]) => string, expr: string, value: unknown, flags: string[]): string {
  // On a line of its own: a trailing comment in EXPR must not swallow the bracket.
  const results = JSON.parse(run(JSON.stringify(value) ?? 'null', `[${expr}\n]`, ['-c'])) as unknown[];
  const safe = results.map((r) => (typeof r === 'string' ? terminalText(r) : r));
  return run(JSON.stringify(safe), '.[]', flags);
}
