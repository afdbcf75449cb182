/**
 * Long human output through a pager on a terminal, as the code host's CLI and
 * git do. A command that may print pages of text marks itself with `paged()`;
 * before its run function runs (command-kit.ts's `runs`), `startPager` decides:
 *
 * - only when stdout is a terminal, and not with `--json`, `--ndjson`,
 *   `--jq` or `--template`;
 * - the command: `LANYARD_PAGER`, else the profile's `pager` setting, else
 *   `PAGER`, else `less -FRX` when `less` is on PATH (else none); an empty
 *   value or `cat` means no pager;
 * - split into words like a POSIX shell does (quotes, backslashes; no pipes,
 *   variables or other shell syntax: for those, point it at a script), and
 *   run without a shell, with `LESS=FRX` and `LV=-c` unless they are set.
 *
 * The run's IO is then a decorator of the process IO whose stdout goes into
 * the pager's standard input. A pager
 * that ends early (q) is a reader that went away, as with `| head`: the next
 * write ends Lanyard quietly, with the command's status (0, or the one it
 * decided before writing: `exitQuietly`). Ctrl-C reaches
 * both: the pager handles it, Lanyard cancels its work and waits for the
 * pager to end (`Pager.finish`, through the run's Output) before it exits, so
 * the terminal is left to the shell only once the pager has restored it.
 */
import type { Command } from 'commander';
import type { IO } from '../io.js';
import { UsageError } from '../errors/usage-error.js';
import { terminalText } from '../terminal/terminal-text.js';

/** The mark `paged()` leaves on a command (a property of the command, not a table of this module). */
const PAGED = Symbol('lanyard.paged');

/** Marks a command whose human output may be long: it goes through the pager on a terminal. */
export function paged(cmd: Command): Command {
  (cmd as Command & { [PAGED]?: true })[PAGED] = true;
  return cmd.addHelpText(
    'after',
    // One paragraph: the help wraps it to its width (help-wrap.ts).
    '\nOn a terminal the output goes through a pager: LANYARD_PAGER, else the `pager` setting, ' +
      'else PAGER, else `less -FRX`; LANYARD_PAGER= (empty) or `cat` turns it off. Never with ' +
      '--json, --ndjson, --jq or --template, nor into a pipe.',
  );
}

export function isPaged(cmd: Command): boolean {
  return (cmd as Command & { [PAGED]?: true })[PAGED] === true;
}

/**
 * Splits a command line into words as a POSIX shell does: blanks separate
 * words; '…' keeps everything; "…" keeps everything but `\` before `"`, `\`,
 * `$`, `` ` `` or a newline; `\` outside quotes escapes the next character.
 */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === ' ' || c === '\t' || c === '\n') {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new UsageError(`pager command: unterminated quote in "${line}"`);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      word ??= '';
      for (i++; ; i++) {
        if (i >= line.length) throw new UsageError(`pager command: unterminated quote in "${line}"`);
        const d = line[i]!;
        if (d === '"') break;
        if (d === '\\' && i + 1 < line.length && '"\\$`\n'.includes(line[i + 1]!)) word += line[++i];
        else word += d;
      }
    } else if (c === '\\') {
      if (i + 1 < line.length) word = (word ?? '') + line[++i];
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** Whether an executable named `name` is in one of PATH's directories. */
function onPath(name: string, path: string | undefined): boolean {
  const { accessSync, constants, statSync } = process.getBuiltinModule('node:fs');
  const { join } = process.getBuiltinModule('node:path');
  for (const dir of (path ?? '').split(':')) {
    if (!dir) continue;
    try {
      const p = join(dir, name);
      accessSync(p, constants.X_OK);
      if (statSync(p).isFile()) return true;
    } catch {
      /* not here */
    }
  }
  return false;
}

/**
 * The pager's words, or undefined for none: LANYARD_PAGER, the `pager`
 * setting, PAGER, then `less -FRX` if `less` is on PATH.
 */
export function pagerCommand(env: NodeJS.ProcessEnv, setting: string | undefined, hasLess = () => onPath('less', env.PATH)): string[] | undefined {
  const text = env.LANYARD_PAGER ?? setting ?? env.PAGER ?? (hasLess() ? 'less -FRX' : undefined);
  if (text === undefined) return undefined;
  const words = shellWords(text);
  // `cat` alone means none (as the code host's CLI reads it); `cat -A` is a pager like any other.
  if (!words.length || (words.length === 1 && words[0] === 'cat')) return undefined;
  return words;
}

/** What decides whether a command's output is paged. */
export interface PagerRequest {
  io: IO;
  env: NodeJS.ProcessEnv;
  /** The profile's `pager` setting. */
  setting?: string;
  /** Called when the pager has gone and a write finds it gone (main ends quietly, as for `| head`). */
  onGone: () => void;
  warn: (text: string) => void;
}

/** A pager's input, and its end (when the person has left it). */
interface PagerProcess {
  stdin: NodeJS.WritableStream;
  exited: Promise<void>;
}

interface PagingState {
  /** stdout while paging: what commands write goes through it into the pager. */
  sink: NodeJS.WritableStream & { end(cb?: () => void): unknown };
  /** The pager's input and end, once the first write has started it (undefined: printing directly). */
  pager?: Promise<PagerProcess | undefined>;
  /** The pager process is alive. */
  alive: boolean;
  /** The pager process has ended (the person left it). */
  gone: boolean;
  /** A write waiting for the pager to drain: what to do if it ends instead. */
  waiting?: () => void;
}

/** A pager a run's output goes into (one per run, held by its Output). */
export interface Pager {
  /** Whether the pager process runs (main's Ctrl-C handler then waits for it instead of forcing the exit). */
  running(): boolean;
  /** Ends the pager's input and waits until the person has left it (q); main calls this (through the Output) before exiting. */
  finish(): Promise<void>;
}

/** A run's paging: the IO its output goes through, and the pager behind it. */
export interface Paging {
  /** The run's IO: stdout (`print`, `out`, `stdout`) into the pager, the rest the IO it decorates. */
  io: IO;
  pager: Pager;
}

/**
 * The pager of a run printing for a person on a terminal, when one is set
 * (undefined: no paging): a new IO decorating `r.io` whose stdout goes into
 * the pager (`r.io` is left as it was). The pager starts at the first byte of
 * output, so a command that fails first, prompts or prints nothing never
 * starts one. A pager that cannot be started is said on stderr and the output
 * printed directly.
 */
export function startPager(r: PagerRequest): Paging | undefined {
  const { io, env } = r;
  if (!io.stdoutIsTTY) return undefined;
  const words = pagerCommand(env, r.setting);
  if (!words) return undefined;
  const state = paging(r, words, () => io.stdout);
  // What goes to the pager goes to the terminal: through the one sanitiser (terminal-text.ts).
  // Only the styled writer keeps colour: Lanyard's own, added after sanitising (io.ts printStyled).
  const write = (text: string, styled = false) => void state.sink.write(terminalText(text, styled && io.color));
  const pager: Pager = {
    running: () => state.alive,
    async finish() {
      // Everything written reaches the pager first (a write that finds it gone ends the process).
      await new Promise<void>((resolve) => state.sink.end(() => resolve()));
      const p = await state.pager;
      if (p) {
        p.stdin.end();
        await p.exited;
      }
    },
  };
  return { io: pagedIO(io, state.sink, write), pager };
}

/** `io` with its stdout going to `sink` (`write`: text into it); everything else is `io`'s. */
function pagedIO(io: IO, sink: NodeJS.WritableStream, write: (text: string, styled?: boolean) => void): IO {
  return Object.freeze({
    get stdout() {
      return sink as IO['stdout'];
    },
    get stderr() {
      return io.stderr;
    },
    get stdin() {
      return io.stdin;
    },
    stdoutIsTTY: io.stdoutIsTTY,
    stderrIsTTY: io.stderrIsTTY,
    get stdinIsTTY() {
      return io.stdinIsTTY;
    },
    get color() {
      return io.color;
    },
    get columns() {
      return io.columns;
    },
    get stderrColumns() {
      return io.stderrColumns;
    },
    out: (t: string) => write(t.endsWith('\n') ? t : `${t}\n`),
    err: (t: string) => io.err(t),
    print: (t: string) => write(t),
    printErr: (t: string) => io.printErr(t),
    printStyled: (t: string) => write(t, true),
    printErrStyled: (t: string) => io.printErrStyled(t),
  });
}

/**
 * The stream stdout becomes: its first write starts the pager; each write
 * goes into the pager (or to the terminal when it could not start), waiting
 * for it to drain; a write that finds the pager gone calls `onGone`.
 */
function paging(r: PagerRequest, words: string[], terminal: () => NodeJS.WritableStream): PagingState {
  const { Writable } = process.getBuiltinModule('node:stream') as typeof import('node:stream');
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      state.pager ??= openPager(r, words, state);
      state.pager.then((p) => {
        const out = p?.stdin ?? terminal();
        if (state.gone) return r.onGone();
        if (out.write(chunk)) return done();
        state.waiting = () => r.onGone();
        out.once('drain', () => {
          state.waiting = undefined;
          done();
        });
      }, done);
    },
  });
  const state: PagingState = { sink, alive: false, gone: false };
  return state;
}

/** Starts the pager (`words`) on the terminal; undefined, said on stderr, when it cannot start. */
async function openPager(r: PagerRequest, words: string[], state: PagingState): Promise<PagerProcess | undefined> {
  const { env } = r;
  const { spawn } = await import('node:child_process');
  const cannot = (why: string) => {
    r.warn(`could not start the pager "${words[0]}" (${why}); printing directly (LANYARD_PAGER= turns it off)`);
    return undefined;
  };
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(words[0]!, words.slice(1), {
      stdio: ['pipe', 'inherit', 'inherit'],
      env: { ...env, LESS: env.LESS ?? 'FRX', LV: env.LV ?? '-c' },
    });
  } catch (err) {
    // A command spawn refuses outright (an empty name).
    return cannot((err as Error).message);
  }
  const failed = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
    child.once('spawn', () => resolve(undefined));
    child.once('error', resolve);
  });
  if (failed) return cannot(failed.code ?? failed.message);
  state.alive = true;
  const stdin = child.stdin!;
  // A pager that has ended (q): the write that finds it gone ends the command, like EPIPE on a pipe.
  stdin.on('error', () => r.onGone());
  const exited = new Promise<void>((resolve) =>
    child.once('close', () => {
      state.alive = false;
      state.gone = true;
      state.waiting?.();
      resolve();
    }),
  );
  return { stdin, exited };
}

/**
 * Ends the process quietly, as when stdout's reader goes away (`| head`):
 * with the command's status once main knows it (process.exitCode), else
 * `decided`, the status the run said before writing what decided it
 * (Context.exitWith: a failed gate, a budget check), else 0 — a command that
 * succeeds ends with 0, as a reader that has read enough is no failure; a
 * gate that failed never passes because its log was cut.
 */
export function exitQuietly(decided?: number): never {
  process.exit(typeof process.exitCode === 'number' ? process.exitCode : (decided ?? 0));
}
