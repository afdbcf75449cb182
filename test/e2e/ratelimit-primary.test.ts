/**
 * The primary-limit path between the real HTTP client and the emulator
 * (in-process, real HTTP on 127.0.0.1): no command of this issue spends core
 * budget (`GET /rate_limit` is free), so the client is driven directly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/server.js';
import { HttpClient } from '../../src/core/http/client.js';
import { RateLimitError } from '../../src/core/errors.js';
import { defaultRateLimitPolicy } from '../../src/core/ratelimit/policy.js';
import { systemClock } from '../../src/core/system-clock.js';

const TOKEN = 'lyp_emulator_default_token_0000000000000001';
let emu: Emulator;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
});
afterAll(async () => {
  await emu.close();
});

const admin = (path: string, body: unknown) =>
  fetch(`${emu.url}/_emulator/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('primary limit, client ↔ emulator', () => {
  it('without waiting: RateLimitError naming the caller and the reset; with waiting: retried after the reset', async () => {
    // The emulator clock runs an hour ahead: the client must use the Date header, not its own clock.
    await admin('advance', { ms: 3_600_000 });
    await admin('hosting/budget', { login: 'mona', remaining: 0, resetInSeconds: 2 });
    const credential = { scheme: 'bearer' as const, token: TOKEN };
    const failing = new HttpClient({ clock: systemClock, userAgent: 'lanyard/test' });
    const err = (await failing.request({ url: 'user', baseUrl: `${emu.url}/api/v3`, credential }).catch((e: unknown) => e)) as RateLimitError;
    await failing.close();
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.kind).toBe('primary');
    expect(err.message).toMatch(/^API rate limit exceeded for user ID 1; the budget resets at /);
    expect(err.resetAt! - Date.now()).toBeGreaterThan(500);
    expect(err.resetAt! - Date.now()).toBeLessThan(4000);

    const waits: number[] = [];
    const waiting = new HttpClient({
      clock: systemClock,
      userAgent: 'lanyard/test',
      rateLimitPolicy: { ...defaultRateLimitPolicy, wait: true },
      onRateLimitWait: (i) => waits.push(i.waitMs),
    });
    const t0 = Date.now();
    const res = await waiting.request({ url: 'user', baseUrl: `${emu.url}/api/v3`, credential });
    await waiting.close();
    expect(res.status).toBe(200);
    expect(((await res.json()) as { login: string }).login).toBe('mona');
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeLessThan(4000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(waits[0]! - 50);
    expect(res.rateLimit).toMatchObject({ limit: 5000, used: 1, remaining: 4999, resource: 'core' });
  });
});
