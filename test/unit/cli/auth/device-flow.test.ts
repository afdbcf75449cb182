/**
 * `lanyard auth device` as a run function against the in-process emulator
 * (formerly spawned in test/e2e/auth-device.test.ts, which keeps the wiring:
 * one sign-in and Ctrl-C). The emulator's clock moves with the command's
 * sleeps, so intervals and expiry are checked on the server's own record of
 * the polls without waiting.
 */
import { describe, expect, it } from 'vitest';
import { runAuthDevice, runAuthStatus, runAuthToken } from '../../../../src/cli/commands/auth/run.js';
import { userCodeIn, useEmulatorCommands } from '../on-emulator.js';

const cmd = useEmulatorCommands();
const INSTALLABLE_APP = 'Iv1.lanyardinstallable';
const NO_DEVICE_APP = 'lanyard-web-only';

interface Poll {
  at: number;
  answer: string;
}
async function devices(): Promise<Array<{ user_code: string; polls: Poll[] }>> {
  return ((await cmd.emu.admin('hosting', 'devices')) as { devices: Array<{ user_code: string; polls: Poll[] }> }).devices;
}
const polls = async (): Promise<Poll[]> => (await devices()).at(-1)?.polls ?? [];

const stored = () => Object.fromEntries(cmd.store.data);
const accountKey = () => `hosting:${new URL(cmd.emu.url).host}:mona`;
async function userStatus(token: string): Promise<number> {
  const res = await fetch(`${cmd.emu.url}/api/v3/user`, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  return res.status;
}

describe('auth device on the emulator', () => {
  it('shows the code and where to enter it, stores the token under the login, only there', async () => {
    cmd.answerDevice(1);
    const r = await cmd.run((ctx) => runAuthDevice(ctx, { scopes: 'repo read:org' }));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Then open ${cmd.emu.url}/login/device in a browser`);
    expect(r.stderr).toContain('Logged in as mona');
    const record = JSON.parse(stored()[accountKey()]!) as { token: string; scopes: string[] };
    expect(record.scopes).toEqual(['repo', 'read:org']);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toContain(record.token);
    const printed = await cmd.run((ctx) => runAuthToken(ctx, {}));
    expect(printed.stdout).toBe(`${record.token}\n`);
  });

  it('slow_down: the interval grows by 5 s and keeps its new value for later polls', async () => {
    await cmd.emu.admin('hosting', 'device-policy', { interval: 1, slowDownNext: 1 });
    cmd.answerDevice(3);
    const r = await cmd.run((ctx) => runAuthDevice(ctx, {}));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('server asked to slow down: polling every 6 s');
    const p = await polls();
    expect(p[0]!.answer).toBe('slow_down');
    expect(p.at(-1)!.answer).toBe('token');
    expect(p.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < p.length; i++) expect(p[i]!.at - p[i - 1]!.at).toBeGreaterThanOrEqual(6000);
    expect(p.some((x) => x.answer === 'slow_down' && x !== p[0])).toBe(false);
  });

  it('expiry (server): after the code expires the CLI says so, exit 4, nothing stored', async () => {
    let first = true;
    cmd.clock.onSleep = () => {
      if (first) cmd.emu.advance(901_000);
      first = false;
    };
    const r = await cmd.run((ctx) => runAuthDevice(ctx, {}));
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/expired/);
    expect((await polls()).at(-1)!.answer).toBe('expired_token');
    expect(stored()).toEqual({});
  });

  it('expiry (client): stops polling at expires_in by its own monotonic clock', async () => {
    await cmd.emu.admin('hosting', 'device-policy', { interval: 1, expiresIn: 3 });
    // The server's code never expires here: only the client's clock can end the wait.
    cmd.clock.coupled = false;
    const r = await cmd.run((ctx) => runAuthDevice(ctx, {}));
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/code expired/);
    expect(r.stderr).toMatch(/run `lanyard auth device` again/);
    expect((await polls()).length).toBeLessThanOrEqual(3);
    expect(r.clock.monotonic()).toBeLessThanOrEqual(3000);
  });

  it('denial: cancelled by the user, exit 4, nothing stored', async () => {
    cmd.answerDevice(1, { deny: true });
    const r = await cmd.run((ctx) => runAuthDevice(ctx, {}));
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/cancelled by the user/);
    expect(stored()).toEqual({});
  });

  it('device flow disabled for the app: a clear message, exit 1', async () => {
    const r = await cmd.run((ctx) => runAuthDevice(ctx, {}), { settings: { 'hosting.clientId': NO_DEVICE_APP } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/device flow is not enabled for this OAuth app/);
    expect(r.stderr).toMatch(/auth login/);
  });

  it('a transient network error while polling is retried', async () => {
    cmd.emu.fault({ path: '/login/oauth/access_token', type: 'reset', count: 1 });
    cmd.answerDevice(2);
    const r = await cmd.run((ctx) => runAuthDevice(ctx, {}));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/polling failed/);
  });

  it('installable app: stores the expiry and refresh token; an expired token is refreshed after a 401 and the rotated refresh token saved', async () => {
    const settings = { 'hosting.clientId': INSTALLABLE_APP };
    cmd.answerDevice(1);
    expect((await cmd.run((ctx) => runAuthDevice(ctx, {}), { settings })).code).toBe(0);
    const first = JSON.parse(stored()[accountKey()]!) as { token: string; expiresAt: string; refreshToken: string };
    expect(first.token).toMatch(/^lyu_/);
    expect(Date.parse(first.expiresAt) - cmd.emu.now()).toBeGreaterThan(7.9 * 3600_000);
    expect(first.refreshToken).toMatch(/^lyr_/);
    cmd.clock.advance((8 * 3600 + 60) * 1000);
    expect(await userStatus(first.token)).toBe(401);
    const s = await cmd.run((ctx) => runAuthStatus(ctx, {}), { settings, format: 'json' });
    expect(s.code, s.stderr).toBe(0);
    const second = JSON.parse(stored()[accountKey()]!) as { token: string; refreshToken: string };
    expect(second.token).not.toBe(first.token);
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(await userStatus(second.token)).toBe(200);
    expect(s.stdout).not.toContain(second.token);
  });

  it('without a terminal in CI: one device_code event line on stderr besides the plain lines', async () => {
    cmd.answerDevice();
    const r = await cmd.run((ctx) => runAuthDevice(ctx, {}), { env: { CI: 'true' } });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('{'));
    expect(lines).toHaveLength(1);
    const event = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(event).toMatchObject({ event: 'device_code', user_code: userCodeIn(r.stderr), verification_uri: `${cmd.emu.url}/login/device`, expires_in: 900 });
    expect(event.interval).toBeGreaterThanOrEqual(1);
  });

  it('LANYARD_PROMPT_DISABLED still refuses it without a terminal: exit 4 at once, no code requested', async () => {
    const r = await cmd.run((ctx) => runAuthDevice(ctx, {}), { env: { LANYARD_PROMPT_DISABLED: '1' } });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/LANYARD_PROMPT_DISABLED is set/);
    expect(r.stderr).toMatch(/LANYARD_TOKEN/);
    expect(await devices()).toEqual([]);
  });
});
