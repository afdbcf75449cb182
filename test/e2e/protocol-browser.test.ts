/**
 * The emulator's consent pages driven in headless Chromium (playwright-core),
 * end to end with the CLI: the standard flow, a denial, and the third-party
 * delegated flow (two authorization servers, the token bound to the
 * third-party session and checked on every use).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startWorld, type World } from './harness.js';
import { configure, launchChromium, newClient, stats, type Client } from './protocol-helpers.js';

let w: World;
let browser: Browser;
let mcp: string;

beforeAll(async () => {
  w = await startWorld();
  mcp = `${w.url}/mcp`;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await w?.stop();
});
beforeEach(async () => {
  await w.admin('reset');
});

async function authorizeUrl(c: Client): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const u = (await c.urls())[0];
    if (u) return u;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the CLI never opened a browser');
}

describe('consent pages in Chromium', () => {
  it('allow: the CLI receives the code on its loopback listener and calls the server', async () => {
    const c = await newClient('record');
    const run = w.run(['protocol', 'request', mcp, '--method', 'tools/list', '--json'], { env: c.env() });
    const page = await browser.newPage();
    await page.goto(await authorizeUrl(c));
    expect(await page.textContent('h1')).toMatch(/Authorize Lanyard CLI/);
    expect(await page.textContent('#scopes')).toContain('tools:read');
    await page.click('#allow');
    await page.waitForSelector('text=Signed in to Lanyard');
    const r = await run;
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).result.tools).toHaveLength(3);
    expect((await stats(w)).pkceVerified).toBe(1);
    await page.close();
  });

  it('deny: access_denied reaches the CLI, exit 4, nothing stored', async () => {
    const c = await newClient('record');
    const run = w.run(['protocol', 'request', mcp], { env: c.env() });
    const page = await browser.newPage();
    await page.goto(await authorizeUrl(c));
    await page.click('#deny');
    await page.waitForSelector('text=Sign-in was not completed');
    const r = await run;
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/authorization was denied/);
    expect(Object.keys(await c.stored()).filter((k) => k.startsWith('protocol:'))).toHaveLength(0);
    await page.close();
  });

  it('third-party delegated flow: two consents, the issued token honoured only while the third-party token is active', async () => {
    await configure(w, { thirdParty: true });
    const c = await newClient('record');
    const run = w.run(['protocol', 'request', mcp, '--method', 'ping', '--json'], { env: c.env() });
    const page = await browser.newPage();
    await page.goto(await authorizeUrl(c));
    await page.click('#allow');
    await page.waitForSelector('text=Third-party account');
    expect(new URL(page.url()).pathname).toBe('/third-party/authorize');
    await page.click('button[value=allow]');
    await page.waitForSelector('text=Signed in to Lanyard');
    const r = await run;
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).result).toEqual({});
    const checks = (await stats(w)).thirdPartyChecks;
    expect(checks).toBeGreaterThan(0);
    await page.close();

    // The third party revokes: the protocol server refuses the token it issued (401),
    // refuses the refresh (invalid_grant), and the CLI signs in again.
    await w.admin('protocol/third-party-revoke', {});
    const again = await w.run(['protocol', 'request', mcp, '--method', 'ping'], { env: { ...c.env(), LANYARD_TEST_CONSENT: 'allow' } });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/invalid_grant/);
    expect((await c.urls()).length).toBe(2);
    const s = await stats(w);
    expect(s.mcpRequests.some((m) => m.status === 401 && m.auth === 'bearer')).toBe(true);
  });
});
