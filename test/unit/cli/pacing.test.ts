/**
 * The CLI's pacing settings and its words for a pacing wait past its bound:
 * the profile's pacing.limits / pacing.margin, the variables winning over
 * them, a bad value one line and exit 2; the pacing error one line, exit 3,
 * naming the wait and how to allow it.
 */
import { describe, expect, it } from 'vitest';
import { exitCodeFor, formatError } from '../../../src/cli/errors/exit.js';
import { pacingMargin, pacingWindows } from '../../../src/cli/pacing.js';
import { normaliseSetting } from '../../../src/core/config/settings.js';
import { ConfigError, RateLimitError } from '../../../src/core/errors.js';
import { PacingGate, pacingBound } from '../../../src/core/http/guards.js';
import { CONTENT_CREATING_WINDOWS, MemoryPacing } from '../../../src/core/http/pacing.js';
import { defaultRateLimitPolicy } from '../../../src/core/ratelimit/policy.js';
import { FakeClock } from '../../fakes/clock.js';

describe('a pacing wait past its bound, as the CLI says it', () => {
  const refusal = async (policy = {}) => {
    const clock = new FakeClock();
    const gate = new PacingGate(
      new MemoryPacing(),
      [{ limit: 500, windowMs: 3_600_000 }],
      clock,
      pacingBound({ ...defaultRateLimitPolicy, ...policy }, CONTENT_CREATING_WINDOWS, 0, clock),
    );
    for (let i = 0; i < 500; i++) await gate.acquire('https://api.example.com');
    clock.advance(600_000);
    return gate.acquire('https://api.example.com').catch((e: unknown) => e);
  };
  it('without --wait: one line, exit 3, --max-wait or --wait to allow it', async () => {
    const err = await refusal();
    expect(err).toBeInstanceOf(RateLimitError);
    expect(exitCodeFor(err)).toBe(3);
    expect(formatError(err, false)).toBe(
      'content-creating requests to https://api.example.com are paced (80 a minute, 500 an hour): the wait (50 min) exceeds the longest wait allowed (60 s); allow it with --max-wait 50m (or --wait, which waits up to 1 h)',
    );
  });
  it('with --wait and a shorter --max-wait: --max-wait only', async () => {
    const err = await refusal({ wait: true, maxWaitMs: 10 * 60_000 });
    expect(formatError(err, false)).toMatch(/the wait \(50 min\) exceeds the longest wait allowed \(10 min\); allow it with --max-wait 50m$/);
  });
});

describe('config set pacing.limits / pacing.margin', () => {
  it('normalises what it stores; a bad value is one line and exit 2', () => {
    expect(normaliseSetting('pacing.limits', ' 20 / 10s ,500/60m')).toBe('20/10s,500/1h');
    expect(normaliseSetting('pacing.margin', ' 500ms ')).toBe('500ms');
    for (const [key, value] of [
      ['pacing.limits', '80 a minute'],
      ['pacing.margin', 'a bit'],
    ] as const) {
      let err: unknown;
      try {
        normaliseSetting(key, value);
      } catch (e) {
        err = e;
      }
      expect(err, key).toBeInstanceOf(ConfigError);
      expect(exitCodeFor(err)).toBe(2);
      expect(formatError(err, false)).toMatch(new RegExp(`^${key.replace('.', '\\.')}: "[^"\n]+" is not [^\n]+$`));
    }
  });
});

describe("the CLI's pacing: the variable wins over the profile", () => {
  const profile = { 'pacing.limits': '3/5s', 'pacing.margin': '200ms' } as const;
  it('the profile alone', () => {
    expect(pacingWindows({}, profile)).toEqual([{ limit: 3, windowMs: 5000 }]);
    expect(pacingMargin({}, profile)).toBe(200);
  });
  it('the variable over the profile; an empty variable is unset', () => {
    const env = { LANYARD_PACING_LIMITS: '10/1m', LANYARD_PACING_MARGIN: '2s' };
    expect(pacingWindows(env, profile)).toEqual([{ limit: 10, windowMs: 60_000 }]);
    expect(pacingMargin(env, profile)).toBe(2000);
    expect(pacingWindows({ LANYARD_PACING_LIMITS: ' ' }, profile)).toEqual([{ limit: 3, windowMs: 5000 }]);
  });
  it('neither: the defaults (undefined); a bad value in the profile file names the setting', () => {
    expect(pacingWindows({}, {})).toBeUndefined();
    expect(pacingMargin({}, {})).toBeUndefined();
    expect(() => pacingMargin({}, { 'pacing.margin': 'later' })).toThrow(/^pacing\.margin: "later"/);
  });
});
