import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileReadError, readBoundedText } from '../../../../src/core/fs/bounded-read.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-bounded-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as FileReadError,
  );

describe('readBoundedText', () => {
  it('reads a regular file within its cap, and refuses one over it before reading', async () => {
    const f = join(dir, 'ok.txt');
    await writeFile(f, 'héllo');
    expect(await readBoundedText(f, { maxBytes: 6 })).toBe('héllo');
    const e = await failure(readBoundedText(f, { maxBytes: 5 }));
    expect(e).toBeInstanceOf(FileReadError);
    expect(e?.kind).toBe('too-large');
    expect(e?.reason).toBe('is larger than 5 bytes (6 bytes)');
  });

  it('refuses directories and devices', async () => {
    expect((await failure(readBoundedText(dir, { maxBytes: 10 })))?.reason).toBe('is a directory, not a file');
    expect((await failure(readBoundedText('/dev/zero', { maxBytes: 10 })))?.reason).toBe('is a device, not a file');
    expect((await failure(readBoundedText(join(dir, 'none'), { maxBytes: 10 })))?.reason).toBe('cannot be read (ENOENT)');
  });

  it('reads a FIFO once a writer comes, under the cap', async () => {
    const fifo = join(dir, 'fifo-ok');
    execFileSync('mkfifo', [fifo]);
    const reading = readBoundedText(fifo, { maxBytes: 64, timeoutMs: 10_000 });
    spawn('sh', ['-c', `sleep 0.3; printf 'a.b.c' > '${fifo}'`]);
    expect(await reading).toBe('a.b.c');
    const big = join(dir, 'fifo-big');
    execFileSync('mkfifo', [big]);
    const over = failure(readBoundedText(big, { maxBytes: 4, timeoutMs: 10_000 }));
    spawn('sh', ['-c', `printf '0123456789' > '${big}'`]);
    expect((await over)?.kind).toBe('too-large');
  });

  it('a FIFO with no writer: the signal ends the wait at once, and so does the time bound', async () => {
    const fifo = join(dir, 'fifo-idle');
    execFileSync('mkfifo', [fifo]);
    const ac = new AbortController();
    const started = performance.now();
    const p = failure(readBoundedText(fifo, { maxBytes: 64, signal: ac.signal }));
    setTimeout(() => ac.abort(), 200);
    expect((await p)?.kind).toBe('aborted');
    expect(performance.now() - started).toBeLessThan(2_000);
    const t = await failure(readBoundedText(fifo, { maxBytes: 64, timeoutMs: 300 }));
    expect(t?.kind).toBe('timeout');
  });
});
