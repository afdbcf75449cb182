/**
 * Context-protocol authorization end to end: the built CLI against the
 * emulator's protocol server and authorization server over real HTTP. The
 * consent pages are answered by a stand-in browser (protocol-consent.mjs);
 * protocol-browser.test.ts drives the same pages in Chromium. What is kept
 * here: one spawned sign-in and call, the secret on stdin, Ctrl-C, and the
 * server's own rules; the commands' behaviour (revisions without metadata,
 * pre-registered clients, retries, streams, step-up, usage errors, the state
 * check, client keys, refresh and its failures, --debug redaction,
 * auth token/logout --server) is tested on their run functions in
 * test/unit/cli/protocol/request.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { World } from './harness.js';
import { newClient, stats, tokensOf, useProtocolWorld } from './protocol-helpers.js';

let w: World;
let mcp: string;

useProtocolWorld((world, url) => {
  w = world;
  mcp = url;
});

describe('protocol request: discovery, registration, PKCE, one retry', () => {
  it('discovers metadata with the version header, registers, signs in with PKCE and retries once', async () => {
    const c = await newClient('allow');
    const r = await w.run(['protocol', 'request', mcp, '--json'], { env: c.env() });
    expect(r.stderr).not.toMatch(/ctxat_|ctxrt_/);
    expect(r.code, r.stderr).toBe(0);
    const body = JSON.parse(r.stdout);
    expect(body.jsonrpc).toBe('2.0');
    // The emulator speaks 2025-11-25 by default: Lanyard offers it and keeps it.
    expect(body.result.protocolVersion).toBe('2025-11-25');
    expect(body.result.serverInfo.name).toBe('lanyard-emulator-tools');

    const s = await stats(w);
    // Discovery runs before the server has answered: it is asked with the newest revision Lanyard tries first.
    expect(s.metadataRequests).toEqual([
      { path: '/.well-known/oauth-authorization-server', versionHeader: '2026-07-28', header: 'MCP-Protocol-Version', served: true },
    ]);
    expect(s.registrations).toBe(1);
    expect(s.pkceVerified).toBe(1);
    // The stateless question first (server/discover): one 401 without a token, then with the Bearer token
    // refused for want of a session (this server needs the handshake); then initialize +
    // notifications/initialized (with the negotiated version's header), then the session is ended.
    expect(s.mcpRequests).toEqual([
      { method: 'server/discover', status: 401, auth: 'none' },
      { method: 'server/discover', status: 400, auth: 'bearer' },
      { method: 'initialize', status: 200, auth: 'bearer' },
      { method: 'notifications/initialized', status: 200, auth: 'bearer', version: '2025-11-25' },
      { method: 'DELETE', status: 200, auth: 'bearer' },
    ]);
    expect(s.sessionsEnded).toBe(1);

    const [url] = await c.urls();
    const q = new URL(url!).searchParams;
    expect(url!.startsWith(`${w.url}/authorize?`)).toBe(true);
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('state')!.length).toBeGreaterThanOrEqual(32);
    expect(q.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(q.get('resource')).toBe(mcp);
    expect(q.has('access_token')).toBe(false);

    // The second call reuses the stored tokens and registration: no browser, no 401.
    const again = await w.run(['protocol', 'request', mcp, '--method', 'tools/list', '--json'], { env: c.env() });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).result.tools.map((t: { name: string }) => t.name)).toEqual(['echo', 'time', 'confirm']);
    expect(await c.urls()).toHaveLength(1);
    const s2 = await stats(w);
    expect(s2.registrations).toBe(1);
    // The stateless first try is refused (this server needs the handshake); nothing is refused for want of a token.
    const second = s2.mcpRequests.slice(s.mcpRequests.length);
    expect(second.every((m) => m.auth === 'bearer' && m.status !== 401)).toBe(true);
    expect(second.filter((m) => m.status !== 200)).toEqual([{ method: 'tools/list', status: 400, auth: 'bearer' }]);
  });
});

describe('profile and transport details', () => {
  it('the emulator refuses foreign Origins and requests without both Accept types', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} };
    const post = (headers: Record<string, string>) =>
      fetch(mcp, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(init) });
    expect((await post({ accept: 'application/json, text/event-stream', origin: 'https://evil.example.com' })).status).toBe(403);
    expect((await post({ accept: 'application/json' })).status).toBe(406);
    const unauth = await post({ accept: 'application/json, text/event-stream' });
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get('www-authenticate')).toBe(
      `Bearer realm="ctx-emulator", resource_metadata="${w.url}/.well-known/oauth-protected-resource/mcp", scope="tools:read"`,
    );
  });
});

describe('state, HTTPS and redirect rules', () => {
  it('Ctrl-C while waiting for the browser exits 130 and stores nothing', async () => {
    const c = await newClient('record');
    let child: import('node:child_process').ChildProcess | undefined;
    const run = w.run(['protocol', 'request', mcp], { env: c.env(), onSpawn: (p) => (child = p) });
    for (let i = 0; i < 200 && !(await c.urls()).length; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await c.urls()).toHaveLength(1);
    child!.kill('SIGINT');
    const r = await run;
    expect(r.code).toBe(130);
    expect(await tokensOf(c, mcp)).toBeUndefined();
  });

  it('the server refuses redirect URIs that are neither localhost nor HTTPS', async () => {
    const reg = await fetch(`${w.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'x',
        redirect_uris: ['http://evil.example.com/cb'],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
      }),
    });
    expect(reg.status).toBe(400);
    expect(((await reg.json()) as { error: string }).error).toBe('invalid_redirect_uri');
    const ok = await fetch(`${w.url}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        redirect_uris: ['http://localhost:9/cb', 'https://app.example.com/cb'],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
      }),
    });
    expect(ok.status).toBe(201);
    const client = (await ok.json()) as { client_id: string; client_secret?: string };
    expect(client.client_secret).toBeUndefined();
    // Registered localhost URI: any port; an unregistered host: refused without redirecting.
    const authz = (redirect: string) =>
      fetch(
        `${w.url}/authorize?${new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: redirect, code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', state: 's' })}`,
        { redirect: 'manual' },
      );
    expect((await authz('http://localhost:53111/cb')).status).toBe(200);
    expect((await authz('https://other.example.com/cb')).status).toBe(400);
  });
});

describe('PKCE at the server', () => {
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
  const redirect = 'http://127.0.0.1:40123/callback';

  async function codeFor(params: Record<string, string>): Promise<URL> {
    const page = await fetch(
      `${w.url}/authorize?${new URLSearchParams({ response_type: 'code', client_id: 'ctx-cli', redirect_uri: redirect, state: 'st', ...params })}`,
      { redirect: 'manual' },
    );
    if (page.status === 302) return new URL(page.headers.get('location')!);
    const html = await page.text();
    const id = /name="request_id" value="([^"]+)"/.exec(html)![1]!;
    const back = await fetch(`${w.url}/authorize`, { method: 'POST', body: new URLSearchParams({ request_id: id, decision: 'allow' }), redirect: 'manual' });
    return new URL(back.headers.get('location')!);
  }
  const token = (form: Record<string, string>) =>
    fetch(`${w.url}/token`, { method: 'POST', body: new URLSearchParams(form) }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as Record<string, string>,
    }));

  it('requires a S256 code_challenge', async () => {
    expect((await codeFor({})).searchParams.get('error')).toBe('invalid_request');
    expect((await codeFor({ code_challenge: verifier, code_challenge_method: 'plain' })).searchParams.get('error')).toBe('invalid_request');
  });

  it('verifies the code_verifier, the redirect_uri and single use of the code', async () => {
    const pkce = { code_challenge: challenge, code_challenge_method: 'S256' };
    const back = await codeFor(pkce);
    expect(back.searchParams.get('state')).toBe('st');
    expect(back.searchParams.get('iss')).toBe(w.url);
    const base = (code: string) => ({ grant_type: 'authorization_code', code, client_id: 'ctx-cli', redirect_uri: redirect });
    const code = back.searchParams.get('code')!;
    expect((await token({ ...base(code), code_verifier: verifier, redirect_uri: 'http://127.0.0.1:40124/callback' })).body.error_description).toMatch(
      /redirect_uri/,
    );
    const ok = await token({ ...base(code), code_verifier: verifier });
    expect(ok.status).toBe(200);
    expect(ok.body.token_type).toBe('Bearer');
    expect(ok.body.refresh_token).toBeTruthy();
    const again = await token({ ...base(code), code_verifier: verifier });
    expect(again.body.error).toBe('invalid_grant');
    expect((await token({ ...base((await codeFor(pkce)).searchParams.get('code')!) })).body.error).toBe('invalid_grant'); // no verifier
    const s = await stats(w);
    expect(s.pkceFailed).toBe(1);
    expect(s.pkceVerified).toBe(1);
  });

  it('a code is refused after a failed PKCE exchange, even with the right verifier then', async () => {
    const code = (await codeFor({ code_challenge: challenge, code_challenge_method: 'S256' })).searchParams.get('code')!;
    const form = { grant_type: 'authorization_code', code, client_id: 'ctx-cli', redirect_uri: redirect };
    const wrong = await token({ ...form, code_verifier: 'x'.repeat(43) });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
    expect(wrong.body.error_description).toMatch(/PKCE/);
    const right = await token({ ...form, code_verifier: verifier });
    expect(right.status).toBe(400);
    expect(right.body.error).toBe('invalid_grant');
    expect((await stats(w)).pkceVerified).toBe(0);
  });
});

describe('client credentials', () => {
  it('signs in without a browser with the secret from stdin, and calls the server', async () => {
    const c = await newClient('record');
    const login = await w.run(['auth', 'login', '--server', mcp, '--client-id', 'ctx-service', '--client-credentials'], {
      env: c.env(),
      input: 'ctx-service-secret\n',
    });
    expect(login.code, login.stderr).toBe(0);
    expect(login.stderr).toMatch(/Signed in to/);
    expect(login.stderr + login.stdout).not.toContain('ctx-service-secret');
    expect(await c.urls()).toHaveLength(0);
    const tok = await w.run(['auth', 'token', '--server', mcp], { env: c.env() });
    expect(tok.code).toBe(0);
    expect(tok.stdout.trim()).toMatch(/^ctxat_/);
    const call = await w.run(['protocol', 'request', mcp, '--method', 'tools/call', '--params', '{"name":"echo","arguments":{"text":"cc"}}', '--json'], {
      env: c.env(),
    });
    expect(call.code, call.stderr).toBe(0);
    expect(JSON.parse(call.stdout).result.content[0].text).toBe('cc');
    // The protected resource lists only tools:read: tools/call steps up (403 insufficient_scope) with a second grant.
    expect(call.stderr).toMatch(/needs the scope "tools:call"/);
    expect((await stats(w)).tokenRequests.client_credentials).toBe(2);
  });
});
