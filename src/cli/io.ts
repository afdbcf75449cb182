/**
 * The terminal seam: streams, TTY flags and colour, swappable in tests. An IO
 * is never written into: what changes a run's stdout (the pager) is a new IO
 * decorating this one (output/pager.ts).
 */
import { fstatSync, writeSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { terminalText } from './terminal/terminal-text.js';

export interface IO {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly stdin: Readable;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly stdinIsTTY: boolean;
  /** Colour on stderr/stdout (off with NO_COLOR, a non-TTY, or --no-color). */
  readonly color: boolean;
  /** Width for human tables: COLUMNS when set, else the stdout terminal's width, else 80. */
  readonly columns: number;
  /** Width of the terminal stderr draws spinners and progress on; 0 when it is not a terminal. */
  readonly stderrColumns: number;
  /** Writes data to stdout (a newline is added when missing). */
  readonly out: (text: string) => void;
  /** Writes a diagnostic line to stderr (a newline is added when missing). */
  readonly err: (text: string) => void;
  /** Writes text to stdout as it is. */
  readonly print: (text: string) => void;
  /** Writes text to stderr as it is. */
  readonly printErr: (text: string) => void;
  /**
   * Writes text Lanyard coloured itself to stdout: its SGR colour stays on a
   * terminal, every other control is still shown. Only for text whose server
   * parts were sanitised (terminalText) before the colour was added: print,
   * out and err show every escape sequence, a server's colour included.
   */
  readonly printStyled: (text: string) => void;
  /** printStyled for stderr. */
  readonly printErrStyled: (text: string) => void;
  /**
   * Writes bytes to stdout as they are, where stdout is no terminal (a pipe, a
   * file, /dev/null): synchronously, without building the stdout stream, until
   * a command builds it (or a non-blocking pipe is full: the rest goes to the
   * stream). False, as Writable.write: wait for the stream's 'drain' before
   * writing more. Undefined on a terminal: use the stream.
   */
  readonly writeOut?: (bytes: Uint8Array) => boolean;
}

/**
 * Whether a write failed because stdout's reader went away: EPIPE on a pipe,
 * ECONNRESET when stdout is a socket (a parent that spawned us with socket
 * stdio — Node's child_process does — and closed its end).
 */
export function readerGone(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  return code === 'EPIPE' || code === 'ECONNRESET';
}

/**
 * isatty() without loading node:tty, which loads net and the whole stream
 * stack: only a character device can be a terminal, so a pipe or a file (what
 * scripts and CI give us) is answered by one fstat, and so is /dev/null (on
 * Linux a memory device, major 1, as bin/lanyard.js tells it too).
 */
function isTerminal(fd: number): boolean {
  try {
    const st = fstatSync(fd);
    if (!st.isCharacterDevice()) return false;
    if (process.platform === 'linux' && Math.floor(st.rdev / 256) % 4096 === 1) return false;
  } catch {
    return false;
  }
  return process.getBuiltinModule('node:tty').isatty(fd);
}

/**
 * A writer for a non-terminal fd: synchronous writes until a command builds
 * the stream (process.stdout/stderr write synchronously to pipes and files on
 * POSIX anyway), then through the stream so the order holds. A fd that is
 * non-blocking (EAGAIN) hands the rest to the stream. `onEpipe` decides what
 * a reader that went away means.
 */
function fdWriter(fd: number, stream: () => Writable, streamBuilt: () => boolean, onEpipe: () => void): (data: string | Uint8Array) => boolean {
  return (data) => {
    if (streamBuilt()) return stream().write(data);
    const buf = typeof data === 'string' ? Buffer.from(data) : data;
    let off = 0;
    while (off < buf.length) {
      try {
        off += writeSync(fd, buf, off);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') return stream().write(buf.subarray(off));
        if (readerGone(err)) {
          onEpipe();
          return true;
        }
        throw err;
      }
    }
    return true;
  };
}

/** COLUMNS as a width, when it is a positive whole number. */
function columnsFrom(text: string | undefined): number | undefined {
  const n = Number(text);
  return text && Number.isInteger(n) && n > 0 ? n : undefined;
}

const withNewline = (t: string) => (t.endsWith('\n') ? t : t + '\n');

/**
 * Colour: never with NO_COLOR or FORCE_COLOR=0 (or false: Node and chalk read
 * both as no colour), always with any other FORCE_COLOR, else when stderr is a
 * terminal.
 */
function colorFrom(env: NodeJS.ProcessEnv, stderrIsTTY: boolean): boolean {
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  const force = env.FORCE_COLOR;
  if (noColor || force === '0' || force === 'false') return false;
  return (force !== undefined && force !== '') || stderrIsTTY;
}

/**
 * process.stdout and process.stderr, and whether a command has built them
 * yet; building stdout installs the broken-pipe handler.
 */
function processStreams(onBrokenPipe: (() => void) | undefined) {
  let stdoutBuilt = false;
  let stderrBuilt = false;
  return {
    stdout: () => {
      if (!stdoutBuilt) {
        stdoutBuilt = true;
        process.stdout.on('error', (err: NodeJS.ErrnoException) => {
          if (readerGone(err) && onBrokenPipe) return onBrokenPipe();
          throw err;
        });
      }
      return process.stdout;
    },
    stderr: () => {
      stderrBuilt = true;
      return process.stderr;
    },
    stdoutBuilt: () => stdoutBuilt,
    stderrBuilt: () => stderrBuilt,
  };
}

/** `onBrokenPipe`: what to do when stdout's reader goes away (`lanyard … | head`); main.ts ends the process quietly. */
/**
 * What the process IO is made with, besides the environment: nothing writes
 * into it afterwards. `onBrokenPipe`: a reader that went away; `safeErr`:
 * what every diagnostic line goes through (main's redaction of secrets);
 * `noColor`: asked on each use (`--no-color`, known once the arguments are parsed).
 */
export interface ProcessIOOptions {
  onBrokenPipe?: () => void;
  safeErr?: (text: string) => string;
  noColor?: () => boolean;
}

export function createProcessIO(env: NodeJS.ProcessEnv = process.env, o: ProcessIOOptions = {}): IO {
  const { onBrokenPipe, safeErr = (t: string) => t, noColor = () => false } = o;
  // The process.stdin/stdout/stderr getters each build a stream (a few ms
  // apiece); TTY-ness is asked of the file descriptor instead, the streams are
  // built when a command first uses them, and until then out()/err()/print()
  // write to the file descriptor directly (terminals always get the stream).
  const stdoutIsTTY = isTerminal(1);
  const stderrIsTTY = isTerminal(2);
  const { stdout, stderr, stdoutBuilt, stderrBuilt } = processStreams(onBrokenPipe);
  const color = colorFrom(env, stderrIsTTY);
  const colorNow = () => color && !noColor();
  // A terminal gets every text through the one sanitiser (terminal-text.ts); a pipe or a file gets the bytes.
  // Only the styled writers keep colour, and only Lanyard's own (added after sanitising) reaches them.
  const onTerminal = (isTTY: boolean, write: (text: string) => void, styled = false) =>
    isTTY ? (text: string) => write(terminalText(text, styled && colorNow())) : write;
  const writeOut = fdWriter(1, stdout, () => stdoutBuilt() || stdoutIsTTY, onBrokenPipe ?? (() => undefined));
  // A closed stderr is not worth failing the command for.
  const writeErr = fdWriter(
    2,
    stderr,
    () => stderrBuilt() || stderrIsTTY,
    () => undefined,
  );
  const print = onTerminal(stdoutIsTTY, writeOut);
  const printErr = onTerminal(stderrIsTTY, writeErr);
  const io: IO = {
    get stdout() {
      return stdout();
    },
    get stderr() {
      return stderr();
    },
    get stdin() {
      return process.stdin;
    },
    stdoutIsTTY,
    stderrIsTTY,
    get stdinIsTTY() {
      return isTerminal(0);
    },
    get color() {
      return colorNow();
    },
    get columns() {
      return columnsFrom(env.COLUMNS) ?? ((stdoutIsTTY && stdout().columns) || 80);
    },
    get stderrColumns() {
      return stderrIsTTY ? (stderr() as NodeJS.WriteStream).columns || 0 : 0;
    },
    out: (t) => print(withNewline(t)),
    err: (t) => printErr(withNewline(safeErr(t))),
    print,
    printErr,
    printStyled: onTerminal(stdoutIsTTY, writeOut, true),
    printErrStyled: onTerminal(stderrIsTTY, writeErr, true),
    ...(stdoutIsTTY ? {} : { writeOut }),
  };
  return Object.freeze(io);
}
