/**
 * The credential seam end to end: an installable app's expiring token (signed
 * in with `auth device`) is used by `ratelimit status`, `ratelimit wait` and
 * `api`, refreshed after a forced 401 (the emulator's fault API) and after it
 * expired (the emulator's clock). Several processes refreshing one rotating
 * refresh token at once are cases of the fault suite
 * (test/fault/parallel-refreshers.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { cli, signInInstallable, storedRecord, useAuthWorld } from './auth-helpers.js';
import type { CliResult, World } from './harness.js';

let world: World;
useAuthWorld((w) => (world = w));

const ok = (r: CliResult) => expect(r.code, r.stderr).toBe(0);

describe('installable app (expiring user tokens)', () => {
  it('ratelimit status and ratelimit wait work with the stored token', async () => {
    await signInInstallable(world);
    const s = await cli(world, ['ratelimit', 'status', '--json']);
    ok(s);
    expect(JSON.parse(s.stdout).resources.core.limit).toBeGreaterThan(0);
    ok(await cli(world, ['ratelimit', 'wait', '--min', '1']));
    ok(await cli(world, ['ratelimit', 'status', '--fail-under', '1']));
  });

  it('ratelimit status and api refresh after a forced 401, saving the rotated refresh token', async () => {
    const key = await signInInstallable(world);
    const first = await storedRecord(world, key);
    await world.admin('faults', { path: '/api/v3/rate_limit', type: 'status', status: 401, count: 1 });
    ok(await cli(world, ['ratelimit', 'status', '--json']));
    const second = await storedRecord(world, key);
    expect(second.token).not.toBe(first.token);
    expect(second.refreshToken).not.toBe(first.refreshToken);

    await world.admin('faults', { path: '/api/v3/user', type: 'status', status: 401, count: 1 });
    const r = await cli(world, ['api', '/user']);
    ok(r);
    expect(JSON.parse(r.stdout).login).toBe('mona');
    expect((await storedRecord(world, key)).token).not.toBe(second.token);
  });

  it('api refreshes an expired token (emulator clock past the expiry)', async () => {
    const key = await signInInstallable(world);
    const first = await storedRecord(world, key);
    await world.admin('advance', { seconds: 8 * 3600 + 60 });
    const r = await cli(world, ['api', '/user']);
    ok(r);
    expect(JSON.parse(r.stdout).login).toBe('mona');
    expect((await storedRecord(world, key)).token).not.toBe(first.token);
    ok(await cli(world, ['ratelimit', 'wait', '--min', '1']));
  });
});
