/**
 * `auth login` (the web flow) as a run function against the in-process
 * emulator, the test acting as the browser with plain HTTP (formerly spawned
 * in test/e2e/auth-web.test.ts, which keeps the flows through the real pages
 * in Chromium): the options reaching the authorize URL, a forged state, no
 * client secret (exit 2), and the timeout.
 */
import { describe, expect, it } from 'vitest';
import { runAuthLogin } from '../../../../src/cli/commands/auth/login.js';
import type { AuthLoginOptions } from '../../../../src/cli/commands/auth/options.js';
import type { GlobalOptions } from '../../../../src/cli/root-options.js';
import { type RunResult, useEmulatorCommands } from '../on-emulator.js';

const cmd = useEmulatorCommands();
const SECRET = 'lanyard-cli-emulator-secret-0000000000000001';
/** LANYARD_BROWSER: an automated sign-in (no terminal here); the context's browser port records the URL. */
const ENV = { LANYARD_BROWSER: 'true', LANYARD_CLIENT_SECRET: SECRET };

/** Starts `auth login`; resolves with the authorize URL once the browser was asked to open it, and the run. */
async function startLogin(
  o: AuthLoginOptions = {},
  env: NodeJS.ProcessEnv = ENV,
  globals: GlobalOptions = {},
): Promise<{ url: string; done: Promise<RunResult> }> {
  const done = cmd.run((ctx) => runAuthLogin(ctx, o), { env, globals });
  for (let i = 0; i < 500 && cmd.opened.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  expect(cmd.opened).toHaveLength(1);
  return { url: cmd.opened[0]!, done };
}

describe('auth login (web flow)', () => {
  it('--login, --no-signup and --select-account reach the authorize URL', async () => {
    const { url, done } = await startLogin({ login: 'hubot', signup: false, selectAccount: true }, ENV, { timeout: '1s' });
    const u = new URL(url);
    expect(u.pathname).toBe('/login/oauth/authorize');
    expect(u.searchParams.get('login')).toBe('hubot');
    expect(u.searchParams.get('allow_signup')).toBe('false');
    expect(u.searchParams.get('prompt')).toBe('select_account');
    expect((await done).code).toBe(1);
  });

  it('state mismatch: the CLI aborts and stores nothing', async () => {
    // The wait for the browser is on the clock: held still, it waits as long as this test needs.
    cmd.clock.autoAdvance = false;
    const { url, done } = await startLogin();
    const back = new URL(new URL(url).searchParams.get('redirect_uri')!);
    back.searchParams.set('code', 'forged-code');
    back.searchParams.set('state', 'not-the-state-we-sent');
    const res = await fetch(back);
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('state mismatch');
    const r = await done;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/state does not match/);
    expect(cmd.store.data.size).toBe(0);
  });

  it('without a client secret, auth login explains and points to auth device (exit 2), opening nothing', async () => {
    const r = await cmd.run((ctx) => runAuthLogin(ctx, {}), { env: { LANYARD_BROWSER: 'true' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/client secret/);
    expect(r.stderr).toMatch(/lanyard auth device/);
    expect(cmd.opened).toEqual([]);
  });

  it('times out when the browser never comes back', async () => {
    const r = await cmd.run((ctx) => runAuthLogin(ctx, { browser: false }), { env: ENV, globals: { timeout: '1s' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Open this URL/);
    expect(r.stderr).toMatch(/timed out/);
    expect(cmd.opened).toEqual([]);
  });
});
