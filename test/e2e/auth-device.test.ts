/** Device flow end to end: CLI ↔ emulator (the user's answer given through the admin verb). */
import { readFile } from 'node:fs/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import type { World } from './harness.js';
import { cli, credentialsFile, INSTALLABLE_APP, NO_DEVICE_APP, start, tokens, useAuthWorld, USER_CODE, userStatus } from './auth-helpers.js';

let world: World;
useAuthWorld((w) => (world = w));
beforeEach(async () => {
  await cli(world, ['config', 'set', 'hosting.clientId', 'lanyard-cli-emulator']);
});

interface Poll {
  at: number;
  answer: string;
}
async function polls(): Promise<Poll[]> {
  const d = (await world.admin('hosting/devices')) as { devices: Array<{ polls: Poll[] }> };
  return d.devices.at(-1)?.polls ?? [];
}

describe('auth device', () => {
  it('happy path: shows the code, polls, revalidates with /user, stores under the login', async () => {
    const run = start(world, ['auth', 'device', '--scopes', 'repo read:org']);
    const [, code] = await run.waitForStderr(USER_CODE);
    await run.waitForStderr(new RegExp(`${world.url.replace(/[.]/g, '\\.')}/login/device`));
    await world.admin('hosting/device-approve', { user_code: code });
    const r = await run.done;
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Logged in as mona');
    const t = (await tokens(world, { login: 'mona', clientId: 'lanyard-cli-emulator' }))[0]!;
    expect(t.scopes).toEqual(['repo', 'read:org']);
    const creds = await credentialsFile(world);
    expect(JSON.parse(creds[`hosting:${new URL(world.url).host}:mona`]!).token).toBe(t.value);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toContain(t.value);
    const cfg = await readFile(`${world.configDir}/config.json`, 'utf8');
    expect(cfg).not.toContain(t.value);
    const printed = await cli(world, ['auth', 'token']);
    expect(printed.stdout.trim()).toBe(t.value);
  });

  it('slow_down: the interval grows by 5 s and keeps its new value for later polls', async () => {
    await world.admin('hosting/device-policy', { interval: 1, slowDownNext: 1 });
    const run = start(world, ['auth', 'device']);
    await run.waitForStderr(USER_CODE);
    await run.waitForStderr(/slow down: polling every 6 s/, 10_000);
    // Authorize only once a poll at the new interval has been answered "pending" (no fixed sleep: under load the CLI's timer may fire late).
    for (let i = 0; i < 150 && (await polls()).length < 2; i++) await new Promise((r) => setTimeout(r, 100));
    const [, code] = USER_CODE.exec(run.stderr())!;
    await world.admin('hosting/device-approve', { user_code: code });
    const r = await run.done;
    expect(r.code).toBe(0);
    const p = await polls();
    expect(p[0]!.answer).toBe('slow_down');
    expect(p.at(-1)!.answer).toBe('token');
    expect(p.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < p.length; i++) expect(p[i]!.at - p[i - 1]!.at).toBeGreaterThanOrEqual(6000);
    expect(p.some((x) => x.answer === 'slow_down' && x !== p[0])).toBe(false);
  }, 40_000);

  it('expiry (server): after the code expires the CLI says so and exits 4', async () => {
    const run = start(world, ['auth', 'device']);
    await run.waitForStderr(USER_CODE);
    await world.admin('advance', { seconds: 901 });
    const r = await run.done;
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/expired/);
    expect((await polls()).at(-1)!.answer).toBe('expired_token');
    expect(await credentialsFile(world)).toEqual({});
  });

  it('expiry (client): stops polling at expires_in by its own monotonic clock', async () => {
    await world.admin('hosting/device-policy', { interval: 1, expiresIn: 3 });
    const t0 = Date.now();
    const r = await cli(world, ['auth', 'device']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/code expired/);
    expect(r.stderr).toMatch(/run `lanyard auth device` again/);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect((await polls()).length).toBeLessThanOrEqual(3);
  });

  it('denial: cancelled by the user, exit 4, nothing stored', async () => {
    const run = start(world, ['auth', 'device']);
    const [, code] = await run.waitForStderr(USER_CODE);
    await world.admin('hosting/device-approve', { user_code: code, deny: true });
    const r = await run.done;
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/cancelled by the user/);
    expect(await credentialsFile(world)).toEqual({});
  });

  it('device flow disabled for the app: a clear message, exit 1', async () => {
    await cli(world, ['config', 'set', 'hosting.clientId', NO_DEVICE_APP]);
    const r = await cli(world, ['auth', 'device']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/device flow is not enabled for this OAuth app/);
    expect(r.stderr).toMatch(/auth login/);
  });

  it('Ctrl-C while polling exits 130 and stores nothing', async () => {
    const run = start(world, ['auth', 'device']);
    const [, code] = await run.waitForStderr(USER_CODE);
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code).toBe(130);
    await world.admin('hosting/device-approve', { user_code: code });
    expect(await credentialsFile(world)).toEqual({});
  });

  it('a transient network error while polling is retried', async () => {
    const run = start(world, ['auth', 'device']);
    const [, code] = await run.waitForStderr(USER_CODE);
    await world.admin('faults', { path: '/login/oauth/access_token', type: 'reset', count: 1 });
    await run.waitForStderr(/polling failed/, 10_000);
    await world.admin('hosting/device-approve', { user_code: code });
    const r = await run.done;
    expect(r.code).toBe(0);
    await world.admin('faults', undefined, 'DELETE');
  });

  it('installable app: stores the expiry and refresh token; an expired token is refreshed after a 401 and the rotated refresh token saved', async () => {
    await cli(world, ['config', 'set', 'hosting.clientId', INSTALLABLE_APP]);
    const run = start(world, ['auth', 'device']);
    const [, code] = await run.waitForStderr(USER_CODE);
    await world.admin('hosting/device-approve', { user_code: code });
    expect((await run.done).code).toBe(0);
    const key = `hosting:${new URL(world.url).host}:mona`;
    const first = JSON.parse((await credentialsFile(world))[key]!) as { token: string; expiresAt: string; refreshToken: string };
    expect(first.token).toMatch(/^lyu_/);
    expect(Date.parse(first.expiresAt) - Date.now()).toBeGreaterThan(7.9 * 3600_000);
    expect(first.refreshToken).toMatch(/^lyr_/);
    await world.admin('advance', { seconds: 8 * 3600 + 60 });
    expect(await userStatus(world, first.token)).toBe(401);
    const s = await cli(world, ['auth', 'status', '--json']);
    expect(s.code).toBe(0);
    const second = JSON.parse((await credentialsFile(world))[key]!) as { token: string; refreshToken: string };
    expect(second.token).not.toBe(first.token);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(await userStatus(world, second.token)).toBe(200);
    expect(s.stdout).not.toContain(second.token);
  });
});
