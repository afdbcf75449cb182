/** The mail store survives a restart with the same --data-dir, and a torn journal line. */
import { afterEach, describe, expect, it } from 'vitest';
import { appendFile, mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWorld, type World } from './harness.js';

let world: World | undefined;
afterEach(async () => {
  await world?.stop();
  world = undefined;
});

const msg = 'From: a@example.net\r\nSubject: keep me\r\n\r\nstill here\r\n';

describe('mailbox persistence', () => {
  it('keeps messages, labels, markers and deletions across restarts; ignores a torn last journal line', async () => {
    const data = await mkdtemp(join(tmpdir(), 'lanyard-mbx-data-'));
    world = await startWorld({ emulatorArgs: ['--data-dir', data], process: true });
    const run = (args: string[], input?: string) => world!.run(['--profile', 'emulator', 'mailbox', ...args], { input });
    const id = (await run(['store', '-', '--label', '5', '--marker', 'seen'], msg)).stdout.trim();
    const seeded = (await run(['list'])).stdout.trim().split('\n');
    expect(seeded[0]).toBe(id);
    const gone = seeded[1]!;
    expect((await run(['delete', gone])).code).toBe(0);
    await world.stop();

    // A crash in the middle of an append leaves half a line behind.
    await appendFile(join(data, 'mailbox', 'journal.ndjson'), '{"op":"put","mb":"example.com/alice","rec":{"id":"trunc');
    world = await startWorld({ emulatorArgs: ['--data-dir', data], process: true });
    const after = (await run(['list'])).stdout.trim().split('\n');
    expect(after).toEqual(seeded.filter((x) => x !== gone));
    const meta = JSON.parse((await run(['get', id, '--json'])).stdout) as { message: { labels: number[]; markers: string[] } };
    expect(meta.message.labels).toEqual([0, 5]);
    expect(meta.message.markers).toEqual(['SEEN']);
    expect((await run(['raw', id])).stdout).toBe(msg);
    expect((await run(['raw', gone])).code).toBe(0);
    // New ids stay newer than the persisted ones.
    const later = (await run(['store', '-'], msg)).stdout.trim();
    expect((await run(['list', '--count', '1'])).stdout.trim()).toBe(later);
    expect(await readdir(join(data, 'mailbox'))).toEqual(expect.arrayContaining(['journal.ndjson', 'objects']));
  });
});
