/**
 * A bulk import into the mailbox: the code host's secondary limit (80
 * content-creating requests a minute) is not the mailbox's, so stores never
 * wait for pacing — 40 `mailbox store` processes in a row, as a shell loop
 * runs them, and 200 in a row through the library (its HTTP client over real
 * HTTP to the in-process emulator), each with the code host's minute already
 * spent on the same origin and no pacing wait allowed. The mailbox's own 429
 * with Retry-After is waited out, said on stderr and as a CI event, and past
 * the bound fails with exit 3 at once.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimitError } from '../../src/core/errors.js';
import { HttpClient } from '../../src/core/http/client.js';
import { CONTENT_CREATING_WINDOWS, credentialIdentity, MemoryPacing, pacingKey } from '../../src/core/http/pacing.js';
import { MailboxClient } from '../../src/core/mailbox/client.js';
import { defaultRateLimitPolicy } from '../../src/core/ratelimit/policy.js';
import { systemClock } from '../../src/core/system-clock.js';
import { startEmulator } from '../../src/emulator/index.js';
import { eventLines, refuseNext, startWorld, type World } from './harness.js';

let world: World;
let api: string;
let token: string;

const message = (i: number) =>
  `From: Import <import@example.net>\r\nTo: alice@example.com\r\nSubject: bulk ${i}\r\nDate: Thu, 05 Nov 2026 12:00:00 +0000\r\n\r\nmessage ${i}\r\n`;
const store = (i: number, env: Record<string, string | undefined> = {}) =>
  world.run(['--profile', 'emulator', 'mailbox', 'store', '-'], { input: message(i), env: { CI: 'true', ...env }, timeoutMs: 60_000 });

beforeAll(async () => {
  world = await startWorld();
  api = `${world.url}/rest/v2/example.com/alice/mailbox`;
  token = ((await world.admin('info', undefined, 'GET')) as { hosting: { personalToken: string } }).hosting.personalToken;
});
afterAll(async () => {
  await world?.stop();
});

describe('a bulk import into the mailbox', () => {
  it('40 `mailbox store` processes in a row: none waits for pacing (none is allowed to), every message is stored', async () => {
    // A minute of the token's content-creating budget already spent on this origin (its API shares the emulator's):
    // a store paced as if it were a hosting write would wait about a minute, and with --max-wait 0 fail at once.
    const pacing = join(world.configDir, 'pacing.json');
    const key = pacingKey({ origin: world.url, identity: await credentialIdentity(world.url, `Bearer ${token}`) });
    await writeFile(pacing, JSON.stringify({ version: 1, admitted: { [key]: Array(80).fill(Date.now()) } }));
    const ids = new Set<string>();
    const t0 = Date.now();
    let slowest = 0;
    for (let i = 0; i < 40; i++) {
      const t = Date.now();
      const r = await store(i, { LANYARD_RATE_LIMIT_MAX_WAIT: '0' });
      slowest = Math.max(slowest, Date.now() - t);
      expect(r.code, r.stderr).toBe(0);
      expect(eventLines(r.stderr), `store ${i}`).toEqual([]);
      ids.add(r.stdout.trim());
    }
    expect(ids.size).toBe(40);
    // No process waited: each is a start-up and one request, far below the 60 s a paced one would wait.
    expect(slowest).toBeLessThan(15_000);
    const stored = (await (await fetch(`${api}/label/0?count=500`)).json()) as string[];
    for (const id of ids) expect(stored).toContain(id);
    // Nothing was counted against the code host's budget either.
    expect((JSON.parse(await readFile(pacing, 'utf8')) as { admitted: Record<string, number[]> }).admitted[key]).toHaveLength(80);
    // The control: a hosting write from the same config directory is paced, and allowed no wait, refused at once.
    const post = await world.run(['--profile', 'emulator', 'api', '-X', 'POST', '/user/repos', '-f', 'name=never'], {
      env: { CI: 'true', LANYARD_RATE_LIMIT_MAX_WAIT: '0', LANYARD_TOKEN: token },
    });
    expect(post.code, post.stderr).toBe(3);
    expect(post.stderr).toMatch(/^content-creating requests to .* are paced/);
    process.stderr.write(`40 mailbox store: ${Date.now() - t0} ms, slowest ${slowest} ms\n`);
  }, 120_000);

  it('200 stores in a row through the library: no pacing wait, every message stored; a hosting POST on that origin is paced', async () => {
    const emu = await startEmulator();
    const pacing = new MemoryPacing();
    const waits: unknown[] = [];
    const http = new HttpClient({
      clock: systemClock,
      userAgent: 'lanyard/test',
      hostingApis: [emu.urls.hosting.api],
      pacing,
      onPacingWait: (w) => waits.push(w),
      rateLimitPolicy: { ...defaultRateLimitPolicy, serverWaitMs: 0 },
    });
    try {
      // The minute's 80 already spent on the origin, counted as the client counts (a margin longer).
      const counted = CONTENT_CREATING_WINDOWS.map((w) => ({ limit: w.limit, windowMs: w.windowMs + 1000 }));
      for (let i = 0; i < 80; i++) await pacing.reserve(new URL(emu.url).origin, Date.now(), counted);
      const mailbox = new MailboxClient(http, { baseUrl: emu.url, domain: 'example.com', user: 'alice' });
      const ids = new Set<string>();
      for (let i = 0; i < 200; i++) ids.add(await mailbox.store(new TextEncoder().encode(message(i))));
      expect(waits).toEqual([]);
      expect(ids.size).toBe(200);
      const stored = (await (await fetch(`${mailbox.apiUrl}/label/0?count=500`)).json()) as string[];
      for (const id of ids) expect(stored).toContain(id);
      const post = http.request({ method: 'POST', url: `${emu.urls.hosting.api}/user/repos`, json: { name: 'never' } });
      await expect(post).rejects.toBeInstanceOf(RateLimitError);
      await expect(post).rejects.toMatchObject({ kind: 'pacing' });
    } finally {
      await http.close();
      await emu.stop();
    }
  }, 60_000);

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
