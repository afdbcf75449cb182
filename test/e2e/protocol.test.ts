/**
 * Context-protocol authorization end to end: the built CLI against the
 * emulator's protocol server and authorization server over real HTTP. The
 * consent pages are answered by a stand-in browser (protocol-consent.mjs);
 * protocol-browser.test.ts drives the same pages in Chromium.
 */
import { describe, expect, it } from 'vitest';
import type { World } from './harness.js';
import { configure, newClient, stats, tokensOf, useProtocolWorld } from './protocol-helpers.js';

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

  it('2025-03-26: falls back to /authorize, /token and /register when the server has no metadata document', async () => {
    await configure(w, { revision: '2025-03-26', metadata: false });
    const c = await newClient('allow');
    const r = await w.run(['protocol', 'request', mcp, '--method', 'ping', '--json'], { env: c.env() });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).result).toEqual({});
    const s = await stats(w);
    expect(s.metadataRequests).toEqual([
      { path: '/.well-known/oauth-authorization-server', versionHeader: '2025-03-26', header: 'CTX-Protocol-Version', served: false },
    ]);
    // The spec's header on every request after initialize, for this revision.
    expect(s.mcpRequests.filter((m) => m.method === 'ping').at(-1)).toEqual({ method: 'ping', status: 200, auth: 'bearer', version: '2025-03-26' });
    expect(s.registrations).toBe(1);
    const [url] = await c.urls();
    expect(url!.startsWith(`${w.url}/authorize?`)).toBe(true);
    expect(new URL(url!).searchParams.has('resource')).toBe(false);
  });

  it('without registration needs a pre-registered client id', async () => {
    await configure(w, { metadata: false, resourceMetadata: false, registration: false });
    const c = await newClient('allow');
    const no = await w.run(['protocol', 'request', mcp], { env: c.env() });
    expect(no.code).toBe(1);
    expect(no.stderr).toMatch(/offers no dynamic client registration/);
    expect(no.stderr).toMatch(/--client-id/);
    const yes = await w.run(['protocol', 'request', mcp, '--client-id', 'ctx-cli', '--json'], { env: c.env() });
    expect(yes.code, yes.stderr).toBe(0);
    expect(new URL((await c.urls())[0]!).searchParams.get('client_id')).toBe('ctx-cli');
    expect((await stats(w)).registrations).toBe(0);
  });

  it('a second 401 after authorizing is exit 4, with exactly one retry', async () => {
    const c = await newClient('allow');
    await configure(w, { rejectAllTokens: true });
    const r = await w.run(['protocol', 'request', mcp], { env: c.env() });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/refused the request again after authorization \(HTTP 401/);
    expect(r.stdout).toBe('');
    // The first request (stateless: server/discover) is refused before and after authorizing; no third try.
    expect((await stats(w)).mcpRequests).toEqual([
      { method: 'server/discover', status: 401, auth: 'none' },
      { method: 'server/discover', status: 401, auth: 'bearer' },
    ]);
  });

  it('answers from an event-stream body', async () => {
    await configure(w, { sse: true });
    const c = await newClient('allow');
    const r = await w.run(['protocol', 'request', mcp, '--method', 'tools/list', '--json'], { env: c.env() });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).result.tools).toHaveLength(3);
  });

  it('insufficient_scope re-authorizes once with the wider scope', async () => {
    const c = await newClient('allow');
    const r = await w.run(['protocol', 'request', mcp, '--method', 'tools/call', '--params', '{"name":"echo","arguments":{"text":"hello"}}', '--json'], {
      env: c.env(),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).result.content[0].text).toBe('hello');
    const urls = await c.urls();
    expect(urls).toHaveLength(2);
    expect(new URL(urls[0]!).searchParams.get('scope')).toBe('tools:read'); // the 401 challenge's scope
    expect(new URL(urls[1]!).searchParams.get('scope')).toBe('tools:read tools:call');
    expect(r.stderr).toMatch(/needs the scope "tools:call"/);
    expect((await stats(w)).mcpRequests.filter((m) => m.status === 403)).toHaveLength(1);
    expect((await tokensOf(c, mcp))?.scope).toBe('tools:read tools:call');
  });

  it('bad --params is a usage error', async () => {
    const c = await newClient('allow');
    const r = await w.run(['protocol', 'request', mcp, '--params', '{nope'], { env: c.env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--params must be JSON/);
  });
});

describe('profile and transport details', () => {
  it("uses the emulator profile's protocol.serverUrl when no URL is given", async () => {
    const c = await newClient('allow');
    const env = { ...c.env(), LANYARD_CONFIG_DIR: w.configDir };
    const r = await w.run(['--profile', 'emulator', 'protocol', 'request', '--method', 'ping', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).result).toEqual({});
    const none = await w.run(['protocol', 'request'], { env: c.env() });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/protocol\.serverUrl/);
  });

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
  it('aborts on a state mismatch and stores nothing', async () => {
    const c = await newClient('record');
    const run = w.run(['protocol', 'request', mcp, '--timeout', '20s'], { env: c.env() });
    let url: string | undefined;
    for (let i = 0; i < 200 && !url; i++) {
      url = (await c.urls())[0];
      if (!url) await new Promise((r) => setTimeout(r, 50));
    }
    const redirect = new URL(url!).searchParams.get('redirect_uri')!;
    const forged = await fetch(`${redirect}?code=forged&state=not-the-state`);
    expect(forged.status).toBe(400);
    const r = await run;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/state does not match/);
    expect(await tokensOf(c, mcp)).toBeUndefined();
    expect((await stats(w)).tokenRequests.authorization_code).toBeUndefined();
  });

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

  it('refuses an authorization endpoint that is neither HTTPS nor localhost', async () => {
    await configure(w, { endpointOrigin: 'http://tools.example.test:8080' });
    const c = await newClient('allow');
    const r = await w.run(['protocol', 'request', mcp], { env: c.env() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/refusing the authorization endpoint http:\/\/tools\.example\.test:8080\/authorize/);
    expect(await c.urls()).toHaveLength(0);
    expect((await stats(w)).registrations).toBe(0);
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

  it('a browser sign-in after a client-credentials one registers its own client instead of reusing the service client', async () => {
    const c = await newClient('allow');
    const cc = await w.run(['auth', 'login', '--server', mcp, '--client-id', 'ctx-service', '--client-credentials'], {
      env: c.env(),
      input: 'ctx-service-secret',
    });
    expect(cc.code, cc.stderr).toBe(0);
    const browser = await w.run(['auth', 'login', '--server', mcp], { env: c.env(), timeoutMs: 30_000 });
    expect(browser.code, browser.stderr).toBe(0);
    expect(browser.stderr).toMatch(/Registering Lanyard as a client/);
    expect((await stats(w)).registrations).toBe(1);
    expect((await c.urls())[0]).not.toContain('client_id=ctx-service');
  });

  it('a private_key_jwt client signs in with its key (RSA and P-256); another key is invalid_client', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const { writeFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const c = await newClient('record');
    for (const [id, type] of [
      ['svc-rsa', 'rsa'],
      ['svc-ec', 'ec'],
    ] as const) {
      const pair = generateKeyPairSync(type as 'rsa', type === 'rsa' ? { modulusLength: 2048 } : ({ namedCurve: 'P-256' } as never));
      await w.admin('protocol/key-client', { client_id: id, public_key: pair.publicKey.export({ type: 'spki', format: 'pem' }) });
      const pem = join(c.dir, `${id}.pem`);
      await writeFile(pem, pair.privateKey.export({ type: 'pkcs8', format: 'pem' }));
      const login = await w.run(['auth', 'login', '--server', mcp, '--client-id', id, '--client-key', pem, '--client-credentials'], { env: c.env() });
      expect(login.code, login.stderr).toBe(0);
      const call = await w.run(['protocol', 'request', mcp, '--method', 'tools/list', '--json'], { env: c.env() });
      expect(call.code, call.stderr).toBe(0);
    }
    const other = join(c.dir, 'other.pem');
    await writeFile(other, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const bad = await w.run(['auth', 'login', '--server', mcp, '--client-id', 'svc-rsa', '--client-key', other, '--client-credentials'], { env: c.env() });
    expect(bad.code).toBe(4);
    expect(bad.stderr).toMatch(/invalid_client/);
  });

  it('a wrong secret is invalid_client; no secret is a clear message', async () => {
    const c = await newClient('record');
    const bad = await w.run(['auth', 'login', '--server', mcp, '--client-id', 'ctx-service', '--client-credentials'], {
      env: c.env({ LANYARD_CLIENT_SECRET: 'wrong-secret' }),
    });
    expect(bad.code).toBe(4); // HTTP 401 invalid_client: authentication failed
    expect(bad.stderr).toMatch(/invalid_client/);
    expect(bad.stderr).not.toContain('wrong-secret');
    const none = await w.run(['auth', 'login', '--server', mcp, '--client-id', 'ctx-service', '--client-credentials'], { env: c.env() });
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/needs the client secret/);
  });
});

describe('refresh', () => {
  it('refreshes before expiry and saves the rotated refresh token; the old one is refused as reuse', async () => {
    // 20 s tokens expire within the client's 30 s margin: the next call refreshes first.
    await configure(w, { accessTokenTtl: 20 });
    const c = await newClient('allow');
    expect((await w.run(['protocol', 'request', mcp], { env: c.env() })).code).toBe(0);
    const first = (await tokensOf(c, mcp))!;
    const r = await w.run(['protocol', 'request', mcp, '--method', 'ping'], { env: c.env() });
    expect(r.code, r.stderr).toBe(0);
    const second = (await tokensOf(c, mcp))!;
    expect(second.accessToken).not.toBe(first.accessToken);
    expect(second.refreshToken).toBeTruthy();
    expect(second.refreshToken).not.toBe(first.refreshToken);
    let s = await stats(w);
    expect(s.tokenRequests.refresh_token).toBe(1);
    expect(s.mcpRequests.filter((m) => m.status === 401)).toHaveLength(1); // only the very first call
    expect(await c.urls()).toHaveLength(1);

    // The old refresh token again: refused, and the whole grant is revoked.
    const reuse = await fetch(`${w.url}/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: String(first.refreshToken),
        client_id: String((Object.values(await c.stored()).find((v) => 'authMethod' in v) as { clientId: string }).clientId),
      }),
    });
    expect(reuse.status).toBe(400);
    expect(((await reuse.json()) as { error: string }).error).toBe('invalid_grant');
    s = await stats(w);
    expect(s.refreshReuseDetected).toBe(1);

    // Next call: the refresh fails with invalid_grant → tokens cleared → a new authorization.
    await configure(w, { accessTokenTtl: 300 });
    const after = await w.run(['protocol', 'request', mcp, '--method', 'ping'], { env: c.env() });
    expect(after.code, after.stderr).toBe(0);
    expect(after.stderr).toMatch(/invalid_grant/);
    expect(await c.urls()).toHaveLength(2);
  });

  it('lanyard api --service protocol refreshes a token about to expire before using it', async () => {
    await configure(w, { accessTokenTtl: 20 });
    const c = await newClient('allow');
    expect((await w.run(['protocol', 'request', mcp], { env: c.env() })).code).toBe(0);
    expect((await w.run(['config', 'set', 'protocol.serverUrl', mcp], { env: c.env() })).code).toBe(0);
    const before = (await stats(w)).tokenRequests.refresh_token ?? 0;
    const r = await w.run(['api', '--service', 'protocol', '/mcp', '-X', 'POST', '-H', 'accept: application/json, text/event-stream', '--input', '-'], {
      env: c.env(),
      input: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    const s = await stats(w);
    expect(s.tokenRequests.refresh_token, r.stderr).toBe(before + 1);
    // The server saw the refreshed token, not the stale one.
    expect(s.mcpRequests.at(-1)!.status, r.stderr).not.toBe(401);
    await configure(w, { accessTokenTtl: 300 });
  });

  it('lanyard api --service protocol refreshes once after a 401 (a replayable body), not with --input', async () => {
    const c = await newClient('allow');
    expect((await w.run(['protocol', 'request', mcp], { env: c.env() })).code).toBe(0);
    expect((await w.run(['config', 'set', 'protocol.serverUrl', mcp], { env: c.env() })).code).toBe(0);
    const ping = ['-H', 'accept: application/json, text/event-stream'];
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });

    // A stream body cannot be sent twice: the 401 stands (exit 4), no refresh.
    await w.admin('protocol/revoke-access-tokens', {});
    let before = (await stats(w)).tokenRequests.refresh_token ?? 0;
    const streamed = await w.run(['api', '--service', 'protocol', '/mcp', '-X', 'POST', ...ping, '--input', '-'], { env: c.env(), input: body });
    expect(streamed.code, streamed.stderr).toBe(4);
    expect((await stats(w)).tokenRequests.refresh_token ?? 0).toBe(before);

    // Fields build the body: refused once, refreshed, sent again with the new token.
    before = (await stats(w)).tokenRequests.refresh_token ?? 0;
    const r = await w.run(['api', '--service', 'protocol', '/mcp', '-X', 'POST', ...ping, '-f', 'jsonrpc=2.0', '-F', 'id=1', '-f', 'method=ping'], {
      env: c.env(),
    });
    const s = await stats(w);
    expect(s.tokenRequests.refresh_token, r.stderr).toBe(before + 1);
    expect(s.mcpRequests.at(-2)!.status).toBe(401);
    expect(s.mcpRequests.at(-1)!.status, r.stderr).not.toBe(401);
  });

  it('refreshes on a 401 invalid_token and retries', async () => {
    const c = await newClient('allow');
    expect((await w.run(['protocol', 'request', mcp], { env: c.env() })).code).toBe(0);
    await w.admin('protocol/revoke-access-tokens', {});
    const r = await w.run(['protocol', 'request', mcp, '--method', 'tools/list'], { env: c.env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/refreshing/);
    const s = await stats(w);
    expect(s.tokenRequests.refresh_token).toBe(1);
    expect(await c.urls()).toHaveLength(1);
  });

  it('keeps working after the emulator clock passes the expiry (401 → refresh)', async () => {
    const c = await newClient('allow');
    expect((await w.run(['protocol', 'request', mcp], { env: c.env() })).code).toBe(0);
    await w.admin('advance', { seconds: 600 });
    const r = await w.run(['protocol', 'request', mcp, '--method', 'ping'], { env: c.env() });
    expect(r.code, r.stderr).toBe(0);
    expect((await stats(w)).tokenRequests.refresh_token).toBe(1);
  });

  it('invalid_client drops the registration and registers again', async () => {
    const c = await newClient('allow');
    expect((await w.run(['protocol', 'request', mcp], { env: c.env() })).code).toBe(0);
    const reg = Object.entries(await c.stored()).find(([k]) => k.startsWith('protocol-client:'))![1] as { clientId: string };
    await w.admin('protocol/delete-client', { client_id: reg.clientId });
    await w.admin('protocol/revoke-access-tokens', {});
    const r = await w.run(['protocol', 'request', mcp, '--method', 'ping'], { env: c.env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/invalid_client/);
    expect((await stats(w)).registrations).toBe(2);
    const now = Object.entries(await c.stored()).find(([k]) => k.startsWith('protocol-client:'))![1] as { clientId: string };
    expect(now.clientId).not.toBe(reg.clientId);
  });
});

describe('secrets stay out of output', () => {
  it('--debug traces redact tokens, codes, verifiers and client secrets', async () => {
    await configure(w, { accessTokenTtl: 20 });
    const c = await newClient('allow');
    const first = await w.run(['--debug', 'protocol', 'request', mcp], { env: c.env() });
    expect(first.code, first.stderr).toBe(0);
    const second = await w.run(['--debug', 'protocol', 'request', mcp, '--method', 'ping'], { env: c.env() }); // refreshes first
    expect(second.code, second.stderr).toBe(0);
    const t = (await tokensOf(c, mcp))!;
    const all = first.stderr + first.stdout + second.stderr + second.stdout;
    expect(all).toMatch(/authorization: Bearer \[REDACTED\]/);
    expect(all).toMatch(/code_verifier=\[REDACTED\]/);
    expect(all).toMatch(/refresh_token=\[REDACTED\]/);
    expect(all).not.toContain(String(t.accessToken));
    expect(all).not.toContain(String(t.refreshToken));
    expect(all).not.toMatch(/ctx(at|rt|code)_/);
  });
});

describe('auth token / logout --server', () => {
  it('prints the token, forgets it on logout, then exit 4', async () => {
    const c = await newClient('allow');
    const login = await w.run(['auth', 'login', '--server', mcp], { env: c.env() });
    expect(login.code, login.stderr).toBe(0);
    const t = await w.run(['auth', 'token', '--server', mcp], { env: c.env() });
    expect(t.stdout.trim()).toBe((await tokensOf(c, mcp))!.accessToken);
    expect((await w.run(['auth', 'logout', '--server', mcp], { env: c.env() })).code).toBe(0);
    const gone = await w.run(['auth', 'token', '--server', mcp], { env: c.env() });
    expect(gone.code).toBe(4);
    expect(gone.stderr).toMatch(/no token stored/);
  });
});
