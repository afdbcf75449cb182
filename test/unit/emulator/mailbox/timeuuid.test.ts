import { describe, expect, it } from 'vitest';
import { compareTimeUuid, TimeUuidGenerator, uuidTimeMs } from '../../../../src/emulator/services/mailbox/timeuuid.js';

describe('version-1 UUIDs from arrival time', () => {
  const gen = () => new TimeUuidGenerator(Buffer.from([1, 2, 3, 4, 5, 6, 7, 8]));

  it('are version 1, RFC 4122 variant, and carry the arrival time', () => {
    const t = Date.UTC(2026, 10, 22, 12, 0, 0, 123);
    const id = gen().next(t);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uuidTimeMs(id)).toBe(t);
  });

  it('order by id is order by time, ties within one millisecond broken in arrival order', () => {
    const g = gen();
    const t = Date.UTC(2026, 0, 1);
    const ids = [g.next(t), g.next(t), g.next(t), g.next(t + 1), g.next(t + 1), g.next(t + 86_400_000)];
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort(compareTimeUuid)).toEqual(ids);
    // String order would not do: time_low comes first in the text form.
    const OFFSET = 12_219_292_800_000; // ms from 1582-10-15 to 1970-01-01
    const wrap = Math.ceil(((t + OFFSET) * 10_000) / 2 ** 32); // next time_low wrap-around
    const boundaryMs = (wrap * 2 ** 32) / 10_000 - OFFSET;
    const g2 = gen();
    const a = g2.next(Math.floor(boundaryMs) - 1);
    const b = g2.next(Math.ceil(boundaryMs) + 1);
    expect(compareTimeUuid(a, b)).toBeLessThan(0);
    expect(a > b).toBe(true);
  });

  it('never goes back when the clock does, nor below an observed id', () => {
    const g = gen();
    const first = g.next(Date.UTC(2026, 5, 1));
    const second = g.next(Date.UTC(2025, 5, 1));
    expect(compareTimeUuid(first, second)).toBeLessThan(0);
    const g2 = gen();
    g2.observe(second);
    expect(compareTimeUuid(second, g2.next(0))).toBeLessThan(0);
  });
});
