/** The terminal seam: streams, TTY flags and colour, swappable in tests. */
import type { Readable, Writable } from 'node:stream';
import { isatty } from 'node:tty';

export interface IO {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  stdinIsTTY: boolean;
  /** Colour on stderr/stdout (off with NO_COLOR, a non-TTY, or --no-color). */
  color: boolean;
  /** Terminal width for tables. */
  columns: number;
  /** Writes data to stdout. */
  out(text: string): void;
  /** Writes a diagnostic line to stderr. */
  err(text: string): void;
}

/** `onBrokenPipe`: what to do when stdout's reader goes away (`lanyard … | head`); main.ts ends the process quietly. */
export function createProcessIO(env: NodeJS.ProcessEnv = process.env, onBrokenPipe?: () => void): IO {
  // The process.stdin/stdout/stderr getters each build a stream (a few ms
  // apiece); TTY-ness is asked of the file descriptor instead, and the
  // streams are built when a command first uses them.
  const stdoutIsTTY = isatty(1);
  const stderrIsTTY = isatty(2);
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  const forceColor = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0';
  let stdoutReady = false;
  const stdout = () => {
    if (!stdoutReady) {
      stdoutReady = true;
      process.stdout.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'EPIPE' && onBrokenPipe) return onBrokenPipe();
        throw err;
      });
    }
    return process.stdout;
  };
  return {
    get stdout() {
      return stdout();
    },
    get stderr() {
      return process.stderr;
    },
    get stdin() {
      return process.stdin;
    },
    stdoutIsTTY,
    stderrIsTTY,
    stdinIsTTY: isatty(0),
    color: !noColor && (forceColor || stderrIsTTY),
    get columns() {
      return stdout().columns || 100;
    },
    out: (t) => void stdout().write(t.endsWith('\n') ? t : t + '\n'),
    err: (t) => void process.stderr.write(t.endsWith('\n') ? t : t + '\n'),
  };
}
