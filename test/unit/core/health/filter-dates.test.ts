import { describe, expect, it } from 'vitest';
import { buildEventsFilter, encodeQueryValue, quoteODataString } from '../../../../src/core/health/filter.js';
import { formatQueryStartTime, parseSince, sinceToQueryStartTime } from '../../../../src/core/health/dates.js';
import { ValidationError } from '../../../../src/core/errors.js';
import { FakeClock } from '../../../fakes/clock.js';

describe('filter building', () => {
  it('joins service and region terms with or, services first', () => {
    expect(buildEventsFilter(['Virtual Machines'], ['West US'])).toBe("service eq 'Virtual Machines' or region eq 'West US'");
    expect(buildEventsFilter(['A', 'B'], [])).toBe("service eq 'A' or service eq 'B'");
    expect(buildEventsFilter([], ['East US', 'Global'])).toBe("region eq 'East US' or region eq 'Global'");
  });
  it('is undefined without terms', () => {
    expect(buildEventsFilter([], [])).toBeUndefined();
    expect(buildEventsFilter()).toBeUndefined();
  });
  it('doubles single quotes inside values', () => {
    expect(quoteODataString("Customer's Lockbox")).toBe("'Customer''s Lockbox'");
    expect(quoteODataString("''")).toBe("''''''");
    expect(buildEventsFilter(["O'Brien's"], [])).toBe("service eq 'O''Brien''s'");
  });
  it('refuses empty names and control characters', () => {
    expect(() => buildEventsFilter([' '], [])).toThrow(ValidationError);
    expect(() => buildEventsFilter([], ['West\nUS'])).toThrow(/control characters/);
  });
  it('URL-encodes the whole value, quotes included', () => {
    expect(encodeQueryValue("service eq 'Customer''s Lockbox' or region eq 'West US'")).toBe(
      'service%20eq%20%27Customer%27%27s%20Lockbox%27%20or%20region%20eq%20%27West%20US%27',
    );
    expect(encodeQueryValue('5/12/2025')).toBe('5%2F12%2F2025');
    expect(encodeQueryValue('a&b=c+(d)*!')).toBe('a%26b%3Dc%2B%28d%29%2A%21');
  });
});

describe('--since parsing with an injected clock', () => {
  const clock = new FakeClock(Date.UTC(2026, 10, 22, 5, 30, 0)); // 2026-11-22 05:30 UTC

  it('YYYY-MM-DD and M/D/YYYY give M/D/YYYY without leading zeros', () => {
    expect(sinceToQueryStartTime('2025-05-12', clock.now())).toBe('5/12/2025');
    expect(sinceToQueryStartTime('5/12/2025', clock.now())).toBe('5/12/2025');
    expect(sinceToQueryStartTime('05/02/2025', clock.now())).toBe('5/2/2025');
    expect(sinceToQueryStartTime('2026-01-09', clock.now())).toBe('1/9/2026');
  });
  it('relative days and hours count back from the clock (UTC date)', () => {
    expect(sinceToQueryStartTime('3d', clock.now())).toBe('11/19/2026');
    expect(sinceToQueryStartTime('12h', clock.now())).toBe('11/21/2026'); // 05:30 - 12 h = the day before
    expect(sinceToQueryStartTime('5h', clock.now())).toBe('11/22/2026');
    expect(sinceToQueryStartTime('2w', clock.now())).toBe('11/8/2026');
    clock.advance(24 * 3600_000);
    expect(sinceToQueryStartTime('3d', clock.now())).toBe('11/20/2026');
  });
  it('relative values cross month and year boundaries', () => {
    expect(sinceToQueryStartTime('1d', Date.UTC(2026, 0, 1, 10))).toBe('12/31/2025');
    expect(sinceToQueryStartTime('1d', Date.UTC(2024, 2, 1, 10))).toBe('2/29/2024');
  });
  it('rejects impossible dates, other forms and the future', () => {
    for (const bad of ['2025-02-30', '13/1/2025', '2/30/2025', '2025/05/12', 'yesterday', '3x', '', '12-05-2025', '5/12/25']) {
      expect(() => parseSince(bad, clock.now()), bad).toThrow(ValidationError);
    }
    expect(() => parseSince('2027-01-01', clock.now())).toThrow(/future/);
  });
  it('formats UTC dates', () => {
    expect(formatQueryStartTime(Date.UTC(2025, 4, 12, 23, 59))).toBe('5/12/2025');
  });
});
