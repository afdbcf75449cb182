/**
 * The emulator left running while the user browses: what a web page (or a
 * DNS-rebinding name) can make the browser send must not change its state,
 * read its secrets, write outside --data-dir or redirect elsewhere.
 */
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:http';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../src/emulator/server.js';
import { safeReturn } from '../../src/emulator/services/hosting/oauth/authorize.js';
import { SEED as HostingSeed } from '../../src/emulator/services/hosting/state.js';
import { selfSignedCertificate } from '../../src/emulator/tls.js';
import { launchBrowser, withPage } from './browser.js';

let root: string;
let emu: Emulator;
const MESSAGE = 'From: a@example.net\r\nTo: b@example.net\r\nSubject: planted\r\n\r\nplanted body\r\n';

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'lanyard-safety-'));
  emu = await startEmulator({ dataDir: join(root, 'data') });
});
afterAll(async () => {
  await emu?.close();
  await rm(root, { recursive: true, force: true });
});

/** A request with any Host header (fetch refuses to set one). */
function send(
  method: string,
  path: string,
  o: { host?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { port } = new URL(emu.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: { host: o.host ?? `127.0.0.1:${port}`, ...(o.body !== undefined ? { 'content-length': Buffer.byteLength(o.body) } : {}), ...o.headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(o.body);
  });
}

/** Every file under `dir`, recursively (relative paths). */
async function files(dir: string): Promise<string[]> {
  const out = await readdir(dir, { recursive: true, withFileTypes: true });
  return out.filter((d) => d.isFile()).map((d) => join(d.parentPath, d.name).slice(dir.length + 1));
}

describe('path parameters cannot leave --data-dir', () => {
  it('the mailbox POST with %2F.. in the domain is refused and writes nothing outside', async () => {
    const r = await send('POST', '/rest/v2/x%2F..%2F..%2F..%2Fescaped/user/mailbox/message', {
      headers: { 'content-type': 'text/plain' },
      body: MESSAGE,
    });
    expect(r.status).toBe(400);
    expect((await files(root)).filter((f) => !f.startsWith('data/'))).toEqual([]);
  });

  it('every path parameter of every route refuses a traversal, whatever the method', async () => {
    const payloads = ['..%2F..%2F..%2Fescaped', '%2E%2E%2F%2E%2E%2Fescaped', 'a%2F..%2F..%2F..%2Fescaped', '..%5C..%5Cescaped', 'x%00y'];
    const routes = emu.routes();
    let tried = 0;
    for (const route of routes) {
      const [method, pattern] = route.split(' ') as [string, string];
      const params = pattern.split('/').filter((s) => s.startsWith(':') || s === '*');
      for (const param of params) {
        for (const p of payloads) {
          const path = pattern
            .split('/')
            .map((s) => (s === param ? p : s.startsWith(':') ? 'ok' : s === '*' ? 'ok' : s))
            .join('/');
          const r = await send(method, path, { headers: { 'content-type': 'text/plain' }, body: method === 'GET' || method === 'HEAD' ? undefined : MESSAGE });
          tried++;
          expect(r.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
          expect(r.status, `${method} ${path}`).toBeLessThan(500);
        }
      }
    }
    expect(tried).toBeGreaterThan(100);
    expect((await files(root)).filter((f) => !f.startsWith('data/'))).toEqual([]);
  });
});

describe('requests from another origin', () => {
  const evil = { origin: 'http://evil.example', 'content-type': 'text/plain' };

  it('a cross-site text/plain post to the admin API changes nothing', async () => {
    const before = emu.clock.offsetMs;
    for (const path of ['/_emulator/advance', '/_emulator/reset', '/_emulator/faults', '/_emulator/hosting/budget']) {
      const r = await send('POST', path, { headers: evil, body: '{"ms": 86400000, "type": "reset", "path": "/", "remaining": 0}' });
      expect(r.status, path).toBe(403);
    }
    expect(emu.clock.offsetMs).toBe(before);
    expect(emu.admin.faults()).toEqual([]);
    // Sec-Fetch-Site alone is enough to tell (a browser that sends no Origin).
    expect((await send('POST', '/_emulator/advance', { headers: { 'sec-fetch-site': 'cross-site' }, body: '{"ms":1}' })).status).toBe(403);
    // The emulator's own origin, and programs (no Origin), are served.
    expect((await send('POST', '/_emulator/advance', { headers: { origin: emu.url }, body: '{"ms":1000}' })).status).toBe(200);
    expect((await send('POST', '/_emulator/advance', { body: '{"ms":1000}' })).status).toBe(200);
    expect(emu.clock.offsetMs).toBe(before + 2000);
  });

  it('a cross-site post to the mailbox stores nothing; the same post from a program is stored', async () => {
    const path = '/rest/v2/example.com/alice/mailbox/message';
    expect((await send('POST', path, { headers: evil, body: MESSAGE })).status).toBe(403);
    expect((await send('DELETE', `${path}/00000000-0000-1000-8000-000000000000`, { headers: { origin: 'null' } })).status).toBe(403);
    const ok = await send('POST', path, { headers: { 'content-type': 'message/rfc822' }, body: MESSAGE });
    expect(ok.status).toBe(201);
  });

  it('a page form post without its token is refused; with the token of the page it goes through', async () => {
    const { clientId } = HostingSeed.app;
    const { login, password } = HostingSeed.user;
    const form = new URLSearchParams({ client_id: clientId, login, password, authorize: '1' }).toString();
    const formType = { 'content-type': 'application/x-www-form-urlencoded' };
    // Another origin: refused outright.
    expect((await send('POST', '/login/oauth/authorize', { headers: { ...formType, origin: 'http://evil.example' }, body: form })).status).toBe(403);
    // The emulator's origin but no token (e.g. a same-site page's injected form): refused.
    const noToken = await send('POST', '/login/oauth/authorize', { headers: { ...formType, origin: emu.url }, body: form });
    expect(noToken.status).toBe(403);
    expect(noToken.body).toContain('Form token');
    // The page's own form: its token (bound to the cookie the page set) lets the post through.
    const page = await send('GET', `/login/oauth/authorize?client_id=${clientId}`);
    const cookie = String(page.headers['set-cookie']).split(';')[0]!;
    const token = /name="_csrf" value="([^"]+)"/.exec(page.body)![1]!;
    const withToken = await send('POST', '/login/oauth/authorize', { headers: { ...formType, origin: emu.url, cookie }, body: `${form}&_csrf=${token}` });
    expect(withToken.status).toBe(302);
    expect(withToken.headers.location).toMatch(/[?&]code=/);
    // A token of another cookie does not.
    const other = await send('POST', '/login/oauth/authorize', {
      headers: { ...formType, origin: emu.url, cookie: 'lanyard_emu_csrf=other' },
      body: `${form}&_csrf=${token}`,
    });
    expect(other.status).toBe(403);
  });
});

describe('a browser on another origin', () => {
  let browser: Browser;
  let site: Server;
  let siteUrl: string;
  beforeAll(async () => {
    browser = await launchBrowser();
    site = createServer((req, res) => {
      const target = new URL(req.url ?? '/', 'http://x').searchParams.get('to')!;
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<form id="f" method="post" enctype="text/plain" action="${target}"><input name='{"ms":86400000,"x":"' value='"}'></form>` +
          '<script>document.getElementById("f").submit()</script>',
      );
    });
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
    // localhost is another origin than 127.0.0.1 (and another site).
    siteUrl = `http://localhost:${(site.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await browser?.close();
    site?.close();
  });

  it('its self-submitting form cannot move the clock or plant a message', async () => {
    const before = emu.clock.offsetMs;
    const boxFiles = (await files(root)).length;
    for (const to of [`${emu.url}/_emulator/advance`, `${emu.url}/rest/v2/example.com/alice/mailbox/message`]) {
      const status = await withPage(browser, async (page) => {
        const answer = page.waitForResponse((r) => r.url() === to);
        await page.goto(`${siteUrl}/?to=${encodeURIComponent(to)}`);
        return (await answer).status();
      });
      expect(status, to).toBe(403);
    }
    expect(emu.clock.offsetMs).toBe(before);
    expect((await files(root)).length).toBe(boxFiles);
  });

  it("the emulator's own pages still work in the browser; sign-up does not redirect away", async () => {
    await withPage(browser, async (page) => {
      await page.goto(`${emu.url}/signup?return_to=${encodeURIComponent('/\\evil.example/x')}`);
      await page.fill('#login', 'newcomer');
      await page.fill('#password', 'newcomer-password');
      const [resp] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.click('#create')]);
      expect(resp.status()).toBe(302);
      expect(resp.headers().location).toBe('/');
    });
  });
});

describe('DNS rebinding: the Host header', () => {
  it('a foreign Host gets no seeded secret; loopback names do', async () => {
    const foreign = await send('GET', '/_emulator/info', { host: 'rebind.evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.body).not.toContain('password');
    for (const host of ['rebind.evil.example:80', 'evil.example', '[2001:db8::1]', '10.0.0.1']) {
      expect((await send('GET', '/api/v3/rate_limit', { host })).status, host).toBe(403);
    }
    for (const host of [`127.0.0.1:${emu.port}`, `localhost:${emu.port}`, '127.9.9.9', `[::1]:${emu.port}`, 'emu.localhost']) {
      expect((await send('GET', '/_emulator/info', { host })).status, host).toBe(200);
    }
  });

  it('a name of the configured certificate is accepted', async () => {
    const pair = selfSignedCertificate('emulator.test');
    const tlsEmu = await startEmulator({ tls: pair, dataDir: join(root, 'tls') });
    try {
      const get = (host: string) =>
        new Promise<number>((resolve, reject) => {
          import('node:https').then(({ request }) => {
            const r = request(
              { host: '127.0.0.1', port: tlsEmu.port, path: '/_emulator/info', headers: { host }, ca: pair.cert, servername: 'emulator.test' },
              (res) => {
                res.resume();
                resolve(res.statusCode!);
              },
            );
            r.on('error', reject);
            r.end();
          }, reject);
        });
      expect(await get('emulator.test')).toBe(200);
      expect(await get('other.test')).toBe(403);
    } finally {
      await tlsEmu.close();
    }
  });
});

describe('no open redirect', () => {
  it('POST /signup with return_to=/\\evil.example/x goes back to the emulator', async () => {
    const body = new URLSearchParams({ login: 'redirected', password: 'redirected-password', return_to: '/\\evil.example/x' }).toString();
    const r = await send('POST', '/signup', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    expect(r.status).toBe(302);
    expect(r.headers.location).toBe('/');
  });

  it.each([
    ['/\\evil.example/x', '/'],
    ['//evil.example/x', '/'],
    ['/\t/evil.example', '/'],
    ['https://evil.example/', '/'],
    ['/login/oauth/authorize?client_id=a&scope=repo+gist', '/login/oauth/authorize?client_id=a&scope=repo+gist'],
    ['/a/../b', '/b'],
  ])('return_to %j becomes %j', (given, want) => {
    expect(safeReturn(given)).toBe(want);
  });
});
