import { describe, expect, it } from 'vitest';
import { ConcurrencyGate, PacingGate, pacingBound } from '../../../../src/core/http/guards.js';
import { CONTENT_CREATING_WINDOWS, MemoryPacing, type PacingWindow } from '../../../../src/core/http/pacing.js';
import { CancelledError, RateLimitError } from '../../../../src/core/errors.js';
import { defaultRateLimitPolicy, type RateLimitPolicy } from '../../../../src/core/ratelimit/policy.js';
import { FakeClock } from '../../../fakes/clock.js';

describe('ConcurrencyGate', () => {
  it('admits at most max holders, FIFO, and hands slots over on release', async () => {
    const gate = new ConcurrencyGate(2);
    const r1 = await gate.acquire();
    const r2 = await gate.acquire();
    const order: number[] = [];
    const p3 = gate.acquire().then((r) => (order.push(3), r));
    const p4 = gate.acquire().then((r) => (order.push(4), r));
    await Promise.resolve();
    expect(order).toEqual([]);
    expect(gate.active).toBe(2);
    r1();
    r1(); // a second release is a no-op
    const r3 = await p3;
    expect(order).toEqual([3]);
    r2();
    (await p4)();
    r3();
    expect(gate.active).toBe(0);
  });
  it('a queued acquire is cancelled by its signal', async () => {
    const gate = new ConcurrencyGate(1);
    await gate.acquire();
    const ac = new AbortController();
    const p = gate.acquire(ac.signal);
    ac.abort();
    await expect(p).rejects.toBeInstanceOf(CancelledError);
  });
});

describe('PacingGate', () => {
  it('lets 80 through per minute, then waits for the oldest to leave the window', async () => {
    const clock = new FakeClock();
    const gate = new PacingGate(new MemoryPacing(), CONTENT_CREATING_WINDOWS, clock);
    for (let i = 0; i < 80; i++) {
      await gate.acquire('https://api.example.com');
      clock.advance(100);
    }
    expect(clock.sleeps).toEqual([]);
    const waits: number[] = [];
    await gate.acquire('https://api.example.com', undefined, (ms) => waits.push(ms));
    expect(clock.sleeps).toEqual([60_000 - 8000]);
    expect(waits).toEqual([60_000 - 8000]);
  });
  it('counts each origin on its own', async () => {
    const clock = new FakeClock();
    const gate = new PacingGate(new MemoryPacing(), CONTENT_CREATING_WINDOWS, clock);
    for (let i = 0; i < 80; i++) await gate.acquire('https://a.example.com');
    await gate.acquire('https://b.example.com');
    expect(clock.sleeps).toEqual([]);
  });
  it('a cancelled wait rejects', async () => {
    const clock = new FakeClock(undefined, { autoAdvance: false });
    const gate = new PacingGate(new MemoryPacing(), [{ limit: 1, windowMs: 1000 }], clock);
    await gate.acquire('k');
    const ac = new AbortController();
    const p = gate.acquire('k', ac.signal);
    await new Promise((r) => setImmediate(r));
    ac.abort();
    await expect(p).rejects.toBeInstanceOf(CancelledError);
  });
});

describe('PacingGate under the bound of a wait (--max-wait, --wait)', () => {
  const API = 'https://api.example.com';
  const MARGIN = 1000;
  /** The spec's windows counted a margin longer, as HttpClient counts them, bounded by `policy`. */
  const gate = (clock: FakeClock, policy: Partial<RateLimitPolicy> = {}, store = new MemoryPacing()) => {
    const counted: PacingWindow[] = CONTENT_CREATING_WINDOWS.map((w) => ({ limit: w.limit, windowMs: w.windowMs + MARGIN }));
    return new PacingGate(store, counted, clock, pacingBound({ ...defaultRateLimitPolicy, ...policy }, CONTENT_CREATING_WINDOWS, MARGIN, clock));
  };
  /** 500 admissions over the last 50 minutes, 10 of them in the last minute: the hour's window is full for another 10 min. */
  const spendHour = async (g: PacingGate, clock: FakeClock) => {
    for (let i = 0; i < 500; i++) {
      await g.acquire(API);
      clock.advance(6000);
    }
  };

  it("a full minute's wait (a minute and the margin at most) is within the default bound: announced, then admitted", async () => {
    const clock = new FakeClock();
    const g = gate(clock);
    for (let i = 0; i < 80; i++) await g.acquire(API);
    const waits: number[] = [];
    await g.acquire(API, undefined, (ms) => waits.push(ms));
    expect(waits).toEqual([61_000]);
    expect(clock.sleeps).toEqual([61_000]);
  });

  it("the hour's wait past the bound without --wait fails at once with exit 3, one line naming the wait and how to allow it; nothing admitted", async () => {
    const clock = new FakeClock();
    const store = new MemoryPacing();
    const g = gate(clock, {}, store);
    await spendHour(g, clock);
    const sleptBefore = clock.sleeps.length;
    const waits: number[] = [];
    const err = await g.acquire(API, undefined, (ms) => waits.push(ms)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).kind).toBe('pacing');
    // 500 in the hour from 3,000 s ago: the oldest leaves the (60 min and 1 s) window in 601 s.
    expect((err as RateLimitError).message).toBe(
      'content-creating requests to https://api.example.com are paced (80 a minute, 500 an hour): the wait (11 min) exceeds the longest wait allowed (60 s)',
    );
    expect((err as RateLimitError).remedy).toEqual({ kind: 'longer-wait', waitMs: 601_000, waitingAllowsMs: 3_600_000 });
    expect((err as RateLimitError).resetAt).toBe(clock.now() + 601_000);
    // Not waited, not announced, and nothing admitted: the same store admits again once the hour has room.
    expect(waits).toEqual([]);
    expect(clock.sleeps.length).toBe(sleptBefore);
    expect(await store.reserve(API, clock.now(), [{ limit: 500, windowMs: 3_601_000 }])).toBe(601_000);
  });

  it('--max-wait above the wait (without --wait) allows it: announced with the wait, then admitted', async () => {
    const clock = new FakeClock();
    const g = gate(clock, { serverWaitMs: 15 * 60_000 });
    await spendHour(g, clock);
    const waits: number[] = [];
    await g.acquire(API, undefined, (ms) => waits.push(ms));
    expect(waits).toEqual([601_000]);
  });

  it('with --wait, the bound is --max-wait (default 1 h): within it waits, past it fails naming --max-wait', async () => {
    const clock = new FakeClock();
    const g = gate(clock, { wait: true });
    await spendHour(g, clock);
    await g.acquire(API);
    expect(clock.sleeps.at(-1)).toBe(601_000);
    const tight = gate(clock, { wait: true, maxWaitMs: 5 * 60_000 });
    await spendHour(tight, clock);
    const err = await tight.acquire(API).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/: the wait \(\d+ min\) exceeds the longest wait allowed \(5 min\)$/);
    expect((err as RateLimitError).remedy).toMatchObject({ kind: 'longer-wait', waitingAllowsMs: undefined });
  });

  it('--max-wait 0: any pacing wait fails at once (a script that must never wait)', async () => {
    const clock = new FakeClock();
    const g = gate(clock, { serverWaitMs: 0 });
    for (let i = 0; i < 80; i++) await g.acquire(API);
    clock.advance(30_000);
    const err = await g.acquire(API).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/the wait \(31 s\) exceeds the longest wait allowed \(0 s\)$/);
    expect((err as RateLimitError).remedy).toEqual({ kind: 'longer-wait', waitMs: 31_000, waitingAllowsMs: 3_600_000 });
  });

  it('a wait within the bound is ended by its signal (Ctrl-C)', async () => {
    const clock = new FakeClock(undefined, { autoAdvance: false });
    const g = gate(clock);
    for (let i = 0; i < 80; i++) await g.acquire(API);
    const ac = new AbortController();
    const p = g.acquire(API, ac.signal);
    await new Promise((r) => setImmediate(r));
    ac.abort();
    await expect(p).rejects.toBeInstanceOf(CancelledError);
  });
});
