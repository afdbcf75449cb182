/**
 * A token's expiry (`auth status`, `--expires-within`) and `auth refresh` by
 * the device flow, as run functions against the in-process emulator (formerly
 * spawned in test/e2e/accounts.test.ts, which keeps the directory bindings,
 * single sign-on through the program's HTTP port, and the refreshes approved
 * in Chromium).
 */
import { describe, expect, it } from 'vitest';
import type { ApiOptions } from '../../../../src/cli/commands/api/options.js';
import { runApi } from '../../../../src/cli/commands/api/run.js';
import { runAuthRefresh } from '../../../../src/cli/commands/auth/refresh.js';
import { runAuthStatus, runAuthToken } from '../../../../src/cli/commands/auth/run.js';
import { type RunOptions, useEmulatorCommands } from '../on-emulator.js';

const cmd = useEmulatorCommands();
const PERSONAL_TOKEN = 'lyp_emulator_default_token_0000000000000001';
const host = () => new URL(cmd.emu.url).host;
const status = (o: Parameters<typeof runAuthStatus>[1] = {}, r: RunOptions = {}) => cmd.run((ctx) => runAuthStatus(ctx, o), r);
const apiOptions: ApiOptions = { header: [], rawField: [], field: [], service: 'hosting' };
async function withToken(t: string): Promise<void> {
  const r = await cmd.run((ctx) => runAuthToken(ctx, { withToken: true }), { stdin: t });
  expect(r.code, r.stderr).toBe(0);
}
async function issue(expiresIn?: number): Promise<string> {
  const r = (await cmd.emu.admin('hosting', 'issue-personal-token', { login: 'mona', scopes: 'repo', ...(expiresIn ? { expiresIn } : {}) })) as {
    token: string;
  };
  return r.token;
}

describe('token expiry', () => {
  it('an expiring personal token: its expiry is kept with it and shown; --expires-within exits 4 inside the window and 0 outside', async () => {
    const token = await issue(3 * 86_400);
    await withToken(token);
    const record = JSON.parse(cmd.store.data.get(`hosting:${host()}:mona`)!) as { expiresAt?: string };
    const expires = Date.parse(record.expiresAt ?? '');
    expect(Math.abs(expires - (cmd.emu.now() + 3 * 86_400_000))).toBeLessThan(120_000);
    const json = await status({}, { format: 'json' });
    const entry = (JSON.parse(json.stdout) as { accounts: Array<{ service: string; expiresAt?: string }> }).accounts.find((e) => e.service === 'hosting');
    expect(entry?.expiresAt).toBe(record.expiresAt);
    // Not a terminal: the table's expiry is in epoch seconds.
    const human = await status();
    expect(human.stdout.split('\t')).toContain(String(Math.floor(expires / 1000)));
    const soon = await status({ expiresWithin: '7d' });
    expect(soon.code).toBe(4);
    expect(soon.stderr).toContain('expires at');
    expect((await status({ expiresWithin: '1d' })).code).toBe(0);
    // The same token from the environment: the header says when it ends.
    expect((await status({ expiresWithin: '72h' }, { env: { LANYARD_TOKEN: token } })).code).toBe(4);
  });

  it('a token without an expiry: --expires-within exits 0; a bad duration is exit 2', async () => {
    await withToken(PERSONAL_TOKEN);
    const r = await status({ expiresWithin: '7d' });
    expect(r.code, r.stderr).toBe(0);
    expect((await status({ expiresWithin: 'soon' })).code).toBe(2);
  });
});

describe('auth refresh (device flow)', () => {
  it('renews a token that has already expired', async () => {
    await withToken(((await cmd.emu.admin('hosting', 'issue-personal-token', { login: 'mona', scopes: 'repo', expiresIn: 60 })) as { token: string }).token);
    cmd.clock.advance(120_000);
    expect((await cmd.run((ctx) => runApi(ctx, '/user', apiOptions))).code).toBe(4);
    cmd.answerDevice();
    const r = await cmd.run((ctx) => runAuthRefresh(ctx, {}));
    expect(r.code, r.stderr).toBe(0);
    const api = await cmd.run((ctx) => runApi(ctx, '/user', apiOptions), { format: 'json' });
    expect(api.code, api.stderr).toBe(0);
    expect((JSON.parse(api.stdout) as { login: string }).login).toBe('mona');
  });

  it('approved as another account: exit 4, and the stored token is left as it was', async () => {
    await withToken(PERSONAL_TOKEN);
    cmd.answerDevice(1, { login: 'hubot' });
    const r = await cmd.run((ctx) => runAuthRefresh(ctx, {}));
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('the sign-in was approved as hubot, not mona');
    expect((await cmd.run((ctx) => runAuthToken(ctx, {}))).stdout).toBe(`${PERSONAL_TOKEN}\n`);
  });

  it('headless rules as auth device: LANYARD_PROMPT_DISABLED refuses it (exit 4)', async () => {
    await withToken(PERSONAL_TOKEN);
    cmd.emu.clearRequests();
    const r = await cmd.run((ctx) => runAuthRefresh(ctx, {}), { env: { LANYARD_PROMPT_DISABLED: '1' } });
    expect(r.code).toBe(4);
    expect(cmd.emu.requests({ service: 'hosting' }).filter((e) => e.path === '/login/device/code')).toEqual([]);
  });
});

describe('auth refresh --web', () => {
  const ENV = { LANYARD_BROWSER: 'true', LANYARD_CLIENT_SECRET: 'lanyard-cli-emulator-secret-0000000000000001' };
  const USERS = { mona: 'lanyard-emulator-password', hubot: 'hubot-emulator-password' } as const;

  /** Signs in on the authorize page as `login` and approves, as the browser would; the loopback page's answer (held until the CLI decides). */
  async function approveAs(login: keyof typeof USERS): Promise<{ status: number; text: string }> {
    for (let i = 0; i < 500 && cmd.opened.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    const url = new URL(cmd.opened[0]!);
    const form = new URLSearchParams(url.searchParams);
    form.set('login', login);
    form.set('password', USERS[login]);
    form.set('authorize', '1');
    const approved = await fetch(new URL(url.pathname, url), { method: 'POST', body: form, redirect: 'manual' });
    await approved.arrayBuffer();
    expect(approved.status).toBe(302);
    const page = await fetch(approved.headers.get('location')!);
    return { status: page.status, text: await page.text() };
  }

  it('approved as another account: the page says the sign-in failed and why (decided before it answers); exit 4, the token left as it was', async () => {
    await withToken(PERSONAL_TOKEN);
    cmd.clock.autoAdvance = false;
    const done = cmd.run((ctx) => runAuthRefresh(ctx, { web: true }), { env: ENV });
    const page = await approveAs('hubot');
    expect(page.status).toBe(502);
    expect(page.text).toContain('Sign-in failed');
    expect(page.text).toContain('the sign-in was approved as hubot, not mona');
    const r = await done;
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain('the sign-in was approved as hubot, not mona');
    expect((await cmd.run((ctx) => runAuthToken(ctx, {}))).stdout).toBe(`${PERSONAL_TOKEN}\n`);
  });

  it('approved as the account: the page says signed in once the new token is stored', async () => {
    await withToken(PERSONAL_TOKEN);
    cmd.clock.autoAdvance = false;
    const done = cmd.run((ctx) => runAuthRefresh(ctx, { web: true }), { env: ENV });
    const page = await approveAs('mona');
    // Answered after the store: the token is already the new one when the page says so.
    const stored = (await cmd.run((ctx) => runAuthToken(ctx, {}))).stdout.trim();
    expect(page.status).toBe(200);
    expect(page.text).toContain('Signed in');
    expect(stored).not.toBe(PERSONAL_TOKEN);
    const r = await done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/✓ Refreshed the token of mona/);
  });
});
