import { describe, expect, it } from 'vitest';
import { classifyRateLimit, decideRateLimit, defaultRateLimitPolicy } from '../../../../src/core/ratelimit/policy.js';
import { parseRetryAfter } from '../../../../src/core/ratelimit/headers.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const waitPolicy = { ...defaultRateLimitPolicy, wait: true };

describe('classifyRateLimit', () => {
  it('primary: 403 with remaining 0', () => {
    const c = classifyRateLimit(
      403,
      { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 600), 'x-ratelimit-limit': '60' },
      'API rate limit exceeded for 127.0.0.1.',
      NOW,
    );
    expect(c?.kind).toBe('primary');
  });
  it('secondary: 429 whose message says so, even with budget left', () => {
    const c = classifyRateLimit(
      429,
      { 'x-ratelimit-remaining': '4000' },
      'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
      NOW,
    );
    expect(c?.kind).toBe('secondary');
  });
  it('a plain 403 is not a rate limit', () => {
    expect(classifyRateLimit(403, { 'x-ratelimit-remaining': '10' }, 'Resource not accessible by integration', NOW)).toBeUndefined();
    expect(classifyRateLimit(404, { 'x-ratelimit-remaining': '0' }, 'Not Found', NOW)).toBeUndefined();
  });
});

describe('decideRateLimit', () => {
  it('primary: never before x-ratelimit-reset, corrected by the server Date skew', () => {
    const serverNow = NOW + 30_000; // server clock 30 s ahead
    const c = classifyRateLimit(
      403,
      {
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': String(Math.floor(serverNow / 1000) + 120),
        date: new Date(serverNow).toUTCString(),
      },
      'API rate limit exceeded',
      NOW,
    )!;
    const d = decideRateLimit(c, 0, NOW, waitPolicy);
    expect(d).toMatchObject({ action: 'wait' });
    if (d.action === 'wait') expect(d.waitMs).toBe(121_000);
  });
  it('secondary with retry-after seconds waits exactly that', () => {
    const c = classifyRateLimit(403, { 'retry-after': '17', 'x-ratelimit-remaining': '99' }, 'secondary rate limit', NOW)!;
    expect(decideRateLimit(c, 0, NOW, waitPolicy)).toMatchObject({ action: 'wait', waitMs: 17_000 });
  });
  it('secondary with an HTTP-date retry-after', () => {
    const c = classifyRateLimit(429, { 'retry-after': new Date(NOW + 45_000).toUTCString(), date: new Date(NOW).toUTCString() }, 'secondary rate limit', NOW)!;
    expect(decideRateLimit(c, 0, NOW, waitPolicy)).toMatchObject({ action: 'wait', waitMs: 45_000 });
  });
  it('secondary without retry-after and remaining 0 waits for the reset', () => {
    const c = classifyRateLimit(
      403,
      { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 300) },
      'You have exceeded a secondary rate limit',
      NOW,
    )!;
    expect(decideRateLimit(c, 0, NOW, waitPolicy)).toMatchObject({ action: 'wait', waitMs: 301_000 });
  });
  it('secondary otherwise: 60 s, then exponential, then gives up', () => {
    const c = classifyRateLimit(403, { 'x-ratelimit-remaining': '50' }, 'You have exceeded a secondary rate limit', NOW)!;
    const waits = [0, 1, 2, 3].map((a) => decideRateLimit(c, a, NOW, waitPolicy));
    expect(waits.map((w) => (w.action === 'wait' ? w.waitMs : -1))).toEqual([60_000, 120_000, 240_000, 480_000]);
    expect(decideRateLimit(c, 4, NOW, waitPolicy).action).toBe('fail');
  });
  it('without --wait it fails at once with the reset time', () => {
    const c = classifyRateLimit(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 60) }, 'API rate limit exceeded', NOW)!;
    expect(decideRateLimit(c, 0, NOW, defaultRateLimitPolicy)).toMatchObject({ action: 'fail', resetAt: NOW + 61_000 });
  });
  it('a wait beyond the maximum fails', () => {
    const c = classifyRateLimit(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 7200) }, 'API rate limit exceeded', NOW)!;
    expect(decideRateLimit(c, 0, NOW, { ...waitPolicy, maxWaitMs: 60_000 }).action).toBe('fail');
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and dates, rejects junk', () => {
    expect(parseRetryAfter('5', NOW)).toBe(5000);
    expect(parseRetryAfter(new Date(NOW + 2000).toUTCString(), NOW)).toBe(2000);
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
  });
});

describe('policy edge cases', () => {
  it("a 429 without a message but with retry-after is the code host's secondary limit with its budget headers, else the server's", () => {
    const c = classifyRateLimit(429, { 'retry-after': '3', 'x-ratelimit-remaining': '4000' }, undefined, NOW)!;
    expect(c.kind).toBe('secondary');
    expect(decideRateLimit(c, 0, NOW, waitPolicy)).toMatchObject({ action: 'wait', waitMs: 3000 });
    const s = classifyRateLimit(429, { 'retry-after': '3' }, undefined, NOW)!;
    expect(s).toMatchObject({ kind: 'server', status: 429 });
    expect(decideRateLimit(s, 0, NOW, defaultRateLimitPolicy)).toMatchObject({ action: 'wait', waitMs: 3000 });
  });
  it('a 503 with retry-after is the server asking to wait; without one it is not a rate limit', () => {
    expect(classifyRateLimit(503, { 'retry-after': '9' }, 'down', NOW)).toMatchObject({ kind: 'server', status: 503, retryAfterMs: 9000 });
    expect(classifyRateLimit(503, {}, 'down', NOW)).toBeUndefined();
  });
  it('without --wait: waits the server asks for up to serverWaitMs (1 min), never a primary limit', () => {
    const sec = classifyRateLimit(403, { 'x-ratelimit-remaining': '99' }, 'secondary rate limit', NOW)!;
    expect(decideRateLimit(sec, 0, NOW, defaultRateLimitPolicy)).toMatchObject({ action: 'wait', waitMs: 60_000 });
    expect(decideRateLimit(sec, 1, NOW, defaultRateLimitPolicy)).toMatchObject({
      action: 'fail',
      reason: 'secondary rate limit: the wait (120 s) exceeds the longest wait without --wait (60 s)',
    });
    const { serverWaitMs: _, ...older } = defaultRateLimitPolicy;
    expect(decideRateLimit(sec, 0, NOW, older)).toMatchObject({ action: 'wait', waitMs: 60_000 });
    expect(decideRateLimit(sec, 0, NOW, { ...defaultRateLimitPolicy, serverWaitMs: 0 })).toMatchObject({ action: 'fail' });
    const pri = classifyRateLimit(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 + 5) }, 'API rate limit exceeded', NOW)!;
    expect(decideRateLimit(pri, 0, NOW, defaultRateLimitPolicy)).toMatchObject({ action: 'fail', reason: 'primary rate limit exceeded' });
  });
  it('an HTTP-date retry-after is measured against the server clock (skew)', () => {
    const serverNow = NOW + 3_600_000; // server an hour ahead
    const c = classifyRateLimit(
      403,
      { 'retry-after': new Date(serverNow + 20_000).toUTCString(), date: new Date(serverNow).toUTCString() },
      'You have exceeded a secondary rate limit',
      NOW,
    )!;
    expect(c.skewMs).toBe(3_600_000);
    expect(decideRateLimit(c, 0, NOW, waitPolicy)).toMatchObject({ action: 'wait', waitMs: 20_000 });
  });
  it('a primary reset already past still waits a second (never before the reset)', () => {
    const c = classifyRateLimit(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(NOW / 1000 - 5) }, 'API rate limit exceeded', NOW)!;
    expect(decideRateLimit(c, 0, NOW, waitPolicy)).toMatchObject({ action: 'wait', waitMs: 1000 });
  });
  it('primary without a reset header fails', () => {
    const c = classifyRateLimit(403, { 'x-ratelimit-remaining': '0', 'x-ratelimit-limit': '60' }, 'API rate limit exceeded', NOW)!;
    expect(decideRateLimit(c, 0, NOW, waitPolicy)).toMatchObject({ action: 'fail' });
  });
  it('a secondary refusal with retry-after still gives up after the retry cap', () => {
    const c = classifyRateLimit(403, { 'retry-after': '1' }, 'You have exceeded a secondary rate limit', NOW)!;
    expect(decideRateLimit(c, defaultRateLimitPolicy.maxSecondaryRetries, NOW, waitPolicy)).toMatchObject({
      action: 'fail',
      reason: expect.stringMatching(/gave up/),
    });
  });
  it('recognises the abuse-detection wording of older servers', () => {
    expect(classifyRateLimit(403, {}, 'You have triggered an abuse detection mechanism.', NOW)?.kind).toBe('secondary');
  });
});
