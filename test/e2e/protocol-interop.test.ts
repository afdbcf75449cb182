/**
 * Interoperability with an independent OAuth 2.1 / OpenID server: the npm
 * package `oidc-provider` runs in-process on loopback, fronted by a tiny
 * protocol server that answers 401 with an RFC 9728 `resource_metadata`
 * hint. The CLI discovers it (RFC 8414 404 → OpenID configuration),
 * registers dynamically (RFC 7591), signs in with PKCE through the
 * provider's own login and consent pages in Chromium, sends the RFC 8707
 * resource, calls the server, and refreshes with the provider's rotation.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import Provider, { errors } from 'oidc-provider';
import { runCli } from './harness.js';
import { launchChromium, newClient, tokensOf } from './protocol-helpers.js';

let server: Server;
let provider: Provider;
let issuer: string;
let mcp: string;
let browser: Browser;
const seen: Array<{ path: string; method: string; auth: boolean; status: number }> = [];

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body === undefined ? '' : JSON.stringify(body));
}

async function handleMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let text = '';
  for await (const c of req) text += c;
  const msg = JSON.parse(text || '{}') as { id?: string; method: string };
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  const at = token ? await provider.AccessToken.find(token) : undefined;
  const ok = !!at && !at.isExpired && at.aud === mcp;
  seen.push({ path: '/mcp', method: msg.method, auth: !!token, status: ok ? 200 : 401 });
  if (!ok) {
    return send(
      res,
      401,
      { error: 'invalid_token' },
      {
        'www-authenticate': `Bearer resource_metadata="${issuer}/.well-known/oauth-protected-resource/mcp", scope="openid offline_access tools:read"${token ? ', error="invalid_token"' : ''}`,
      },
    );
  }
  if (msg.id === undefined) return send(res, 202, undefined);
  const result =
    msg.method === 'initialize'
      ? { protocolVersion: '2025-03-26', capabilities: {}, serverInfo: { name: 'interop-server', version: '0.0.1' } }
      : { sub: at!.accountId };
  send(res, 200, { jsonrpc: '2.0', id: msg.id, result }, msg.method === 'initialize' ? { 'mcp-session-id': randomUUID() } : {});
}

beforeAll(async () => {
  server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  mcp = `${issuer}/mcp`;
  provider = new Provider(issuer, {
    scopes: ['openid', 'offline_access', 'tools:read'],
    pkce: { required: () => true },
    cookies: { keys: ['interop-test-cookie-key'] },
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    ttl: { AccessToken: 120, AuthorizationCode: 60, RefreshToken: 3600, Grant: 3600, Interaction: 600, Session: 3600 },
    rotateRefreshToken: true,
    features: {
      registration: { enabled: true },
      devInteractions: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => mcp,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, resource: string) => {
          if (resource !== mcp) throw new errors.InvalidTarget();
          return { scope: 'tools:read', audience: mcp, accessTokenFormat: 'opaque', accessTokenTTL: 120 };
        },
      },
    },
  });
  const callback = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', issuer).pathname;
    if (path === '/.well-known/oauth-protected-resource/mcp') {
      return send(res, 200, { resource: mcp, authorization_servers: [issuer], scopes_supported: ['tools:read'] });
    }
    if (path === '/mcp' && req.method === 'POST') return void handleMcp(req, res).catch((e) => send(res, 500, { error: String(e) }));
    seen.push({ path, method: req.method ?? '', auth: false, status: 0 });
    callback(req, res);
  });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
});

describe('interoperability with oidc-provider', () => {
  it('discovers, registers, signs in with PKCE and resource, calls, and refreshes', async () => {
    const c = await newClient('record');
    const run = runCli(['protocol', 'request', mcp, '--method', 'whoami', '--json'], { env: c.env(), timeoutMs: 40_000 });
    let url: string | undefined;
    for (let i = 0; i < 300 && !url; i++) {
      url = (await c.urls())[0];
      if (!url) await new Promise((r) => setTimeout(r, 50));
    }
    expect(url, 'the CLI never opened the authorization URL').toBeTruthy();
    const q = new URL(url!).searchParams;
    expect(q.get('resource')).toBe(mcp);
    expect(q.get('code_challenge_method')).toBe('S256');
    const page = await browser.newPage();
    await page.goto(url!);
    await page.fill('input[name=login]', 'alice');
    await page.fill('input[name=password]', 'any');
    await page.click('button[type=submit]');
    await page.waitForSelector('text=Continue');
    await page.click('button[type=submit]');
    await page.waitForSelector('text=Signed in to Lanyard');
    await page.close();
    const r = await run;
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).result).toEqual({ sub: 'alice' });
    // Discovery: RFC 8414 at the issuer named by the protected-resource metadata (oidc-provider 9 serves it).
    const wk = seen.filter((s) => s.path.startsWith('/.well-known/')).map((s) => s.path);
    expect(wk[0]).toBe('/.well-known/oauth-authorization-server');
    expect(seen.some((s) => s.path === '/reg' && s.method === 'POST')).toBe(true);

    // Refresh with the provider's rotation: force it by marking the stored token expired.
    const before = (await tokensOf(c, mcp))!;
    expect(before.refreshToken).toBeTruthy();
    const { readFile, writeFile } = await import('node:fs/promises');
    const file = `${c.dir}/credentials.json`;
    const raw = JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
    raw[`protocol:${mcp}`] = JSON.stringify({ ...before, expiresAt: Date.now() - 1000 });
    await writeFile(file, JSON.stringify(raw));
    const again = await runCli(['protocol', 'request', mcp, '--method', 'whoami', '--json'], { env: c.env() });
    expect(again.code, again.stderr).toBe(0);
    const after = (await tokensOf(c, mcp))!;
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(await c.urls()).toHaveLength(1);
  });
});
