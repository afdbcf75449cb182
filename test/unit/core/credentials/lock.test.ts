/**
 * Parallel writers of the 0600 credentials file lose nothing: each store
 * below has its own FileLock (as separate processes do), and all write at
 * once. Without the lock, read-modify-write races drop entries.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../../../src/core/credentials/file-store.js';
import { FileLock, noLock } from '../../../../src/core/credentials/lock.js';
import { CredentialStoreError } from '../../../../src/core/errors.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-lock-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

async function writeAll(lock: () => ConstructorParameters<typeof FileCredentialStore>[1]): Promise<Record<string, string>> {
  const stores = Array.from({ length: 6 }, () => FileCredentialStore.inDir(dir, lock()));
  await Promise.all(stores.flatMap((s, i) => Array.from({ length: 5 }, (_, j) => s.set(`k${i}-${j}`, `v${i}-${j}`))));
  return JSON.parse(await readFile(join(dir, 'credentials.json'), 'utf8')) as Record<string, string>;
}

describe('FileLock', () => {
  it('thirty writes through six stores, each with its own lock: all kept', async () => {
    const data = await writeAll(() => new FileLock(dir));
    expect(Object.keys(data)).toHaveLength(30);
  });

  it('the check can fail: without a lock, writes are lost', async () => {
    const data = await writeAll(() => noLock);
    expect(Object.keys(data).length).toBeLessThan(30);
  });

  it('runs holders of one name one at a time, in and across instances', async () => {
    const a = new FileLock(dir);
    const b = new FileLock(dir);
    let inside = 0;
    let most = 0;
    const hold = async () => {
      inside++;
      most = Math.max(most, inside);
      await new Promise((r) => setImmediate(r));
      inside--;
    };
    await Promise.all([a, b, a, b, a].map((l) => l.withLock('x', hold)));
    expect(most).toBe(1);
  });

  it("a caller may give its own wait: a lock held elsewhere fails after it, not after the lock's own (live clock)", async () => {
    const holder = new FileLock(dir);
    const waiter = new FileLock(dir, { waitMs: 60_000 });
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inside = new Promise<void>((r) => (entered = r));
    const holding = holder.withLock('x', async () => {
      entered();
      await held;
    });
    await inside;
    const started = Date.now();
    await expect(waiter.withLock('x', async () => 'got it', { waitMs: 300 })).rejects.toThrow(/cannot take the lock/);
    expect(Date.now() - started).toBeLessThan(20_000);
    release();
    await holding;
    await expect(waiter.withLock('x', async () => 'got it', { waitMs: 300 })).resolves.toBe('got it');
  });

  // The library's promise: what it throws is a LanyardError; the CLI prints it as one line naming the path.
  it.each([
    ['the locks directory is a file', async () => writeFile(join(dir, 'locks'), ''), () => join(dir, 'locks')],
    ['the config directory is a file', async () => writeFile(join(dir, 'cfg'), ''), () => join(dir, 'cfg', 'locks')],
  ])('a file in the way (%s) is a CredentialStoreError naming the path', async (_what, prepare, path) => {
    await prepare();
    const store = new FileCredentialStore(join(path().replace(/[/\\]locks$/, ''), 'credentials.json'));
    const err = await store.set('k', 'v').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CredentialStoreError);
    expect((err as Error).message).toBe(`cannot create the lock directory ${path()}: a file is in the way`);
  });
});
