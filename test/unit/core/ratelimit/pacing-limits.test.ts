/**
 * The words of the pacing settings: the windows and margin as
 * LANYARD_PACING_LIMITS / LANYARD_PACING_MARGIN and the profile's
 * pacing.limits / pacing.margin give them (the CLI's side: test/unit/cli/pacing.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../src/core/errors.js';
import { durationMs, parsePacingLimits, parsePacingMargin } from '../../../../src/core/ratelimit/pacing-limits.js';

describe('the words of the pacing settings', () => {
  it('durations: bare seconds, units, compounds; anything else is none', () => {
    expect([durationMs('90'), durationMs('250ms'), durationMs('1m30s'), durationMs(' 1.5h '), durationMs('0')]).toEqual([90_000, 250, 90_000, 5_400_000, 0]);
    for (const bad of ['', 's', '1 m', '-1s', '1w', '10s!']) expect(durationMs(bad), bad).toBeUndefined();
  });
  it('limits: COUNT/DURATION, comma-separated; a bad part names its source', () => {
    expect(parsePacingLimits('80/1m, 500/1h', 'x')).toEqual([
      { limit: 80, windowMs: 60_000 },
      { limit: 500, windowMs: 3_600_000 },
    ]);
    for (const bad of ['80', '80/', '0/1m', '80/0s', 'x/1m', '80/2d', '80/1m,,']) {
      expect(() => parsePacingLimits(bad, 'pacing.limits'), bad).toThrow(ConfigError);
    }
    expect(() => parsePacingLimits('80/1m,20/soon', 'LANYARD_PACING_LIMITS')).toThrow(
      'LANYARD_PACING_LIMITS: "20/soon" is not COUNT/DURATION (e.g. 80/1m,500/1h; at least 1 in at most 1d)',
    );
  });
  it('margin: a duration from 0 to a day', () => {
    expect([parsePacingMargin('0', 'm'), parsePacingMargin('1s', 'm'), parsePacingMargin('250ms', 'm')]).toEqual([0, 1000, 250]);
    expect(() => parsePacingMargin('2d', 'pacing.margin')).toThrow(/^pacing\.margin: "2d" is not a duration of at most 1d/);
    expect(() => parsePacingMargin('soon', 'pacing.margin')).toThrow(ConfigError);
  });
});
