/**
 * stdout's reader going away ends the command quietly (main's broken-pipe
 * exit) whether the write failed with EPIPE (a pipe) or ECONNRESET (a socket:
 * a parent that spawned the CLI with socket stdio, as Node's child_process
 * does, and closed its end with bytes unread). CI met the second: a failed
 * gate cut by its reader exited 1 with "unexpected error: ECONNRESET".
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createProcessIO, readerGone } from '../../../src/cli/io.js';

const gone = (code: string) => Object.assign(new Error(`${code}: write`), { code });

describe("stdout's reader gone", () => {
  const before = process.stdout.listeners('error');
  afterEach(() => {
    for (const l of process.stdout.listeners('error')) if (!before.includes(l)) process.stdout.off('error', l as () => void);
  });

  it.each(['EPIPE', 'ECONNRESET'])('a stream write failing with %s calls the broken-pipe exit, not an error', (code) => {
    const onBrokenPipe = vi.fn();
    const io = createProcessIO({}, { onBrokenPipe });
    void io.stdout; // builds the stream and its handler, as a command that streams does
    expect(() => process.stdout.emit('error', gone(code))).not.toThrow();
    expect(onBrokenPipe).toHaveBeenCalledTimes(1);
  });

  it('any other write error is still an error', () => {
    const io = createProcessIO({}, { onBrokenPipe: vi.fn() });
    void io.stdout;
    expect(() => process.stdout.emit('error', gone('ENOSPC'))).toThrow(/ENOSPC/);
  });

  it('readerGone: EPIPE and ECONNRESET, nothing else', () => {
    expect([gone('EPIPE'), gone('ECONNRESET'), gone('ENOSPC'), new Error('x'), undefined].map(readerGone)).toEqual([true, true, false, false, false]);
  });
});
