/**
 * The credential seam end to end: an installable app's expiring token (signed
 * in with `auth device`) is used by `ratelimit status`, `ratelimit wait` and
 * `api`, refreshed after a forced 401 (the emulator's fault API) and after it
 * expired (the emulator's clock); several processes refreshing one rotating
 * refresh token at once (the emulator revokes the family on reuse) all
 * succeed, for hosting and for a protocol server.
 */
import { describe, expect, it } from 'vitest';
import { cli, credentialsFile, INSTALLABLE_APP, start, USER_CODE, useAuthWorld } from './auth-helpers.js';
import type { CliResult, World } from './harness.js';
import { startWorld } from './harness.js';
import { configure, newClient, stats, tokensOf } from './protocol-helpers.js';

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

  it('eight processes refreshing one rotating refresh token at once all exit 0, and the account stays valid', async () => {
    const key = await signInInstallable();
    const first = await record(key);
    await world.admin('advance', { seconds: 8 * 3600 + 60 });
    const runs = await Promise.all(Array.from({ length: 8 }, () => cli(world, ['api', '/user'])));
    for (const r of runs) {
      ok(r);
      expect(JSON.parse(r.stdout).login).toBe('mona');
    }
    const after = await record(key);
    expect(after.refreshToken).not.toBe(first.refreshToken);
    const s = await cli(world, ['auth', 'status', '--json']);
    ok(s);
    const hosting = (JSON.parse(s.stdout).accounts as Array<{ service: string; account: string; valid: boolean }>).find((a) => a.service === 'hosting');
    expect(hosting).toMatchObject({ account: 'mona', valid: true });
  }, 90_000);
});

describe('protocol tokens', () => {
  it('four `protocol request` at once after expiry all succeed with one refresh', async () => {
    const w = await startWorld();
    try {
      const mcp = `${w.url}/mcp`;
      // 20 s tokens expire within the client's 30 s margin: every next call refreshes first.
      await configure(w, { accessTokenTtl: 20 });
      const c = await newClient('allow');
      ok(await w.run(['protocol', 'request', mcp], { env: c.env() }));
      const first = (await tokensOf(c, mcp))!;
      const before = (await stats(w)).tokenRequests.refresh_token ?? 0;
      const runs = await Promise.all(Array.from({ length: 4 }, () => w.run(['protocol', 'request', mcp, '--method', 'ping'], { env: c.env() })));
      for (const r of runs) ok(r);
      const s = await stats(w);
      expect(s.refreshReuseDetected).toBe(0);
      expect(await c.urls()).toHaveLength(1); // nobody had to sign in again
      // Each refresh was done by one process at a time, from the newest refresh token.
      expect((s.tokenRequests.refresh_token ?? 0) - before).toBeGreaterThanOrEqual(1);
      expect((await tokensOf(c, mcp))!.refreshToken).not.toBe(first.refreshToken);
    } finally {
      await w.stop();
    }
  }, 120_000);
});
