import { describe, expect, it } from 'vitest';
import { ConcurrencyGate, PacingGate } from '../../../../src/core/http/guards.js';
import { CONTENT_CREATING_WINDOWS, MemoryPacing } from '../../../../src/core/http/pacing.js';
import { CancelledError } from '../../../../src/core/errors.js';
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
