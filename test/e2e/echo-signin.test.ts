/**
 * Browser sign-in of the id-token and app-platform schemes, end to end: the
 * built CLI opens the emulator's sign-in page (captured through
 * LANYARD_BROWSER), headless Chromium fills it in, the loopback redirect
 * completes the code + PKCE exchange, and the gateway checks the token.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startWorld, type CliResult, type World } from './harness.js';

vi.setConfig({ testTimeout: 120_000 });

let world: World;
let browser: Browser;
let dir: string;
let urlFile: string;
let opener: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-echo-signin-'));
  urlFile = join(dir, 'urls.txt');
  opener = join(dir, 'open-url.sh');
  await writeFile(opener, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${urlFile}'\n`);
  await chmod(opener, 0o755);
  [world, browser] = await Promise.all([
    startWorld(),
    chromium.launch({
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    }),
  ]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await world?.stop();
});

async function openedUrls(): Promise<string[]> {
  try {
    return (await readFile(urlFile, 'utf8')).split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/** Starts the CLI and resolves the URL it asks the browser to open. */
async function startSignIn(args: string[]): Promise<{ url: URL; done: Promise<CliResult> }> {
  const before = (await openedUrls()).length;
  const done = world.run(['--profile', 'emulator', ...args], { env: { LANYARD_BROWSER: opener }, timeoutMs: 90_000 });
  for (let i = 0; i < 600; i++) {
    const urls = await openedUrls();
    if (urls.length > before) return { url: new URL(urls[before]!), done };
    const early = await Promise.race([done, new Promise<undefined>((r) => setTimeout(() => r(undefined), 100))]);
    if (early) throw new Error(`the CLI ended before opening a browser: ${early.code} ${early.stderr}`);
  }
  throw new Error('no browser URL was opened');
}

async function signIn(page: Page, url: URL, email: string, password: string): Promise<void> {
  await page.goto(url.toString());
  await page.fill('input[name=email]', email);
  await page.fill('input[name=password]', password);
  await page.click('button[value=allow]');
}

describe('id-token scheme', () => {
  it('signs in through the page (code + PKCE on a loopback redirect) and caches the token', async () => {
    const { url, done } = await startSignIn(['echo', 'auth-info', '--scheme', 'id-token', '--json']);
    expect(url.origin + url.pathname).toBe(`${world.url}/idp/authorize`);
    const q = Object.fromEntries(url.searchParams);
    expect(q).toMatchObject({ client_id: 'lanyard-cli.apps.lanyard.test', response_type: 'code', scope: 'openid email', code_challenge_method: 'S256' });
    expect(q.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.redirect_uri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);

    const page = await browser.newPage();
    await page.goto(url.toString());
    expect(await page.title()).toContain('Lanyard Accounts');
    await page.fill('input[name=email]', 'ada@lanyard.test');
    await page.fill('input[name=password]', 'not-her-password');
    await page.click('button[value=allow]');
    await expect(page.locator('[role=alert]').textContent()).resolves.toContain('Wrong email or password.');
    await page.fill('input[name=password]', 'ada-password');
    await page.click('button[value=allow]');
    await page.waitForURL(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
    expect(await page.locator('h1').textContent()).toContain('Signed in');
    await page.close();

    const r = await done;
    expect(r.code, r.stderr).toBe(0);
    const info = JSON.parse(r.stdout) as { id: string; email: string };
    expect(info.email).toBe('ada@lanyard.test');
    expect(info.id).toMatch(/^\d{21}$/);
    expect(r.stderr).toContain('Signed in for ada@lanyard.test');

    // The token is in the credential store (0600 file here), never in the config file.
    const creds = JSON.parse(await readFile(join(world.configDir, 'credentials.json'), 'utf8')) as Record<string, string>;
    const account = `echo:idtoken:${new URL(world.url).host}`;
    expect(JSON.parse(creds[account]!)).toMatchObject({ clientId: 'lanyard-cli.apps.lanyard.test', email: 'ada@lanyard.test' });
    const config = await readFile(join(world.configDir, 'config.json'), 'utf8').catch(() => '');
    expect(config).not.toContain(JSON.parse(creds[account]!).token);
  });

  it('reuses the cached token, against both JWKS formats, without a browser', async () => {
    for (const format of ['x509', 'jwk']) {
      await world.admin('echo/definition', { name: 'vendor_id_token', jwksFormat: format });
      const before = (await openedUrls()).length;
      const r = await world.run(['--profile', 'emulator', 'echo', 'auth-info', '--scheme', 'id-token', '--json'], { env: { LANYARD_BROWSER: opener } });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ email: 'ada@lanyard.test' });
      expect(r.stderr).toContain('Using the cached identity token for ada@lanyard.test');
      expect((await openedUrls()).length).toBe(before);
    }
  });

  it('a cancelled sign-in stores nothing new and exits non-zero', async () => {
    const credsBefore = await readFile(join(world.configDir, 'credentials.json'), 'utf8');
    const { url, done } = await startSignIn(['echo', 'auth-info', '--scheme', 'id-token', '--fresh']);
    const page = await browser.newPage();
    await page.goto(url.toString());
    await page.click('button[value=deny]');
    await page.waitForURL(/\/callback\?/);
    await page.close();
    const r = await done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('access_denied: The user cancelled the sign-in');
    expect(await readFile(join(world.configDir, 'credentials.json'), 'utf8')).toBe(credsBefore);
  });
});

describe('app-platform scheme', () => {
  it("signs in to the profile's project and gets {id, email} from the gateway, both JWKS formats", async () => {
    const { url, done } = await startSignIn(['echo', 'auth-info', '--scheme', 'app-platform', '--json']);
    expect(url.toString()).toContain(`${world.url}/app-platform/lanyard-demo/authorize?`);
    expect(url.searchParams.get('client_id')).toBe('lanyard-demo');
    const page = await browser.newPage();
    await signIn(page, url, 'grace@lanyard.test', 'grace-password');
    await page.waitForURL(/\/callback\?/);
    await page.close();
    const r = await done;
    expect(r.code, r.stderr).toBe(0);
    const info = JSON.parse(r.stdout) as { id: string; email: string };
    expect(info.email).toBe('grace@lanyard.test');

    await world.admin('echo/definition', { name: 'app_platform_idp', jwksFormat: 'jwk' });
    const again = await world.run(['--profile', 'emulator', 'echo', 'auth-info', '--scheme', 'app-platform', '--project', 'lanyard-demo', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toEqual(info);
  });

  it('a project the API does not trust: signed in, but the gateway refuses the issuer (exit 4)', async () => {
    const { url, done } = await startSignIn(['echo', 'auth-info', '--scheme', 'app-platform', '--project', 'lanyard-other']);
    const page = await browser.newPage();
    await signIn(page, url, 'ada@lanyard.test', 'ada-password');
    await page.waitForURL(/\/callback\?/);
    await page.close();
    const r = await done;
    expect(r.code).toBe(4);
    expect(r.stderr).toContain('the echo API refused the token (HTTP 401): JWT validation failed: Issuer not allowed');
  });
});
