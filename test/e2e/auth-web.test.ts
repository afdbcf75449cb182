/**
 * Full flows through the emulator's real pages in headless Chromium: the
 * device flow (code page + consent) and the web flow (sign-in + consent,
 * loopback redirect back to the CLI), plus the refusals the pages make. The
 * web flow's own refusals (a forged state, no client secret, the timeout) and
 * its options in the authorize URL are tested as a run function in
 * test/unit/cli/auth/web-login.test.ts.
 */
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';
import { runOnPty } from './pty.js';
import { launchBrowser, withPage } from './browser.js';
import {
  answerDeviceCode,
  APP,
  credentialsFile,
  MONA,
  recordingBrowser,
  signIn,
  start,
  text,
  tokens,
  USER_CODE,
  VERIFICATION_URI,
  waitFor,
} from './auth-helpers.js';

let world: World;
let browser: Browser;
let dir: string;
let rec: Awaited<ReturnType<typeof recordingBrowser>>;

beforeAll(async () => {
  [world, browser] = await Promise.all([startWorld(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await world?.stop();
});
beforeEach(async () => {
  await world.admin('reset');
  await world.admin('hosting/device-policy', { interval: 1 });
  dir = await mkdtemp(join(tmpdir(), 'lanyard-web-'));
  rec = await recordingBrowser(dir);
  await rm(join(world.configDir, 'credentials.json'), { force: true });
  return () => rm(dir, { recursive: true, force: true });
});

/** Starts `auth login` and returns the authorize URL it asked the browser to open. */
async function startLogin(args: string[] = [], env: Record<string, string> = { LANYARD_CLIENT_SECRET: APP.clientSecret }) {
  const run = start(world, ['auth', 'login', ...args], { env: { LANYARD_BROWSER: rec.script, ...env } });
  const url = await waitFor(async () => (await rec.urls())[0]);
  return { run, url };
}

describe('device flow through the real pages', () => {
  it('sign in, enter the code, authorize: the CLI logs in', async () => {
    const run = start(world, ['auth', 'device', '--scopes', 'repo']);
    const [, code] = await run.waitForStderr(USER_CODE);
    const [, verification] = await run.waitForStderr(VERIFICATION_URI);
    await withPage(browser, async (page) => {
      await signIn(page, verification!);
      await page.fill('input[name=user_code]', code!.toLowerCase().replace('-', ''));
      await page.click('#continue');
      expect(await text(page, '#scopes')).toContain('repo');
      await page.click('button[name=authorize][value="1"]');
      expect(await text(page, '#done')).toContain('connected');
    });
    const r = await run.done;
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Logged in as mona');
  });

  it('cancel on the consent page: access denied, exit 4, and the code cannot be used again', async () => {
    const run = start(world, ['auth', 'device']);
    const [, code] = await run.waitForStderr(USER_CODE);
    const [, verification] = await run.waitForStderr(VERIFICATION_URI);
    await withPage(browser, async (page) => {
      await answerDeviceCode(page, verification!, code!, { deny: true });
      expect(await text(page, 'h1')).toContain('cancelled');
      const r = await run.done;
      expect(r.code).toBe(4);
      expect(r.stderr).toMatch(/cancelled by the user/);
      await page.goto(verification!);
      await page.fill('input[name=user_code]', code!);
      await page.click('#continue');
      expect(await text(page, '#error')).toContain('already been used');
    });
  });
});

describe('web flow through the real pages', () => {
  it('sign in and authorize: the loopback receives the code and the CLI logs in', async () => {
    const { run, url } = await startLogin(['--scopes', 'repo gist']);
    const u = new URL(url);
    expect(u.pathname).toBe('/login/oauth/authorize');
    expect(u.searchParams.get('client_id')).toBe(APP.clientId);
    expect(u.searchParams.get('scope')).toBe('repo gist');
    expect(u.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(u.searchParams.get('state')!.length).toBeGreaterThanOrEqual(43);
    expect(u.searchParams.has('code_challenge')).toBe(false);
    await withPage(browser, async (page) => {
      await signIn(page, url);
      await page.click('button[name=authorize][value="1"]');
      expect(await text(page, 'h1')).toContain('Signed in');
      expect(page.url()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?code=/);
    });
    const r = await run.done;
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Logged in as mona');
    const t = await tokens(world, { login: 'mona', clientId: APP.clientId });
    expect(t.map((x) => x.scopes)).toEqual([['repo', 'gist']]);
    // The client secret was neither printed nor stored.
    expect(r.stdout + r.stderr).not.toContain(APP.clientSecret);
    expect(JSON.stringify(await credentialsFile(world))).not.toContain(APP.clientSecret);
  });

  it('without LANYARD_BROWSER or BROWSER the URL goes to the `open` package (xdg-open, then a browser on PATH)', async () => {
    // No display: xdg-open falls back to www-browser, here the recording script.
    await symlink(rec.script, join(dir, 'www-browser'));
    // On a terminal: a sign-in without LANYARD_BROWSER starts only with a person there.
    const r = await runOnPty({
      args: ['--profile', 'emulator', 'auth', 'login'],
      env: {
        ...world.env,
        LANYARD_CLIENT_SECRET: APP.clientSecret,
        LANYARD_BROWSER: undefined,
        BROWSER: undefined,
        DISPLAY: undefined,
        WAYLAND_DISPLAY: undefined,
        XDG_CURRENT_DESKTOP: undefined,
        PATH: `${dir}:${process.env.PATH}`,
      },
      // open() reported success (the CLI says so; a failed load of `open` would say "Open this URL").
      waitFor: 'Asked the system to open a browser',
    });
    const url = await waitFor(async () => (await rec.urls())[0]);
    expect(new URL(url).pathname).toBe('/login/oauth/authorize');
    expect(r.exitCode, r.output).toBe(130);
  });

  it('the client secret can come from stdin', async () => {
    const run = start(world, ['auth', 'login'], { env: { LANYARD_BROWSER: rec.script }, input: `${APP.clientSecret}\n` });
    const url = await waitFor(async () => (await rec.urls())[0]);
    await withPage(browser, async (page) => {
      await signIn(page, url);
      await page.click('#authorize');
      expect(await text(page, 'h1')).toContain('Signed in');
    });
    expect((await run.done).code).toBe(0);
  });

  it('cancel on the consent page: the CLI reports access_denied and stores nothing', async () => {
    const { run, url } = await startLogin();
    await withPage(browser, async (page) => {
      await signIn(page, url);
      await page.click('#cancel');
      expect(await text(page, 'h1')).toContain('not completed');
    });
    const r = await run.done;
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/cancelled in the browser \(access denied\)/);
    expect(await credentialsFile(world)).toEqual({});
  });

  it('a wrong password keeps the user on the sign-in page', async () => {
    const { run, url } = await startLogin();
    await withPage(browser, async (page) => {
      await signIn(page, url, 'wrong');
      await page.click('#authorize');
      expect(await text(page, '#error')).toContain('Incorrect username or password');
      expect(await page.inputValue('input[name=login]')).toBe(MONA.login);
    });
    run.child.kill('SIGINT');
    expect((await run.done).code).toBe(130);
  });

  it('--login, --no-signup and --select-account reach the page', async () => {
    const { run, url } = await startLogin(['--login', 'hubot', '--no-signup', '--select-account']);
    const u = new URL(url);
    expect(u.searchParams.get('login')).toBe('hubot');
    expect(u.searchParams.get('allow_signup')).toBe('false');
    expect(u.searchParams.get('prompt')).toBe('select_account');
    await withPage(browser, async (page) => {
      await page.goto(url);
      expect(await page.inputValue('input[name=login]')).toBe('hubot');
      expect(await page.locator('#signup').count()).toBe(0);
      await page.fill('input[name=password]', 'hubot-emulator-password');
      await page.click('#authorize');
      expect(await text(page, 'h1')).toContain('Signed in');
    });
    const r = await run.done;
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Logged in as hubot');
  });

  it('redirect rule rejection: an app whose callback path is elsewhere refuses the loopback redirect_uri', async () => {
    await world.admin('hosting/add-app', { clientId: 'other-path-app', clientSecret: 'other-secret', callbackUrl: 'http://127.0.0.1/oauth/done' });
    const { run, url } = await startLogin(['--client-id', 'other-path-app', '--timeout', '1s'], { LANYARD_CLIENT_SECRET: 'other-secret' });
    await withPage(browser, async (page) => {
      const res = await page.goto(url);
      expect(res!.status()).toBe(400);
      expect(await text(page, 'h1')).toContain('redirect_uri_mismatch');
    });
    const r = await run.done;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/timed out/);
    expect(await credentialsFile(world)).toEqual({});
  });
});
