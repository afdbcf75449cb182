/** Fake IO streams with a switchable TTY flag (human vs script output). */
import { PassThrough, Readable } from 'node:stream';
import type { IO } from '../../src/cli/io.js';

export interface TestIO extends IO {
  stdoutText(): string;
  stderrText(): string;
}

export function createTestIO(
  options: { tty?: boolean; stdoutTTY?: boolean; stderrTTY?: boolean; stdin?: string; color?: boolean; columns?: number; stderrColumns?: number } = {},
): TestIO {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (c: Buffer) => out.push(c.toString()));
  stderr.on('data', (c: Buffer) => err.push(c.toString()));
  return {
    stdout,
    stderr,
    stdin: Readable.from(options.stdin !== undefined ? [Buffer.from(options.stdin)] : []),
    stdoutIsTTY: options.stdoutTTY ?? !!options.tty,
    stderrIsTTY: options.stderrTTY ?? !!options.tty,
    stdinIsTTY: false,
    color: !!options.color,
    columns: options.columns ?? 120,
    stderrColumns: options.stderrColumns ?? ((options.stderrTTY ?? options.tty) ? (options.columns ?? 120) : 0),
    out: (t) => void out.push(t.endsWith('\n') ? t : t + '\n'),
    err: (t) => void err.push(t.endsWith('\n') ? t : t + '\n'),
    print: (t) => void out.push(t),
    printErr: (t) => void err.push(t),
    printStyled: (t) => void out.push(t),
    printErrStyled: (t) => void err.push(t),
    stdoutText: () => out.join(''),
    stderrText: () => err.join(''),
  };
}
