/**
 * The emulator's console in headless Chromium (playwright-core, the system's
 * Chromium), against `lanyard emulator start` and the CLI: requests and
 * budgets appear live, a device code the CLI waits on is approved from the
 * page, the clock moved from the page expires a token, a form of another
 * origin is refused, and the page reads (and acts) with JavaScript off.
 * With LANYARD_UPDATE_SCREENSHOTS=1 it writes docs/images/emulator-console.png.
 */
import { createServer, type Server } from 'node:http';
import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, PERSONAL_TOKEN, recordingBrowser, start, USER_CODE, useAuthWorld, waitFor } from './auth-helpers.js';
import { newClient } from './protocol-helpers.js';
import { runOnPty } from './pty.js';
import { useBrowser } from './browser.js';
import { ROOT, startCliEmulator, type World } from './harness.js';

let world: World;
let browser: Browser;
useAuthWorld((w) => (world = w));
useBrowser((b) => (browser = b));

const masked = (t: string) => `${t.slice(0, 4)}…${t.slice(-4)}`;
const consoleUrl = () => `${world.url}/_emulator/console`;

/** GET /api/v3/user with a token: the status. */
async function user(token: string): Promise<number> {
  const res = await fetch(`${world.url}/api/v3/user`, { headers: { authorization: `token ${token}`, 'user-agent': 'console-test' } });
  await res.arrayBuffer();
  return res.status;
}

/** The console, loaded and following the stream. */
async function openConsole(o: { javaScript?: boolean } = {}): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await browser.newContext({ javaScriptEnabled: o.javaScript !== false, viewport: { width: 1440, height: 1000 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  await page.goto(consoleUrl());
  if (o.javaScript !== false) await page.locator('#live', { hasText: 'live' }).waitFor();
  return { page, close: () => context.close() };
}

describe('emulator console in Chromium', () => {
  // Set once: the world's reset before each test clears the emulator and the stored credentials, never config.json.
  beforeAll(async () => {
    await cli(world, ['config', 'set', 'hosting.clientId', 'lanyard-cli-emulator']);
  });

  it('shows a request made after the page loaded, without a reload', async () => {
    const { page, close } = await openConsole();
    const before = await page.locator('#requests-body tr').count();
    expect(await user(PERSONAL_TOKEN)).toBe(200);
    const row = page.locator('#requests-body tr[data-service="hosting"]', { hasText: '/api/v3/user' }).first();
    await row.waitFor();
    expect(await page.locator('#requests-body tr').count()).toBeGreaterThan(before);
    expect(await row.textContent()).toContain('mona @ 127.0.0.1');
    // The row opens on its headers: the credential redacted, the answer's rate-limit headers there.
    await row.locator('summary').click();
    const details = await row.locator('details').textContent();
    expect(details).toContain('token [redacted]');
    expect(details).not.toContain(PERSONAL_TOKEN);
    expect(details).toContain('x-ratelimit-remaining');
    // Filters: another service hides it; its own shows it.
    await page.selectOption('#filter-service', 'mailbox');
    expect(await row.isHidden()).toBe(true);
    await page.selectOption('#filter-service', 'hosting');
    await page.selectOption('#filter-status', '2xx');
    expect(await row.isVisible()).toBe(true);
    await close();
  });

  it("keeps up with an agent's burst: 600 requests arrive, the page keeps the newest 500, newest first", async () => {
    const { page, close } = await openConsole();
    for (let i = 0; i < 600; i += 20)
      await Promise.all(
        Array.from({ length: 20 }, (_, j) =>
          fetch(`${world.url}/api/v3/users/mona?n=${i + j}`, { headers: { authorization: `token ${PERSONAL_TOKEN}` } }).then((r) => r.arrayBuffer()),
        ),
      );
    await page.locator('#requests-body tr', { hasText: '/api/v3/users/mona' }).first().waitFor();
    await expect.poll(() => page.locator('#requests-body tr[data-service="hosting"]').count(), { timeout: 20_000 }).toBe(500);
    const seqs = await page.locator('#requests-body tr').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-seq'))));
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    await expect.poll(() => page.locator('#buckets tr[data-caller="user:mona"] .used').textContent(), { timeout: 15_000 }).toBe('600 / 5000');
    await close();
  });

  it('budgets change as requests are made', async () => {
    const { page, close } = await openConsole();
    const used = page.locator('#buckets tr[data-caller="user:mona"][data-resource="core"] .used');
    expect(await user(PERSONAL_TOKEN)).toBe(200);
    await expect.poll(() => used.textContent().catch(() => null), { timeout: 15_000 }).toBe('1 / 5000');
    for (let i = 0; i < 3; i++) expect(await user(PERSONAL_TOKEN)).toBe(200);
    await expect.poll(() => used.textContent(), { timeout: 15_000 }).toBe('4 / 5000');
    expect(await page.locator('#buckets tr[data-caller="user:mona"][data-resource="core"] .remaining').textContent()).toBe('4996');
    await close();
  });

  it('approves from the page a device code `lanyard auth device` waits on, and the CLI signs in', async () => {
    const { page, close } = await openConsole();
    const run = start(world, ['auth', 'device']);
    const [, code] = await run.waitForStderr(USER_CODE);
    const row = page.locator(`#panel-pending tr[data-code="${code}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('lanyard-cli-emulator');
    await row.locator('select[name="login"]').selectOption('hubot');
    await row.locator('button.approve').click();
    await page.locator('#flash', { hasText: 'Approved as hubot' }).waitFor();
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Logged in as hubot');
    // Answered: it leaves the panel.
    await row.waitFor({ state: 'detached' });
    await close();
  });

  it("approves from the page a protocol authorization request: the browser goes on to the CLI's loopback listener", async () => {
    const { page, close } = await openConsole();
    const c = await newClient('record');
    const run = world.run(['protocol', 'request', `${world.url}/mcp`, '--method', 'tools/list', '--json'], { env: c.env() });
    const authorize = await waitFor(async () => (await c.urls())[0]);
    // The person's browser opened the consent page (the request is pending from then on).
    expect((await fetch(authorize)).status).toBe(200);
    const row = page.locator('#panel-pending tr', { hasText: 'authorization request' });
    await row.waitFor();
    // The client the CLI registered, by its name and id.
    expect(await row.textContent()).toMatch(/Lanyard.*ctxclient_/);
    const [callback] = await Promise.all([page.context().waitForEvent('page'), row.locator('button.approve').click()]);
    await callback.waitForLoadState();
    expect(await callback.textContent('body')).toMatch(/Signed in to Lanyard/);
    const r = await run;
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).result.tools.length).toBeGreaterThan(0);
    // Its token is on the page now, masked.
    await page.locator('#state-protocol tr', { hasText: 'access token' }).first().waitFor();
    await rm(c.dir, { recursive: true, force: true });
    await close();
  });

  it('advancing the clock from the page expires a token', async () => {
    const issued = (await world.admin('hosting/issue-token', { login: 'mona', clientId: 'Iv1.lanyardinstallable', scopes: [] })) as { access_token: string };
    expect(await user(issued.access_token)).toBe(200);
    const { page, close } = await openConsole();
    const row = page.locator('#panel-state tr', { hasText: masked(issued.access_token) });
    expect(await row.getAttribute('data-status')).toBe('active');
    await page.fill('#advance-by', '8h1m');
    await page.click('#advance');
    await page.locator('#flash', { hasText: 'Clock now' }).waitFor();
    expect(await user(issued.access_token)).toBe(401);
    await expect.poll(() => row.getAttribute('data-status'), { timeout: 15_000 }).toBe('expired');
    await close();
  });

  it('refuses a form posted from a page of another origin (403), and nothing changes', async () => {
    const target = `${consoleUrl()}/actions`;
    const evil: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<!doctype html><form method="post" action="${target}"><input name="action" value="advance"><input name="duration" value="30d"><input name="_csrf" value="guessed"><button id="go">go</button></form>`,
      );
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
    const port = (evil.address() as { port: number }).port;
    const { page, close } = await openConsole({ javaScript: true });
    try {
      // The user has the console open (its cookie is in this browser), then visits the other site.
      await page.goto(`http://localhost:${port}/`);
      const [answer] = await Promise.all([page.waitForResponse((r) => r.url() === target), page.click('#go')]);
      expect(answer.status()).toBe(403);
      const info = (await world.admin('info', undefined, 'GET')) as { clockOffsetMs: number };
      expect(Math.abs(info.clockOffsetMs)).toBeLessThan(5000);
    } finally {
      await close();
      await new Promise((r) => evil.close(r));
    }
  });

  it('reads with JavaScript off (server-rendered tables), and its forms still act', async () => {
    expect(await user(PERSONAL_TOKEN)).toBe(200);
    const { page, close } = await openConsole({ javaScript: false });
    expect(await page.locator('#live').textContent()).toContain('static page');
    expect(await page.locator('#requests-body tr', { hasText: '/api/v3/user' }).count()).toBeGreaterThan(0);
    expect(await page.locator('#buckets tr[data-caller="user:mona"] .used').textContent()).toBe('1 / 5000');
    // Revoke mona's personal token with a plain form post (303 back to the page).
    const row = page.locator('#state-hosting tr', { hasText: masked(PERSONAL_TOKEN) }).filter({ hasText: 'mona' });
    await row.locator('button[value="revoke"]').click();
    await page.locator('.flash', { hasText: 'Revoked' }).waitFor();
    expect(
      await page
        .locator('#state-hosting tr', { hasText: masked(PERSONAL_TOKEN) })
        .filter({ hasText: 'mona' })
        .getAttribute('data-status'),
    ).toBe('revoked');
    expect(await user(PERSONAL_TOKEN)).toBe(401);
    // The service filter works as a plain GET form.
    await page.selectOption('#filter-service', 'mailbox');
    await page.click('#filters button');
    expect(await page.locator('#requests-body tr[data-service="hosting"]').count()).toBe(0);
    await close();
  });

  it('takes the screenshot of the docs (a busy emulator: requests of every service, a sign-in waiting, a fault)', async () => {
    const { page, close } = await openConsole();
    await world.admin('faults', { type: 'status', status: 503, path: '/api/v3/repos', rate: 0.5, seed: 7 });
    await fetch(`${world.url}/_emulator/hosting/device-policy`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    const run = start(world, ['auth', 'device']);
    await run.waitForStderr(USER_CODE);
    for (let i = 0; i < 5; i++) await user(PERSONAL_TOKEN);
    for (let i = 0; i < 4; i++)
      await fetch(`${world.url}/api/v3/repos/mona/hello-world`, { headers: { authorization: `token ${PERSONAL_TOKEN}` } }).then((r) => r.arrayBuffer());
    await fetch(`${world.url}/api/v3/user`).then((r) => r.arrayBuffer());
    await cli(world, ['mailbox', 'list', '--json']);
    await page.locator('#panel-pending tr[data-code]').waitFor();
    await page.locator('#panel-faults tr').first().waitFor();
    await page.locator('#requests-body tr', { hasText: '/api/v3/repos/mona/hello-world' }).first().waitFor();
    await page.waitForTimeout(500);
    const file = process.env.LANYARD_UPDATE_SCREENSHOTS
      ? join(ROOT, 'docs', 'images', 'emulator-console.png')
      : join(tmpdir(), `emulator-console-${process.pid}.png`);
    await mkdir(join(file, '..'), { recursive: true });
    await writeFile(file, await page.screenshot({ fullPage: false }));
    expect((await stat(file)).size).toBeGreaterThan(30_000);
    run.child.kill('SIGINT');
    await run.done;
    await close();
  });
});

describe('lanyard emulator console', () => {
  it('prints the URL without a terminal, {"url"} with --json, exit 1 when no emulator answers', async () => {
    const plain = await world.run(['emulator', 'console']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toBe(`${consoleUrl()}\n`);
    const json = await world.run(['emulator', 'console', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ url: consoleUrl() });
    const gone = await world.run(['emulator', 'console', '--url', 'http://127.0.0.1:9']);
    expect(gone.code).toBe(1);
    expect(gone.stdout).toBe('');
  });

  it('on a terminal, opens it in the browser (LANYARD_BROWSER) and says so on stderr', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lanyard-console-'));
    try {
      const b = await recordingBrowser(dir);
      const r = await runOnPty({ args: ['emulator', 'console'], env: { ...world.env, LANYARD_BROWSER: b.script }, send: null });
      expect(r.exitCode, r.output).toBe(0);
      expect(r.output).toContain(`Opened ${consoleUrl()} in your browser`);
      await expect.poll(() => b.urls()).toEqual([consoleUrl()]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  /** `emulator console` on a pseudo-terminal with LANYARD_BROWSER a shell script of `body`: what the terminal showed. */
  async function consoleWithOpener(body: string): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'lanyard-console-'));
    try {
      const script = join(dir, 'opener.sh');
      await writeFile(script, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
      const r = await runOnPty({ args: ['emulator', 'console'], env: { ...world.env, LANYARD_BROWSER: script }, send: null });
      expect(r.exitCode, r.output).toBe(0);
      return r.output;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const urlLine = () => consoleUrl().replace(/[.?]/g, '\\$&');

  it('on a terminal, an opener that fails (xdg-open\'s exit 3: no browser) is not "Opened": the URL is printed instead', async () => {
    const output = await consoleWithOpener('exit 3');
    expect(output).not.toMatch(/Opened/);
    expect(output).toMatch(new RegExp(`No browser could be opened here; open this URL in a browser:\\r?\\n${urlLine()}`));
  });

  it('on a terminal, an opener still running after its bound (a browser itself) is not claimed: "Asked the system…", bounded', async () => {
    const t0 = Date.now();
    const output = await consoleWithOpener('exec sleep 8');
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(output).not.toMatch(/Opened/);
    expect(output).toContain(`Asked the system to open ${consoleUrl()} in a browser; if no page appears, open that URL yourself`);
  });

  it('over ssh with no display: no browser, the URL with the port to forward (ssh -L), as the sign-ins say it', async () => {
    const env = { ...world.env, SSH_CONNECTION: '203.0.113.5 50022 198.51.100.7 22', LANYARD_BROWSER: undefined, BROWSER: undefined, DISPLAY: undefined };
    const r = await runOnPty({ args: ['emulator', 'console'], env, send: null });
    expect(r.exitCode, r.output).toBe(0);
    expect(r.output).not.toMatch(/Opened|Asked the system/);
    const port = new URL(world.url).port;
    expect(r.output).toMatch(/ssh session with no display: no browser can open here/);
    expect(r.output).toContain(`ssh -L ${port}:127.0.0.1:${port} <this host>`);
    expect(r.output).toMatch(new RegExp(`then open this URL there:\\r?\\n${urlLine()}`));
    const piped = await world.run(['emulator', 'console'], { env });
    expect(piped.stdout).toBe(`${consoleUrl()}\n`);
  });

  it('`emulator start` prints where its console is', async () => {
    const emu = await startCliEmulator(['--port', '0', '--no-profile'], { LANYARD_CONFIG_DIR: world.configDir }, { readyOn: /Console: / });
    try {
      const url = /^Emulator listening on (\S+)$/.exec(emu.first)![1]!;
      expect(emu.stderr()).toContain(`Console: ${url}/_emulator/console`);
      expect((await fetch(`${url}/_emulator/console`)).status).toBe(200);
    } finally {
      await emu.stop('SIGTERM');
    }
  });
});
