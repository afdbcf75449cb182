/** The terminal seam: streams, TTY flags and colour, swappable in tests. */
import type { Readable, Writable } from 'node:stream';

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

export function createProcessIO(env: NodeJS.ProcessEnv = process.env): IO {
  const stdoutIsTTY = !!process.stdout.isTTY;
  const stderrIsTTY = !!process.stderr.isTTY;
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  const forceColor = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0';
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    stdoutIsTTY,
    stderrIsTTY,
    stdinIsTTY: !!process.stdin.isTTY,
    color: !noColor && (forceColor || stderrIsTTY),
    columns: process.stdout.columns || 100,
    out: (t) => void process.stdout.write(t.endsWith('\n') ? t : t + '\n'),
    err: (t) => void process.stderr.write(t.endsWith('\n') ? t : t + '\n'),
  };
}
