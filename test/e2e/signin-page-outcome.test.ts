/**
 * The loopback sign-in page tells the truth, in headless Chromium: it answers
 * only once the CLI has finished with the callback (the token exchange, the
 * checks, the save), so a failed exchange shows "Sign-in failed" and why —
 * never "Signed in" while the CLI fails. Each flow that uses the receiver:
 * hosting `auth login` (web flow), protocol `auth login --server`, and
 * `auth login --health` (fragment mode: the relay page shows the outcome).
 * The successes through the real pages are in auth-web, protocol-browser and
 * health-auth; the bound (an exchange that outlasts it) in
 * test/unit/core/auth/loopback.test.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import { APP, credentialsFile, recordingBrowser, signIn, start, text, useAuthWorld, waitFor } from './auth-helpers.js';
import { useBrowser, withPage } from './browser.js';
import type { World } from './harness.js';

let world: World;
let browser: Browser;
let rec: Awaited<ReturnType<typeof recordingBrowser>>;

useAuthWorld((w) => (world = w), { fastDevice: false });
useBrowser((b) => (browser = b));
beforeEach(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lanyard-page-'));
  rec = await recordingBrowser(dir);
  return () => rm(dir, { recursive: true, force: true });
});

/** Starts the CLI with `args`; resolves with the run and the redirect URI and state of the authorize URL it opened. */
async function startSignIn(args: string[], env: Record<string, string> = {}) {
  const run = start(world, [...args, '--timeout', '30s'], { env: { LANYARD_BROWSER: rec.script, ...env } });
  const url = new URL(await waitFor(async () => (await rec.urls())[0]));
  return { run, redirect: url.searchParams.get('redirect_uri')!, state: url.searchParams.get('state')! };
}

describe('the loopback page after a failed exchange', () => {
  it('auth login (web flow): a code the service refuses — the page says sign-in failed and why, the CLI fails, nothing stored', async () => {
    const { run, redirect, state } = await startSignIn(['auth', 'login'], { LANYARD_CLIENT_SECRET: APP.clientSecret });
    await withPage(browser, async (page) => {
      await page.goto(`${redirect}?code=not-a-code&state=${encodeURIComponent(state)}`);
      expect(await text(page, 'h1')).toBe('Sign-in failed');
      expect(await text(page, '#msg')).toMatch(/bad_verification_code|incorrect or expired/);
      expect(await page.content()).not.toContain('Signed in');
    });
    const r = await run.done;
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/bad_verification_code|incorrect or expired/);
    expect(await credentialsFile(world)).toEqual({});
  });

  it('auth login (web flow): a token the API then refuses (GET /user answers 401) — the page says sign-in failed, nothing stored', async () => {
    const run = start(world, ['auth', 'login', '--timeout', '30s'], { env: { LANYARD_BROWSER: rec.script, LANYARD_CLIENT_SECRET: APP.clientSecret } });
    const url = await waitFor(async () => (await rec.urls())[0]);
    await world.admin('faults', { type: 'status', status: 401, path: '/api/v3/user', count: 5 });
    await withPage(browser, async (page) => {
      await signIn(page, url);
      await page.click('#authorize');
      expect(await text(page, 'h1')).toBe('Sign-in failed');
      expect(await text(page, '#msg')).toMatch(/token was refused/);
    });
    const r = await run.done;
    expect(r.code).not.toBe(0);
    expect(r.stderr).not.toContain('Logged in as');
    expect(await credentialsFile(world)).toEqual({});
  });

  it('auth login --server (protocol): the token endpoint answers invalid_grant — the page says so, not signed in', async () => {
    const { run, redirect, state } = await startSignIn(['auth', 'login', '--server', `${world.url}/mcp`]);
    // The server promises RFC 9207's iss: the response carries its issuer (checked before the exchange).
    const meta = (await (await fetch(`${world.url}/.well-known/oauth-protected-resource/mcp`)).json()) as { authorization_servers: string[] };
    const iss = encodeURIComponent(meta.authorization_servers[0]!);
    await withPage(browser, async (page) => {
      await page.goto(`${redirect}?code=not-a-code&state=${encodeURIComponent(state)}&iss=${iss}`);
      expect(await text(page, 'h1')).toBe('Sign-in failed');
      expect(await text(page, '#msg')).toContain('invalid_grant');
    });
    const r = await run.done;
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('invalid_grant');
  });

  it('auth login --health (fragment relay): a response the CLI refuses — the relay page shows the refusal, not signed in', async () => {
    const { run, redirect, state } = await startSignIn(['auth', 'login', '--health']);
    await withPage(browser, async (page) => {
      await page.goto(`${redirect}#access_token=abc&token_type=mac&expires_in=3600&state=${encodeURIComponent(state)}`);
      await page.locator('h1', { hasText: 'Sign-in failed' }).waitFor();
      expect(await text(page, '#msg')).toContain('unsupported token_type "mac"');
      expect(page.url()).not.toContain('access_token');
    });
    const r = await run.done;
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('unsupported token_type');
  });
});
