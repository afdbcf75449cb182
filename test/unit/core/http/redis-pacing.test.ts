/**
 * RedisPacing against a real redis-server on a loopback port: two stores (as
 * two machines would have) count the same admissions by the rule of admit(),
 * share secondary-limit holds and primary budgets; a server killed, silent or
 * refusing the password makes the store fall back (or, required, fail), in a
 * bounded time and without the password in any message.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LanyardError } from '../../../../src/core/errors.js';
import { PacingGate } from '../../../../src/core/http/guards.js';
import { admit, credentialIdentity, MemoryPacing, type PacingWindow } from '../../../../src/core/http/pacing.js';
import { RedisPacing } from '../../../../src/core/http/redis-pacing.js';
import { systemClock } from '../../../../src/core/system-clock.js';
import { FakeClock } from '../../../fakes/clock.js';
import { type RedisServer, startRedis } from '../../../fakes/redis-server.js';

const API = 'https://api.example.com';
const t0 = Date.UTC(2026, 10, 26, 12);
const WINDOWS: PacingWindow[] = [
  { limit: 3, windowMs: 60_000 },
  { limit: 5, windowMs: 3_600_000 },
];

let redis: RedisServer;
let prefixN = 0;
/** Servers a test starts for itself: stopped after the file even when the test fails. */
const extra: RedisServer[] = [];
const track = (s: RedisServer) => (extra.push(s), s);
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => Promise.all([redis?.stop(), ...extra.map((s) => s.stop())]));

/** A store as one machine opens it; each test has its own key prefix. */
function machines(n: number, o: Partial<ConstructorParameters<typeof RedisPacing>[0]> = {}): RedisPacing[] {
  const keyPrefix = `test${++prefixN}:`;
  return Array.from({ length: n }, () => new RedisPacing({ url: redis.url, clock: systemClock, keyPrefix, ...o }));
}

describe('RedisPacing with redis-server', () => {
  it('two machines count one set of admissions, by the rule of admit()', async () => {
    const [a, b] = machines(2);
    const id = await credentialIdentity(API, 'Bearer tok');
    const waits: number[] = [];
    for (const [i, t] of [0, 1000, 2000, 3000, 61_500, 62_000, 63_000].entries()) waits.push(await (i % 2 ? b! : a!).reserve(API, t0 + t, WINDOWS, id));
    // Oracle: the in-memory rule over the same times.
    const oracle: number[] = [];
    let times: number[] = [];
    for (const t of [0, 1000, 2000, 3000, 61_500, 62_000, 63_000]) {
      const r = admit(times, t0 + t, WINDOWS);
      times = r.times;
      oracle.push(r.waitMs);
    }
    expect(waits).toEqual(oracle);
    expect(waits).toEqual([0, 0, 0, 57_000, 0, 0, 3_600_000 - 63_000]);
    // Another credential is paced apart.
    expect(await a!.reserve(API, t0 + 63_000, WINDOWS, await credentialIdentity(API, 'Bearer other'))).toBe(0);
    await Promise.all([a!.close(), b!.close()]);
  });

  it('admits exactly the limit when machines race for the last slots', async () => {
    const stores = machines(4);
    const results = await Promise.all(stores.flatMap((s) => Array.from({ length: 5 }, () => s.reserve(API, t0, [{ limit: 7, windowMs: 60_000 }], 'x'))));
    expect(results.filter((w) => w === 0)).toHaveLength(7);
    await Promise.all(stores.map((s) => s.close()));
  });

  it('a hold set by one machine holds the others, and their content-creating admissions, until it passes', async () => {
    const [a, b] = machines(2);
    const scope = { origin: API, identity: 'abc' };
    await a!.hold(scope, t0 + 30_000, t0);
    await b!.hold(scope, t0 + 10_000, t0); // a shorter hold does not shorten it
    expect(await b!.held(scope, t0 + 1000)).toBe(29_000);
    expect(await b!.reserve(API, t0 + 1000, WINDOWS, 'abc')).toBe(29_000);
    expect(await b!.held(scope, t0 + 30_000)).toBe(0);
    expect(await b!.held({ origin: API, identity: 'other' }, t0 + 1000)).toBe(0);
    // A gate over the store waits on its clock, asking again every recheckMs.
    const clock = new FakeClock(t0);
    const gate = new PacingGate(b!, WINDOWS, clock);
    const waits: number[] = [];
    await gate.held(scope, undefined, undefined, (w) => waits.push(w));
    expect(waits).toEqual([30_000]);
    expect(clock.sleeps).toEqual(Array(15).fill(2000));
    await Promise.all([a!.close(), b!.close()]);
  });

  it('an admission moved to the time its answer came counts from then on every machine (the rule of FilePacing and MemoryPacing)', async () => {
    const [a, b] = machines(2);
    const one = [{ limit: 1, windowMs: 10_000 }];
    const local = new MemoryPacing();
    for (const s of [a!, local]) {
      expect(await s.reserve(API, t0, one, 'abc')).toBe(0);
      await s.restamp(API, t0, t0 + 4000, 'abc');
      // Never earlier; an admission not there changes nothing.
      await s.restamp(API, t0 + 4000, t0 + 1000, 'abc');
      await s.restamp(API, t0 + 7, t0 + 9000, 'abc');
    }
    expect(await b!.reserve(API, t0 + 10_000, one, 'abc')).toBe(4000);
    expect(await local.reserve(API, t0 + 10_000, one, 'abc')).toBe(4000);
    await Promise.all([a!.close(), b!.close()]);
  });

  it("with the server down, holds go to the fallback store (this machine's file)", async () => {
    const server = track(await startRedis());
    const fallback = new MemoryPacing();
    const store = new RedisPacing({ url: server.url, clock: systemClock, fallback, timeoutMs: 2000 });
    const scope = { origin: API, identity: 'abc' };
    await server.kill();
    await store.hold(scope, t0 + 30_000, t0);
    expect(await fallback.held(scope, t0)).toBe(30_000);
    expect(await store.held(scope, t0 + 1000)).toBe(29_000);
    expect(store.fallenBack).toBeTruthy();
    await store.close();
  });

  it('shares the last primary budget seen, with its age; an older window never replaces a newer one', async () => {
    const [a, b] = machines(2);
    const scope = { origin: API, identity: 'abc' };
    const reset = t0 / 1000 + 3600;
    await a!.recordBudget(scope, { limit: 5000, remaining: 10, used: 4990, reset, resource: 'core' }, t0);
    await b!.recordBudget(scope, { limit: 5000, remaining: 40, used: 4960, reset, resource: 'core' }, t0 + 1000); // same window, more left: stale
    await b!.recordBudget(scope, { limit: 5000, remaining: 4999, used: 1, reset: reset - 3600, resource: 'core' }, t0 + 1000); // older window
    await b!.recordBudget(scope, { limit: 30, remaining: 0, used: 30, reset: t0 / 1000 + 60, resource: 'search' }, t0 + 2000);
    expect(await a!.budgets(scope, t0 + 5000)).toEqual([
      { resource: 'core', limit: 5000, remaining: 10, used: 4990, reset, seenAt: t0, ageMs: 5000 },
      { resource: 'search', limit: 30, remaining: 0, used: 30, reset: t0 / 1000 + 60, seenAt: t0 + 2000, ageMs: 3000 },
    ]);
    // A spent resource holds requests to it (asked with --wait) until its reset and a second.
    expect(await a!.held(scope, t0 + 5000, 'search')).toBe(56_000);
    expect(await a!.held(scope, t0 + 5000, 'core')).toBe(0);
    await a!.recordBudget(scope, { limit: 5000, remaining: 4999, used: 1, reset: reset + 3600, resource: 'core' }, t0 + 6000); // the next window
    expect((await b!.budgets(scope, t0 + 6000))?.[0]).toMatchObject({ remaining: 4999, ageMs: 0 });
    await Promise.all([a!.close(), b!.close()]);
  });

  it("a spent budget seen from a server whose clock is ahead holds until its reset on this machine's clock (the skew kept with it)", async () => {
    const [a, b] = machines(2);
    const scope = { origin: API, identity: 'skewed' };
    // The server's clock an hour ahead: its reset, 60 s from its now, is 60 s from this machine's now.
    const skewMs = 3_600_000;
    await a!.recordBudget(scope, { limit: 30, remaining: 0, used: 30, reset: (t0 + skewMs) / 1000 + 60, resource: 'search' }, t0, skewMs);
    expect(await b!.held(scope, t0 + 5000, 'search')).toBe(56_000);
    await Promise.all([a!.close(), b!.close()]);
  });
});

describe('RedisPacing when the server cannot be used', () => {
  it('a server killed mid-run: one fallback notice, then pacing in the fallback store; required: fails', async () => {
    const server = track(await startRedis());
    const notices: string[] = [];
    const fallback = new MemoryPacing();
    const store = new RedisPacing({ url: server.url, clock: systemClock, fallback, onFallback: (w) => notices.push(w) });
    const strict = new RedisPacing({ url: server.url, clock: systemClock, required: true, requiredHint: 'unset LANYARD_PACING_REQUIRED' });
    expect(await store.reserve(API, t0, WINDOWS, 'x')).toBe(0);
    expect(await strict.reserve(API, t0, WINDOWS, 'x')).toBe(0);
    await server.kill();
    for (let i = 0; i < 4; i++) expect(await store.reserve(API, t0 + i, WINDOWS, 'x')).toBe(i < 3 ? 0 : 59_997);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(new RegExp(`^shared pacing at redis://127\\.0\\.0\\.1:${server.port} cannot be used \\(.+\\); pacing on this machine only$`));
    expect(store.fallenBack).toBeDefined();
    const err = await strict.reserve(API, t0, WINDOWS, 'x').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(LanyardError);
    expect((err as LanyardError).code).toBe('network_error');
    expect((err as LanyardError).message).toMatch(/it is required, so the request is not sent/);
    expect((err as LanyardError).hint).toBe('unset LANYARD_PACING_REQUIRED');
    await Promise.all([store.close(), strict.close()]);
  });

  it('a server that accepts and never answers: falls back within the bound', async () => {
    const sockets: Socket[] = [];
    const silent: Server = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    const notices: string[] = [];
    const store = new RedisPacing({ url: `redis://127.0.0.1:${port}`, clock: systemClock, timeoutMs: 300, onFallback: (w) => notices.push(w) });
    const started = performance.now();
    expect(await store.reserve(API, t0, WINDOWS, 'x')).toBe(0);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(notices).toHaveLength(1);
    await store.close();
    for (const s of sockets) s.destroy();
    await new Promise((r) => silent.close(r));
  });

  it('a password-protected server: the password from the URL or the option works; a wrong one falls back without showing it', async () => {
    const password = 'pacing-Secret-7f3a9c';
    const server = track(await startRedis({ password }));
    const good = new RedisPacing({ url: server.url, password, clock: systemClock });
    expect(await good.reserve(API, t0, WINDOWS, 'x')).toBe(0);
    expect(good.fallenBack).toBeUndefined();
    const inUrl = new RedisPacing({ url: `redis://:${password}@127.0.0.1:${server.port}`, clock: systemClock });
    expect(await inUrl.reserve(API, t0 + 1, WINDOWS, 'x')).toBe(0);
    expect(inUrl.where).toBe(`redis://127.0.0.1:${server.port}`);
    const notices: string[] = [];
    const wrongPassword = `${password}-wrong`;
    const bad = new RedisPacing({ url: `redis://default:${wrongPassword}@127.0.0.1:${server.port}`, clock: systemClock, onFallback: (w) => notices.push(w) });
    expect(await bad.reserve(API, t0, WINDOWS, 'x')).toBe(0);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/WRONGPASS|NOAUTH|invalid/i);
    const none = new RedisPacing({ url: server.url, clock: systemClock, required: true });
    const err = (await none.reserve(API, t0, WINDOWS, 'x').catch((e: unknown) => e)) as Error;
    expect(err.message).toMatch(/NOAUTH|Authentication required|unauthenticated/i);
    for (const text of [...notices, err.message]) expect(text).not.toContain(password);
    await Promise.all([good.close(), inUrl.close(), bad.close(), none.close(), server.stop()]);
  });

  it('refuses a URL that is not redis:// or rediss:// in one line', () => {
    expect(() => new RedisPacing({ url: 'http://127.0.0.1:6379', clock: systemClock })).toThrow(/must start with redis:\/\/ or rediss:\/\//);
    expect(() => new RedisPacing({ url: 'redis://h:1/x', clock: systemClock })).toThrow(/database number/);
  });
});

describe('credentialIdentity', () => {
  it('is one-way, stable, per origin and credential', async () => {
    const a = await credentialIdentity(API, 'Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(a).toBe(await credentialIdentity(API, 'Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789'));
    expect(a).not.toBe(await credentialIdentity('https://other.example.com', 'Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789'));
    expect(await credentialIdentity(API, undefined)).toBe('anonymous');
  });
});
