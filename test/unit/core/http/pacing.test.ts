/**
 * Pacing shared between processes: two stores over one file (as two
 * processes would have) count the same admissions; the rule itself with an
 * injected clock; a damaged or unusable file never fails a request.
 */
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileLock } from '../../../../src/core/credentials/lock.js';
import { PacingGate } from '../../../../src/core/http/guards.js';
import { admit, CONTENT_CREATING_WINDOWS, credentialIdentity, FilePacing, MemoryPacing, pacingKey } from '../../../../src/core/http/pacing.js';
import { FakeClock } from '../../../fakes/clock.js';

const API = 'https://api.example.com';
/** The file's record of requests without a credential to API. */
const ANON = `${API}:anonymous`;
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-pacing-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A store as one process would open it: its own lock object over the shared directory. */
const processStore = (o: ConstructorParameters<typeof FilePacing>[2] = {}) => new FilePacing(join(dir, 'pacing.json'), new FileLock(dir), o);

describe('admit', () => {
  const t0 = Date.UTC(2026, 10, 23, 12);
  it('waits for the admission that leaves the fullest window first', () => {
    const minute = Array.from({ length: 80 }, (_, i) => t0 - 50_000 + i);
    expect(admit(minute, t0, CONTENT_CREATING_WINDOWS)).toEqual({ times: minute, waitMs: 10_000 });
    // 500 in the hour, spread so the minute has room: the hour decides.
    const hour = Array.from({ length: 500 }, (_, i) => t0 - 3_000_000 + i * 1000);
    expect(admit(hour, t0, CONTENT_CREATING_WINDOWS).waitMs).toBe(600_000);
  });
  it('admits and records now when every window has room, forgetting what no window can see', () => {
    const r = admit([t0 - 4_000_000, t0 - 1000, t0 + 9_000_000], t0, CONTENT_CREATING_WINDOWS);
    expect(r).toEqual({ times: [t0 - 1000, t0], waitMs: 0 });
  });
});

describe('FilePacing (two processes over one file)', () => {
  it("the second process waits for the first's admissions (80 a minute in all, not 80 each)", async () => {
    const clock = new FakeClock();
    const a = new PacingGate(processStore(), CONTENT_CREATING_WINDOWS, clock);
    const b = new PacingGate(processStore(), CONTENT_CREATING_WINDOWS, clock);
    for (let i = 0; i < 40; i++) {
      await a.acquire(API);
      await b.acquire(API);
      clock.advance(100);
    }
    expect(clock.sleeps).toEqual([]);
    const waits: number[] = [];
    await b.acquire(API, undefined, (ms) => waits.push(ms));
    // 80 admitted in 4 s (two at each 100 ms step): the oldest leaves the minute 56 s from now.
    expect(waits).toEqual([60_000 - 4000]);
    // Another origin is counted apart.
    await a.acquire('https://uploads.example.com');
    expect(waits).toHaveLength(1);
  });

  it('parallel admissions at one instant admit exactly the limit, across stores', async () => {
    const now = Date.UTC(2026, 10, 23, 12);
    const stores = [processStore(), processStore(), processStore()];
    const waits = await Promise.all(Array.from({ length: 30 }, (_, i) => stores[i % 3]!.reserve(API, now, [{ limit: 20, windowMs: 60_000 }])));
    expect(waits.filter((w) => w === 0)).toHaveLength(20);
    expect(waits.filter((w) => w === 60_000)).toHaveLength(10);
    const file = JSON.parse(await readFile(join(dir, 'pacing.json'), 'utf8'));
    expect(file).toEqual({ version: 1, admitted: { [ANON]: Array(20).fill(now) } });
    expect((await stat(join(dir, 'pacing.json'))).mode & 0o777).toBe(0o600);
  });

  it('a per-process store would not have waited (the test can fail)', async () => {
    const clock = new FakeClock();
    const a = new PacingGate(new MemoryPacing(), CONTENT_CREATING_WINDOWS, clock);
    const b = new PacingGate(new MemoryPacing(), CONTENT_CREATING_WINDOWS, clock);
    for (let i = 0; i < 80; i++) await a.acquire(API);
    await b.acquire(API);
    expect(clock.sleeps).toEqual([]);
  });

  it('a corrupt or foreign file starts the count afresh and is replaced', async () => {
    for (const text of ['{"version":1,"admitted":{"https://api.example.com":[1,2', '[]', '{"version":2}']) {
      await writeFile(join(dir, 'pacing.json'), text);
      const now = Date.UTC(2026, 10, 23, 12);
      expect(await processStore().reserve(API, now, CONTENT_CREATING_WINDOWS)).toBe(0);
      expect(JSON.parse(await readFile(join(dir, 'pacing.json'), 'utf8'))).toEqual({ version: 1, admitted: { [ANON]: [now] } });
    }
  });

  it('a file that cannot be used falls back to this process, said once', async () => {
    if (process.getuid?.() === 0) {
      // root ignores modes: make the path a directory instead.
      await rm(join(dir, 'pacing.json'), { force: true });
      await import('node:fs/promises').then((f) => f.mkdir(join(dir, 'pacing.json')));
    } else {
      await writeFile(join(dir, 'pacing.json'), '{}');
      await chmod(dir, 0o500);
    }
    const said: string[] = [];
    const store = processStore({ onFallback: (why) => said.push(why) });
    const now = Date.UTC(2026, 10, 23, 12);
    const w = [{ limit: 2, windowMs: 60_000 }];
    expect(await store.reserve(API, now, w)).toBe(0);
    expect(await store.reserve(API, now, w)).toBe(0);
    expect(await store.reserve(API, now, w)).toBe(60_000);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/pacing content-creating requests in this process only/);
    await chmod(dir, 0o700);
  });
});

describe('FilePacing keyed by credential, as the shared store is', () => {
  const now = Date.UTC(2026, 10, 23, 12);
  const w = [{ limit: 2, windowMs: 60_000 }];
  const file = async () =>
    JSON.parse(await readFile(join(dir, 'pacing.json'), 'utf8')) as { admitted: Record<string, number[]>; hold?: Record<string, number> };

  it("one credential's admissions never pace another's; the same credential in two processes is paced as one", async () => {
    const [mona, alice] = await Promise.all([credentialIdentity(API, 'Bearer mona-token'), credentialIdentity(API, 'Bearer alice-token')]);
    const a = processStore();
    const b = processStore();
    expect(await a.reserve(API, now, w, mona)).toBe(0);
    expect(await b.reserve(API, now, w, mona)).toBe(0);
    expect(await a.reserve(API, now, w, mona)).toBe(60_000);
    // alice has sent nothing: admitted at once, in either process.
    expect(await b.reserve(API, now, w, alice)).toBe(0);
    expect(await a.reserve(API, now, w, alice)).toBe(0);
    const text = await readFile(join(dir, 'pacing.json'), 'utf8');
    expect(Object.keys(JSON.parse(text).admitted).sort()).toEqual(
      [pacingKey({ origin: API, identity: mona }), pacingKey({ origin: API, identity: alice })].sort(),
    );
    // The key is the digest Redis uses: never the token.
    expect(text).not.toMatch(/token/);
    expect(pacingKey({ origin: API, identity: mona })).toMatch(/^https:\/\/api\.example\.com:[0-9a-f]{32}$/);
  });

  it("an earlier version's per-origin record counts for no credential, is kept while a window sees it, then goes", async () => {
    const old = [now - 30_000, now - 20_000];
    await writeFile(join(dir, 'pacing.json'), JSON.stringify({ version: 1, admitted: { [API]: old } }));
    const store = processStore();
    expect(await store.reserve(API, now, w)).toBe(0);
    expect((await file()).admitted).toEqual({ [API]: old, [ANON]: [now] });
    // An hour later, nothing sees the old record: the next write drops it (and the new one's time is kept).
    const later = now + 3_600_001;
    expect(await store.reserve(API, later, CONTENT_CREATING_WINDOWS)).toBe(0);
    expect((await file()).admitted).toEqual({ [ANON]: [later] });
  });

  it('a hold one process records is seen by the next (reads without the lock), delays its admissions, and ends', async () => {
    const mona = { origin: API, identity: await credentialIdentity(API, 'Bearer mona-token') };
    const alice = { origin: API, identity: await credentialIdentity(API, 'Bearer alice-token') };
    const first = processStore();
    expect(first.mayHold(API, now)).toBe(false);
    await first.hold(mona, now + 600_000, now);
    // An earlier hold does not shorten it.
    await first.hold(mona, now + 60_000, now);
    const next = processStore();
    expect(next.mayHold(API, now)).toBe(true);
    expect(next.mayHold('https://uploads.example.com', now)).toBe(false);
    expect(await next.held(mona, now)).toBe(600_000);
    expect(await next.held(alice, now)).toBe(0);
    expect(await next.reserve(API, now + 1000, w, mona.identity)).toBe(599_000);
    expect(await next.reserve(API, now + 1000, w, alice.identity)).toBe(0);
    expect(await next.held(mona, now + 600_000)).toBe(0);
    expect(next.mayHold(API, now + 600_000)).toBe(false);
    expect(await next.reserve(API, now + 600_000, w, mona.identity)).toBe(0);
    // The hold is over: gone from the file at that write.
    expect((await file()).hold).toBeUndefined();
  });

  it('an admission moved to the time its answer came counts from then, for every process', async () => {
    const a = processStore();
    const one = [{ limit: 1, windowMs: 10_000 }];
    expect(await a.reserve(API, now, one)).toBe(0);
    await a.restamp(API, now, now + 4000);
    // Another process: the window runs from the answer, not the admission.
    expect(await processStore().reserve(API, now + 10_000, one)).toBe(4000);
    expect((await file()).admitted[ANON]).toEqual([now + 4000]);
    // Never earlier; an admission not there changes nothing.
    await a.restamp(API, now + 4000, now + 1000);
    await a.restamp(API, now + 123, now + 9000);
    expect((await file()).admitted[ANON]).toEqual([now + 4000]);
  });

  it('MemoryPacing keeps the same rules in one process', async () => {
    const m = new MemoryPacing();
    const mona = { origin: API, identity: 'a'.repeat(32) };
    expect(await m.reserve(API, now, w, mona.identity)).toBe(0);
    expect(await m.reserve(API, now, w, mona.identity)).toBe(0);
    expect(await m.reserve(API, now, w, 'b'.repeat(32))).toBe(0);
    expect(await m.reserve(API, now, w, mona.identity)).toBe(60_000);
    await m.hold(mona, now + 5000, now);
    expect(m.mayHold(API, now)).toBe(true);
    expect(await m.held(mona, now)).toBe(5000);
    await m.restamp(API, now, now + 2000, mona.identity);
    await m.restamp(API, now, now + 1000, mona.identity);
    expect(await m.reserve(API, now + 60_000, w, mona.identity)).toBe(1000);
  });
});
