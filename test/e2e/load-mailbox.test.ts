/**
 * A bulk import into the mailbox, as a shell loop runs it: the code host's
 * secondary limit (80 content-creating requests a minute) is not the
 * mailbox's, so 200 `mailbox store` in a row never wait for pacing; the
 * mailbox's own 429 with Retry-After is waited out, said on stderr and as a
 * CI event, and past the bound fails with exit 3 at once.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventLines, refuseNext, startWorld, type World } from './harness.js';

let world: World;
let api: string;

const message = (i: number) =>
  `From: Import <import@example.net>\r\nTo: alice@example.com\r\nSubject: bulk ${i}\r\nDate: Thu, 05 Nov 2026 12:00:00 +0000\r\n\r\nmessage ${i}\r\n`;
const store = (i: number, env: Record<string, string | undefined> = {}) =>
  world.run(['--profile', 'emulator', 'mailbox', 'store', '-'], { input: message(i), env: { CI: 'true', ...env }, timeoutMs: 60_000 });

beforeAll(async () => {
  world = await startWorld();
  api = `${world.url}/rest/v2/example.com/alice/mailbox`;
});
afterAll(async () => {
  await world?.stop();
});

describe('a bulk import into the mailbox', () => {
  it('200 `mailbox store` in a row: none waits for pacing, every message is stored', async () => {
    // A minute of the code host's content-creating budget already spent on this origin (its API shares the emulator's):
    // a store paced as if it were a hosting write would wait about a minute at once.
    const pacing = join(world.configDir, 'pacing.json');
    await writeFile(pacing, JSON.stringify({ version: 1, admitted: { [world.url]: Array(80).fill(Date.now()) } }));
    const ids = new Set<string>();
    const t0 = Date.now();
    let slowest = 0;
    for (let i = 0; i < 200; i++) {
      const t = Date.now();
      const r = await store(i);
      slowest = Math.max(slowest, Date.now() - t);
      expect(r.code, r.stderr).toBe(0);
      expect(eventLines(r.stderr), `store ${i}`).toEqual([]);
      ids.add(r.stdout.trim());
    }
    expect(ids.size).toBe(200);
    // No process waited: each is a start-up and one request, far below the 60 s a paced one would wait.
    expect(slowest).toBeLessThan(15_000);
    const stored = (await (await fetch(`${api}/label/0?count=500`)).json()) as string[];
    for (const id of ids) expect(stored).toContain(id);
    // Nothing was counted against the code host's budget either.
    expect((JSON.parse(await readFile(pacing, 'utf8')) as { admitted: Record<string, number[]> }).admitted[world.url]).toHaveLength(80);
    process.stderr.write(`200 mailbox store: ${Date.now() - t0} ms, slowest ${slowest} ms\n`);
  }, 300_000);

  it("the mailbox's 429 with Retry-After: waited out (stderr line, or a CI event) and the message stored once", async () => {
    const before = ((await (await fetch(`${api}/label/0?count=500`)).json()) as string[]).length;
    await refuseNext(world, { status: 429, retryAfter: '2s', path: '/rest/v2' });
    const t0 = Date.now();
    const r = await store(1000, { CI: undefined });
    expect(r.code, r.stderr).toBe(0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1900);
    expect(r.stderr).toMatch(
      /^! http:\/\/127\.0\.0\.1:\d+ answered HTTP 429 with Retry-After; waiting 2 s \(as the server asks; at most 60 s without --wait, Ctrl-C to stop\)$/m,
    );
    expect(((await (await fetch(`${api}/label/0?count=500`)).json()) as string[]).length).toBe(before + 1);

    await refuseNext(world, { status: 503, retryAfter: '1s', path: '/rest/v2' });
    const ci = await store(1001);
    expect(ci.code, ci.stderr).toBe(0);
    expect(eventLines(ci.stderr)).toEqual([
      expect.objectContaining({ event: 'rate_limit_wait', kind: 'server', status: 503, wait_ms: 1000, bound_ms: 60_000 }),
    ]);
  });

  it('past the bound (a Retry-After over --max-wait): exit 3 at once, nothing stored, when to retry on stderr', async () => {
    const before = ((await (await fetch(`${api}/label/0?count=500`)).json()) as string[]).length;
    await refuseNext(world, { status: 429, retryAfter: '120s', path: '/rest/v2' });
    const t0 = Date.now();
    const r = await store(1002, { CI: undefined });
    expect(r.code).toBe(3);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(r.stderr).toMatch(/^the server answered HTTP 429 with Retry-After \(Injected fault: HTTP 429\); retry after \d{4}-.*Z\ntry again at /);
    expect(r.stderr).toMatch(/rerun with --wait/);
    expect(((await (await fetch(`${api}/label/0?count=500`)).json()) as string[]).length).toBe(before);
  });
});
