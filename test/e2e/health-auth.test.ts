/**
 * End to end: `lanyard auth login --health` (OAuth 2.0 implicit flow) driven
 * through the emulator's sign-in page in headless Chromium. The CLI "opens"
 * the URL through a LANYARD_BROWSER script that records it; Chromium then
 * signs in, the emulator redirects to the loopback listener with the token in
 * the fragment, and the loopback page posts it back to the CLI. What the
 * commands do with a stored token (events, the environment's precedence,
 * logout, expiry), --no-browser and a missing health.clientId are tested on
 * the run functions in test/unit/cli/health/auth.test.ts.
 */
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startWorld, type CliResult, type World } from './harness.js';

interface HealthInfo {
  subscriptionId: string;
  clientId: string;
  user: { login: string; password: string };
}

let world: World;
let browser: Browser;
let info: HealthInfo;
let dir: string;
let urlFile: string;
let browserScript: string;

beforeAll(async () => {
  world = await startWorld();
  info = ((await (await fetch(`${world.url}/_emulator/info`)).json()) as { health: HealthInfo }).health;
  dir = await mkdtemp(join(tmpdir(), 'lanyard-health-auth-'));
  browserScript = join(dir, 'browser.sh');
  urlFile = join(dir, 'opened-urls');
  await writeFile(browserScript, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${urlFile}'\n`);
  await chmod(browserScript, 0o755);
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
});
afterAll(async () => {
  await browser?.close();
  await world?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  await world.admin('reset');
  await writeFile(urlFile, '');
});

const env = (extra: Record<string, string> = {}) => ({ LANYARD_BROWSER: browserScript, TZ: 'UTC', ...extra });
const cli = (args: string[], extra: Record<string, string | undefined> = {}) =>
  world.run(['--profile', 'emulator', ...args], { env: { ...env(), ...extra } as Record<string, string> });

/** Starts `auth login --health` and resolves with the URL it asked the browser to open. */
async function startLogin(args: string[] = []): Promise<{ url: URL; done: Promise<CliResult> }> {
  const done = cli(['auth', 'login', '--health', '--timeout', '20s', ...args]);
  for (let i = 0; i < 200; i++) {
    const text = (await readFile(urlFile, 'utf8')).trim();
    if (text) return { url: new URL(text.split('\n')[0]!), done };
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the CLI never opened a browser: ${JSON.stringify(await done)}`);
}

async function signIn(page: Page, url: string, login = info.user.login, password = info.user.password): Promise<void> {
  await page.goto(url);
  await page.fill('#login', login);
  await page.fill('#password', password);
  await page.click('#signin');
}

describe('auth login --health (implicit flow)', () => {
  it('signs in through the emulator page; the token is stored (not in the config file) and shown by auth token and auth status', async () => {
    const { url, done } = await startLogin();
    expect(url.origin + url.pathname).toBe(`${world.url}/common/oauth2/authorize`);
    const p = url.searchParams;
    expect(p.get('response_type')).toBe('token');
    expect(p.get('client_id')).toBe(info.clientId);
    expect(p.get('scope')).toBe('user_impersonation');
    expect(p.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(p.get('state')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(p.get('nonce')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(p.get('nonce')).not.toBe(p.get('state'));

    const page = await browser.newPage();
    try {
      // A wrong password keeps the user on the page.
      await signIn(page, url.toString(), info.user.login, 'wrong');
      await expect(page.textContent('#error')).resolves.toContain('incorrect');
      await page.fill('#password', info.user.password);
      await page.click('#signin');
      await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/callback/);
      await page.locator('h1', { hasText: /^Signed in/ }).waitFor();
      // The relay page removes the token from the address bar.
      expect(page.url()).not.toContain('access_token');
    } finally {
      await page.close();
    }
    const r = await done;
    expect(r.stderr).toMatch(/✓ Signed in to the service-health API at 127\.0\.0\.1:\d+ \(token stored in the file store; expires .*in (59m|60m|1h)\)/);
    expect(r.code).toBe(0);
    const token = await cli(['auth', 'token', '--health']);
    expect(token.code).toBe(0);
    // A JWT, as the cloud sign-in host issues them; auth status names the user from its claims.
    expect(token.stdout.trim()).toMatch(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);
    const status = await cli(['auth', 'status', '--json']);
    expect((JSON.parse(status.stdout) as { accounts: Array<{ service: string; user?: string }> }).accounts).toContainEqual(
      expect.objectContaining({ service: 'health', user: info.user.login }),
    );
    // Stored with its expiry in the credential store (0600 file here), never in the config file.
    const creds = JSON.parse(await readFile(join(world.configDir, 'credentials.json'), 'utf8')) as unknown;
    expect(JSON.stringify(creds)).toContain(token.stdout.trim());
    expect(JSON.stringify(creds)).toContain('expires_at');
    expect(await readFile(join(world.configDir, 'config.json'), 'utf8')).not.toContain(token.stdout.trim());
    expect(r.stderr).not.toContain(token.stdout.trim());
    // Signed out again for the next tests (which check that nothing is stored).
    expect((await cli(['auth', 'logout', '--health'])).code).toBe(0);
  });

  it('cancel on the sign-in page ends the CLI with access_denied and stores nothing', async () => {
    const { url, done } = await startLogin();
    const page = await browser.newPage();
    await page.goto(url.toString());
    await page.click('#cancel');
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/callback/);
    await page.close();
    const r = await done;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/access_denied: the user cancelled the sign-in/);
    expect((await cli(['auth', 'token', '--health'])).code).toBe(4);
  });

  it('a response carrying another state is refused (forged redirect)', async () => {
    const { url, done } = await startLogin();
    url.searchParams.set('state', 'forged-state');
    const page = await browser.newPage();
    await signIn(page, url.toString());
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/callback/);
    await page.locator('h1', { hasText: 'state mismatch' }).waitFor();
    await page.close();
    const r = await done;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/state does not match/);
    expect((await cli(['auth', 'token', '--health'])).code).toBe(4);
  });

  it('the sign-in page refuses unknown clients and non-loopback http redirect URIs without redirecting', async () => {
    const base = `${world.url}/common/oauth2/authorize?response_type=token&scope=user_impersonation&state=s`;
    const unknown = await fetch(`${base}&client_id=nope&redirect_uri=${encodeURIComponent('http://127.0.0.1:9/callback')}`, { redirect: 'manual' });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('unknown client_id');
    const remote = await fetch(`${base}&client_id=${info.clientId}&redirect_uri=${encodeURIComponent('http://evil.example/cb')}`, { redirect: 'manual' });
    expect(remote.status).toBe(400);
    const code = await fetch(
      `${base.replace('response_type=token', 'response_type=code')}&client_id=${info.clientId}&redirect_uri=${encodeURIComponent('http://127.0.0.1:9/callback')}`,
      { redirect: 'manual' },
    );
    expect(code.status).toBe(302);
    expect(code.headers.get('location')).toBe(
      'http://127.0.0.1:9/callback#error=unsupported_response_type&error_description=response_type+%27code%27+is+not+supported%3B+use+%27token%27&state=s',
    );
  });
});
