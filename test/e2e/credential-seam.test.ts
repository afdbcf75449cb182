/**
 * The credential seam end to end: an installable app's expiring token (signed
 * in with `auth device`) is used by `ratelimit status`, `ratelimit wait` and
 * `api`, refreshed after a forced 401 (the emulator's fault API) and after it
 * expired (the emulator's clock). Several processes refreshing one rotating
 * refresh token at once are cases of the fault suite
 * (test/fault/parallel-refreshers.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { cli, credentialsFile, INSTALLABLE_APP, start, USER_CODE, useAuthWorld } from './auth-helpers.js';
import type { CliResult, World } from './harness.js';

let world: World;
useAuthWorld((w) => (world = w));

async function signInInstallable(): Promise<string> {
  expect((await cli(world, ['config', 'set', 'hosting.clientId', INSTALLABLE_APP])).code).toBe(0);
  const run = start(world, ['auth', 'device']);
  const [, code] = await run.waitForStderr(USER_CODE);
  await world.admin('hosting/device-approve', { user_code: code });
  const r = await run.done;
  expect(r.code, r.stderr).toBe(0);
  return `hosting:${new URL(world.url).host}:mona`;
}

async function record(key: string): Promise<{ token: string; refreshToken: string }> {
  return JSON.parse((await credentialsFile(world))[key]!) as { token: string; refreshToken: string };
}

const ok = (r: CliResult) => expect(r.code, r.stderr).toBe(0);

describe('installable app (expiring user tokens)', () => {
  it('ratelimit status and ratelimit wait work with the stored token', async () => {
    await signInInstallable();
    const s = await cli(world, ['ratelimit', 'status', '--json']);
    ok(s);
    expect(JSON.parse(s.stdout).resources.core.limit).toBeGreaterThan(0);
    ok(await cli(world, ['ratelimit', 'wait', '--min', '1']));
    ok(await cli(world, ['ratelimit', 'status', '--fail-under', '1']));
  });

  it('ratelimit status and api refresh after a forced 401, saving the rotated refresh token', async () => {
    const key = await signInInstallable();
    const first = await record(key);
    await world.admin('faults', { path: '/api/v3/rate_limit', type: 'status', status: 401, count: 1 });
    ok(await cli(world, ['ratelimit', 'status', '--json']));
    const second = await record(key);
    expect(second.token).not.toBe(first.token);
    expect(second.refreshToken).not.toBe(first.refreshToken);

    await world.admin('faults', { path: '/api/v3/user', type: 'status', status: 401, count: 1 });
    const r = await cli(world, ['api', '/user']);
    ok(r);
    expect(JSON.parse(r.stdout).login).toBe('mona');
    expect((await record(key)).token).not.toBe(second.token);
  });

  it('api refreshes an expired token (emulator clock past the expiry)', async () => {
    const key = await signInInstallable();
    const first = await record(key);
    await world.admin('advance', { seconds: 8 * 3600 + 60 });
    const r = await cli(world, ['api', '/user']);
    ok(r);
    expect(JSON.parse(r.stdout).login).toBe('mona');
    expect((await record(key)).token).not.toBe(first.token);
    ok(await cli(world, ['ratelimit', 'wait', '--min', '1']));
  });
});
