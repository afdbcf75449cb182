/** The emulator's clock: advanced by tests, and stopped (freeze) so a slow machine cannot move it. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EmulatorClock } from '../../../src/emulator/clock.js';

afterEach(() => vi.useRealTimers());

describe('EmulatorClock', () => {
  it('runs with real time plus the advances; frozen, it moves only by advances, then runs on from there', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const c = new EmulatorClock();
    c.advance(5000);
    expect(c.now()).toBe(1_005_000);
    c.freeze(true);
    vi.advanceTimersByTime(60_000);
    expect(c.now()).toBe(1_005_000);
    c.advance(61_000);
    expect(c.now()).toBe(1_066_000);
    expect(c.frozen).toBe(true);
    c.freeze(false);
    vi.advanceTimersByTime(1000);
    expect(c.now()).toBe(1_067_000);
    expect(c.offsetMs).toBe(1_067_000 - Date.now());
    c.freeze(true);
    c.reset();
    expect(c.frozen).toBe(false);
    expect(c.now()).toBe(Date.now());
  });
});
