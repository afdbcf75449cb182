/**
 * The device authorization grant (RFC 8628) of the emulator's protocol
 * authorization server: `auth login --server URL --device` from the built CLI,
 * approved or denied by a person on the emulator's device page (headless
 * Chromium), then `protocol request` with the stored token; and the token
 * endpoint's polling answers over plain HTTP.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import type { World } from './harness.js';
import { launchBrowser, withPage } from './browser.js';
import { configure, newClient, stats, tokensOf, useProtocolWorld } from './protocol-helpers.js';

let w: World;
let mcp: string;
let browser: Browser;

useProtocolWorld((world, url) => {
  w = world;
  mcp = url;
});
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

const USER_CODE = /([B-DF-HJ-NP-TV-XZ]{4}-[B-DF-HJ-NP-TV-XZ]{4})/;
const VERIFICATION = /(http:\/\/127\.0\.0\.1:\d+\/device)\b/;

/** `auth login --server mcp --device` with a way to wait for what it prints on stderr. */
function deviceLogin(env: Record<string, string>) {
  let err = '';
  let child: ChildProcess | undefined;
  const done = w.run(['auth', 'login', '--server', mcp, '--device'], {
    env,
    timeoutMs: 60_000,
    onSpawn: (c) => {
      child = c;
      c.stderr!.on('data', (b: Buffer) => (err += b.toString()));
    },
  });
  const waitFor = async (re: RegExp): Promise<string> => {
    for (let i = 0; i < 300; i++) {
      const m = re.exec(err);
      if (m) return m[1]!;
      await new Promise((r) => setTimeout(r, 50));
    }
    child?.kill();
    throw new Error(`not printed: ${re} in ${err}`);
  };
  return { done, waitFor };
}

async function answer(verification: string, code: string, decision: 'allow' | 'deny'): Promise<string> {
  return withPage(browser, async (page) => {
    await page.goto(verification);
    await page.fill('input[name=user_code]', code.toLowerCase().replace('-', ''));
    await page.click('#continue');
    await page.click(`#${decision}`);
    return (await page.textContent('#done')) ?? '';
  });
}

describe('device authorization on the emulator', () => {
  it('approved on the device page: the CLI signs in (DPoP-bound where required) and protocol request works with the token', async () => {
    await configure(w, { deviceAuthorization: true, deviceInterval: 1, dpopRequired: true });
    const c = await newClient('allow');
    const env = c.env({ LANYARD_BROWSER: '/bin/false', BROWSER: '/bin/false' });
    const login = deviceLogin(env);
    const code = await login.waitFor(USER_CODE);
    const verification = await login.waitFor(VERIFICATION);
    expect(await answer(verification, code, 'allow')).toMatch(/may now use/);
    const r = await login.done;
    expect(r.code, r.stderr).toBe(0);
    const stored = await tokensOf(c, mcp);
    expect(stored).toMatchObject({ grant: 'device_code', tokenType: 'DPoP' });

    const list = await w.run(['protocol', 'request', mcp, '--method', 'tools/list', '--json'], { env });
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).result.tools.map((t: { name: string }) => t.name)).toContain('echo');
    const s = await stats(w);
    expect(s.authorizeRequests).toBe(0);
    expect(s.device).toMatchObject({ issued: 1, decisions: ['approved'] });
    expect(s.device.polls.at(-1)).toBe('issued');
    expect(s.mcpRequests.filter((m) => m.method === 'tools/list').at(-1)).toMatchObject({ status: 200, auth: 'dpop' });
  });

  it('denied on the device page: the sign-in fails and nothing is stored', async () => {
    await configure(w, { deviceAuthorization: true, deviceInterval: 1 });
    const c = await newClient('allow');
    const login = deviceLogin(c.env({ LANYARD_BROWSER: '/bin/false', BROWSER: '/bin/false' }));
    const code = await login.waitFor(USER_CODE);
    expect(await answer(await login.waitFor(VERIFICATION), code, 'deny')).toMatch(/not given access/);
    const r = await login.done;
    expect(r.code).toBe(4);
    expect(await tokensOf(c, mcp)).toBeUndefined();
    expect((await stats(w)).device.polls.at(-1)).toBe('access_denied');
  });

  it('without the switch the server advertises no device endpoint and the CLI says so', async () => {
    const c = await newClient('allow');
    const r = await w.run(['auth', 'login', '--server', mcp, '--device'], { env: c.env({ LANYARD_BROWSER: '/bin/false' }) });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/device_authorization_endpoint/);
  });

  it('the token endpoint answers authorization_pending, slow_down and expired_token', async () => {
    await configure(w, { deviceAuthorization: true, deviceInterval: 5, deviceCodeTtl: 60 });
    const form = (url: string, body: Record<string, string>) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body) });
    const reg = (await (
      await fetch(`${w.url}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_types: ['urn:ietf:params:oauth:grant-type:device_code'], token_endpoint_auth_method: 'none' }),
      })
    ).json()) as { client_id: string };
    const started = await form(`${w.url}/device_authorization`, { client_id: reg.client_id, scope: 'tools:read' });
    expect(started.status).toBe(200);
    const d = (await started.json()) as Record<string, unknown>;
    expect(d).toMatchObject({ verification_uri: `${w.url}/device`, expires_in: 60, interval: 5 });
    expect(d.verification_uri_complete).toBe(`${w.url}/device?user_code=${encodeURIComponent(String(d.user_code))}`);
    const poll = async () => {
      const res = await form(`${w.url}/token`, {
        grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
        device_code: String(d.device_code),
        client_id: reg.client_id,
      });
      expect(res.status).toBe(400);
      return ((await res.json()) as { error: string }).error;
    };
    expect(await poll()).toBe('authorization_pending');
    expect(await poll()).toBe('slow_down');
    await w.admin('advance', { seconds: 61 });
    expect(await poll()).toBe('expired_token');
  });
});
