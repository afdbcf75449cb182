import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../../src/core/http/client.js';
import { AuthRequiredError } from '../../../../src/core/errors.js';
import { authorize, currentTokens, refreshTokens, type ProtocolAuthDeps } from '../../../../src/core/protocol/flow.js';
import { callProtocolServer, unionScopes } from '../../../../src/core/protocol/session.js';
import { codeChallengeS256 } from '../../../../src/core/protocol/pkce.js';
import { generateDpopKey } from '../../../../src/core/protocol/dpop.js';
import { ProtocolCredentials, type StoredTokens } from '../../../../src/core/protocol/store.js';
import { FakeClock } from '../../../fakes/clock.js';
import { MemoryCredentialStore } from '../../../fakes/credential-store.js';
import { StubHttp } from '../../../fakes/stub-http.js';

let stub: StubHttp;
let http: HttpClient;
let clock: FakeClock;
let store: MemoryCredentialStore;
let creds: ProtocolCredentials;
let opened: string[];

function deps(extra: Partial<ProtocolAuthDeps> = {}): ProtocolAuthDeps {
  return {
    http,
    clock,
    credentials: creds,
    loopbackTimeoutMs: 60_000,
    clientSecret: async () => undefined,
    // The "browser": follow the authorization URL straight back to the loopback listener.
    async presentAuthorizationUrl(url) {
      opened.push(url);
      const q = new URL(url).searchParams;
      void fetch(`${q.get('redirect_uri')}?code=the-code&state=${encodeURIComponent(q.get('state')!)}`);
    },
    ...extra,
  };
}

beforeEach(async () => {
  stub = await StubHttp.start();
  clock = new FakeClock(Date.UTC(2026, 10, 22, 12), { autoAdvance: false });
  http = new HttpClient({ clock, userAgent: 'test' });
  store = new MemoryCredentialStore();
  creds = new ProtocolCredentials(store);
  opened = [];
});
afterEach(async () => {
  await http.close();
  await stub.close();
});

const record = (over: Partial<StoredTokens> = {}): StoredTokens => ({
  server: `${stub.url}/mcp`,
  issuer: stub.url,
  tokenEndpoint: `${stub.url}/token`,
  grant: 'authorization_code',
  obtainedAt: 0,
  accessToken: 'old-at',
  tokenType: 'Bearer',
  expiresAt: clock.now() + 10_000,
  refreshToken: 'old-rt',
  scope: 'a',
  ...over,
});

describe('authorize (code flow)', () => {
  it('fallback endpoints, dynamic registration as a public client, PKCE bound to the exchange', async () => {
    stub.on('GET', '/.well-known/oauth-authorization-server', { status: 404 });
    stub.on('POST', '/register', { status: 201, body: { client_id: 'dyn-1', token_endpoint_auth_method: 'none' } });
    stub.on('POST', '/token', { body: { access_token: 'at-1', token_type: 'Bearer', expires_in: 3600, refresh_token: 'rt-1' } });
    const t = await authorize(deps(), { serverUrl: `${stub.url}/mcp`, scopes: 'tools:read' });
    stub.verify();
    expect(t).toMatchObject({ accessToken: 'at-1', refreshToken: 'rt-1', expiresAt: clock.now() + 3_600_000, scope: 'tools:read', server: `${stub.url}/mcp` });
    // Protected resource metadata probed, path-inserted then root: none (no stub → 599), so a 2025-03-26 server.
    expect(stub.requests.slice(0, 2).map((r) => r.path)).toEqual(['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']);
    expect(stub.requests[2]!.headers['ctx-protocol-version']).toBe('2025-03-26');
    const reg = JSON.parse(stub.requests[3]!.body);
    expect(reg).toMatchObject({ client_name: 'Lanyard CLI', token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] });
    expect(reg.redirect_uris[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const authz = new URL(opened[0]!);
    expect(authz.origin + authz.pathname).toBe(`${stub.url}/authorize`);
    const form = new URLSearchParams(stub.requests[4]!.body);
    expect(form.get('redirect_uri')).toBe(authz.searchParams.get('redirect_uri'));
    expect(form.get('redirect_uri')).toBe(reg.redirect_uris[0]);
    expect(codeChallengeS256(form.get('code_verifier')!)).toBe(authz.searchParams.get('code_challenge'));
    expect(form.get('code')).toBe('the-code');
    expect(form.get('client_id')).toBe('dyn-1');
    expect(await creds.client(stub.url)).toMatchObject({ clientId: 'dyn-1', origin: 'dynamic' });
    expect(await creds.tokens(`${stub.url}/mcp`)).toMatchObject({ accessToken: 'at-1' });
  });

  it('refuses metadata without S256', async () => {
    stub.on('GET', '/.well-known/oauth-authorization-server', {
      body: { issuer: stub.url, authorization_endpoint: `${stub.url}/a`, token_endpoint: `${stub.url}/t`, code_challenge_methods_supported: ['plain'] },
    });
    await expect(authorize(deps(), { serverUrl: `${stub.url}/mcp` })).rejects.toThrow(
      /code_challenge_methods_supported lacks S256; refusing to sign in without PKCE/,
    );
    expect(opened).toHaveLength(0);
  });
});

describe('refresh', () => {
  beforeEach(async () => {
    await creds.saveClient(stub.url, { clientId: 'dyn-1', authMethod: 'none', origin: 'dynamic' });
  });

  it('saves a rotated refresh token, keeps the old one when none is returned', async () => {
    stub.on('POST', '/token', { body: { access_token: 'at-2', token_type: 'Bearer', expires_in: 60, refresh_token: 'rt-2' } });
    stub.on('POST', '/token', { body: { access_token: 'at-3', token_type: 'Bearer', expires_in: 60 } });
    const a = await refreshTokens(deps(), record());
    expect(a).toMatchObject({ accessToken: 'at-2', refreshToken: 'rt-2' });
    expect(new URLSearchParams(stub.requests[0]!.body).get('refresh_token')).toBe('old-rt');
    const b = await refreshTokens(deps(), a!);
    expect(b).toMatchObject({ accessToken: 'at-3', refreshToken: 'rt-2' });
    expect((await creds.tokens(`${stub.url}/mcp`))?.refreshToken).toBe('rt-2');
  });

  it('invalid_grant clears the tokens; invalid_client drops the registration', async () => {
    await creds.saveTokens(record());
    stub.on('POST', '/token', { status: 400, body: { error: 'invalid_grant' } });
    expect(await refreshTokens(deps(), record())).toBeUndefined();
    expect(await creds.tokens(`${stub.url}/mcp`)).toBeUndefined();
    expect(await creds.client(stub.url)).toBeDefined();
    await creds.saveTokens(record());
    stub.on('POST', '/token', { status: 401, body: { error: 'invalid_client' } });
    expect(await refreshTokens(deps(), record())).toBeUndefined();
    expect(await creds.client(stub.url)).toBeUndefined();
    expect(await creds.tokens(`${stub.url}/mcp`)).toBeUndefined();
  });

  it('refreshes before expiry: within the 30 s margin, not before', async () => {
    await creds.saveTokens(record({ expiresAt: clock.now() + 60_000 }));
    expect((await currentTokens(deps(), `${stub.url}/mcp`))?.accessToken).toBe('old-at');
    expect(stub.requests).toHaveLength(0);
    clock.advance(31_000);
    stub.on('POST', '/token', { body: { access_token: 'fresh', token_type: 'Bearer', expires_in: 60, refresh_token: 'rt-9' } });
    expect((await currentTokens(deps(), `${stub.url}/mcp`))?.accessToken).toBe('fresh');
    stub.verify();
  });
});

describe('session: 401, retry once, insufficient scope', () => {
  const meta = () => ({
    body: { issuer: stub.url, authorization_endpoint: `${stub.url}/a`, token_endpoint: `${stub.url}/token`, code_challenge_methods_supported: ['S256'] },
  });
  const ok = (r: { body: string }) => ({
    headers: { 'mcp-session-id': 's1' },
    body: { jsonrpc: '2.0', id: JSON.parse(r.body).id, result: { protocolVersion: '2025-03-26' } },
  });
  const cc = { clientSecret: async () => 'sec' };
  // How a server that needs the handshake refuses Lanyard's first, stateless request (the protocol SDK's words).
  const needsHandshake = { status: 400, body: { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Server not initialized' } } };

  it('401 → client-credentials flow → the one retry succeeds, then notifications/initialized', async () => {
    stub.on('POST', '/mcp', { status: 401, headers: { 'www-authenticate': 'Bearer realm="x"' } });
    stub.on('GET', '/.well-known/oauth-authorization-server', meta());
    stub.on('POST', '/token', { body: { access_token: 'cc-at', token_type: 'Bearer', expires_in: 60 } });
    stub.on('POST', '/mcp', needsHandshake);
    stub.on('POST', '/mcp', ok);
    stub.on('POST', '/mcp', { status: 202 });
    // The session's own event stream (GET) is opened in the background; this server has none (no stub → 599).
    stub.on('DELETE', '/mcp', { status: 204 });
    const r = await callProtocolServer(deps(cc), {
      serverUrl: `${stub.url}/mcp`,
      clientId: 'svc',
      clientCredentials: true,
      clientInfo: { name: 't', version: '1' },
    });
    stub.verify();
    expect(r.response.result).toEqual({ protocolVersion: '2025-03-26' });
    expect(r.sessionId).toBe('s1');
    const all = stub.requests.filter((q) => q.path === '/mcp');
    // The stateless request first: refused for want of a token, then for want of the handshake.
    expect(all[0]!.headers.authorization).toBeUndefined();
    expect(JSON.parse(all[1]!.body)).toMatchObject({
      method: 'server/discover',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
    });
    expect(all[1]!.headers['mcp-protocol-version']).toBe('2026-07-28');
    expect(all[1]!.headers.authorization).toBe('Bearer cc-at');
    const mcp = all.slice(1);
    expect(JSON.parse(mcp[1]!.body)).toMatchObject({
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 't', version: '1' } },
    });
    expect(r.revision).toBe('2025-03-26');
    expect(JSON.parse(mcp[2]!.body)).toEqual({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(mcp[2]!.headers['mcp-session-id']).toBe('s1');
    // The server chose 2025-03-26: its header from now on, then the session is ended.
    expect(mcp[2]!.headers['ctx-protocol-version']).toBe('2025-03-26');
    expect(
      mcp
        .slice(3)
        .filter((q) => q.method !== 'GET')
        .map((q) => [q.method, q.headers['mcp-session-id']]),
    ).toEqual([['DELETE', 's1']]);
    expect(mcp[2]!.headers.authorization).toBe('Bearer cc-at');
  });

  it('a second 401 is AuthRequiredError (exit 4), after exactly one retry', async () => {
    stub.on('POST', '/mcp', { status: 401, headers: { 'www-authenticate': 'Bearer' } }, 2);
    stub.on('GET', '/.well-known/oauth-authorization-server', meta());
    stub.on('POST', '/token', { body: { access_token: 'cc-at', token_type: 'Bearer' } });
    const e = await callProtocolServer(deps(cc), {
      serverUrl: `${stub.url}/mcp`,
      clientId: 'svc',
      clientCredentials: true,
      clientInfo: { name: 't', version: '1' },
    }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(AuthRequiredError);
    stub.verify();
    expect(stub.requests.filter((q) => q.path === '/mcp')).toHaveLength(2);
  });

  it('403 insufficient_scope re-authorizes once with the union of scopes', async () => {
    await creds.saveClient(stub.url, { clientId: 'svc', clientSecret: 'sec', authMethod: 'client_secret_basic', origin: 'provided' });
    await creds.saveTokens(
      record({ grant: 'client_credentials', refreshToken: undefined, accessToken: 'narrow', scope: 'a', expiresAt: clock.now() + 600_000 }),
    );
    stub.on('POST', '/mcp', needsHandshake);
    stub.on('POST', '/mcp', ok);
    stub.on('POST', '/mcp', { status: 202 });
    stub.on('POST', '/mcp', { status: 403, headers: { 'www-authenticate': 'Bearer error="insufficient_scope", scope="b"' } });
    stub.on('GET', '/.well-known/oauth-authorization-server', meta());
    stub.on('POST', '/token', { body: { access_token: 'wide', token_type: 'Bearer', scope: 'a b' } });
    stub.on('POST', '/mcp', (r) => ({ body: { jsonrpc: '2.0', id: JSON.parse(r.body).id, result: { done: true } } }));
    const r = await callProtocolServer(deps(), { serverUrl: `${stub.url}/mcp`, method: 'tools/call', params: {}, clientInfo: { name: 't', version: '1' } });
    stub.verify();
    expect(r.response.result).toEqual({ done: true });
    const tokenReq = stub.requests.find((q) => q.path === '/token')!;
    expect(new URLSearchParams(tokenReq.body).get('scope')).toBe('a b');
    expect(tokenReq.headers.authorization).toMatch(/^Basic /);
    expect(stub.requests.at(-1)!.headers.authorization).toBe('Bearer wide');
  });

  it('DPoP: a refreshed token of the same key keeps the nonce the server gave earlier in the session; each exchange has its own proof', async () => {
    await creds.saveClient(stub.url, { clientId: 'dyn-1', authMethod: 'none', origin: 'dynamic' });
    await creds.saveTokens(record({ tokenType: 'DPoP', dpopKey: await generateDpopKey('ES256'), expiresAt: clock.now() + 600_000 }));
    const dpopChallenge = (error: string) => ({ 'www-authenticate': `DPoP error="${error}", algs="ES256"` });
    // The probe: a nonce asked for, then a server that needs the handshake; its initialize refuses the (revoked) token.
    stub.on('POST', '/mcp', { status: 401, headers: { ...dpopChallenge('use_dpop_nonce'), 'dpop-nonce': 'n-1' } });
    stub.on('POST', '/mcp', needsHandshake);
    stub.on('POST', '/mcp', { status: 401, headers: dpopChallenge('invalid_token') });
    stub.on('POST', '/token', { body: { access_token: 'new-at', token_type: 'DPoP', expires_in: 600, refresh_token: 'new-rt' } });
    stub.on('POST', '/mcp', ok);
    stub.on('POST', '/mcp', { status: 202 });
    stub.on('DELETE', '/mcp', { status: 204 });
    const r = await callProtocolServer(deps(), { serverUrl: `${stub.url}/mcp`, clientInfo: { name: 't', version: '1' } });
    stub.verify();
    expect(r.response.result).toEqual({ protocolVersion: '2025-03-26' });
    const claims = (q: { headers: Record<string, unknown> }) =>
      JSON.parse(Buffer.from(String(q.headers.dpop).split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    const mcp = stub.requests.filter((q) => q.path === '/mcp' && q.method === 'POST');
    expect(mcp.map((q) => q.headers.authorization)).toEqual(['DPoP old-at', 'DPoP old-at', 'DPoP old-at', 'DPoP new-at', 'DPoP new-at']);
    // The nonce of the first answer, in every proof after it: the refresh (a new record of the same key) did not forget it.
    expect(mcp.map((q) => claims(q).nonce)).toEqual([undefined, 'n-1', 'n-1', 'n-1', 'n-1']);
    expect(new Set(stub.requests.filter((q) => q.headers.dpop).map((q) => claims(q).jti)).size).toBe(stub.requests.filter((q) => q.headers.dpop).length);
  });

  it('unionScopes keeps order and drops duplicates', () => {
    expect(unionScopes('a b', 'b c', undefined, ' d  a')).toBe('a b c d');
  });
});

describe('authorize (device grant, RFC 8628)', () => {
  const metadata = () => ({
    issuer: stub.url,
    authorization_endpoint: `${stub.url}/authorize`,
    token_endpoint: `${stub.url}/token`,
    device_authorization_endpoint: `${stub.url}/device`,
    registration_endpoint: `${stub.url}/register`,
    code_challenge_methods_supported: ['S256'],
    grant_types_supported: ['authorization_code', 'urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
  });

  it('registers for the device grant, shows the code, polls at the interval (slow_down raises it) and stores the tokens', async () => {
    clock.autoAdvance = true;
    stub.on('GET', '/.well-known/oauth-authorization-server', { body: metadata() });
    stub.on('POST', '/register', { status: 201, body: { client_id: 'dev-1', token_endpoint_auth_method: 'none' } });
    stub.on('POST', '/device', {
      body: { device_code: 'dc-1', user_code: 'ABCD-EFGH', verification_uri: `${stub.url}/device-page`, expires_in: 600, interval: 5 },
    });
    stub.on('POST', '/token', { status: 400, body: { error: 'authorization_pending' } });
    stub.on('POST', '/token', { status: 400, body: { error: 'slow_down' } });
    stub.on('POST', '/token', { body: { access_token: 'at-d', token_type: 'Bearer', expires_in: 60, refresh_token: 'rt-d' } });
    const shown: string[] = [];
    const t = await authorize(deps({ presentDeviceCode: async (a) => void shown.push(`${a.userCode} ${a.verificationUri}`) }), {
      serverUrl: `${stub.url}/mcp`,
      scopes: 'tools:read',
      device: true,
    });
    expect(shown).toEqual([`ABCD-EFGH ${stub.url}/device-page`]);
    expect(opened).toHaveLength(0);
    const reg = JSON.parse(stub.requests.find((r) => r.path === '/register')!.body);
    expect(reg.grant_types).toEqual(['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token']);
    expect(reg.redirect_uris).toEqual([]);
    const dev = new URLSearchParams(stub.requests.find((r) => r.path === '/device')!.body);
    expect(Object.fromEntries(dev)).toEqual({ client_id: 'dev-1', scope: 'tools:read' });
    const polls = stub.requests.filter((r) => r.path === '/token').map((r) => Object.fromEntries(new URLSearchParams(r.body)));
    expect(polls).toHaveLength(3);
    expect(polls[0]).toEqual({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: 'dc-1', client_id: 'dev-1' });
    // 5 s, 5 s, then 10 s after slow_down (RFC 8628 §3.5: +5 s).
    expect(clock.sleeps).toEqual([5000, 5000, 10000]);
    expect(t).toMatchObject({ accessToken: 'at-d', refreshToken: 'rt-d', grant: 'device_code' });
    expect(await creds.client(stub.url)).toMatchObject({ clientId: 'dev-1', provenBy: 'device_code' });
  });

  it('a server without a device authorization endpoint, an expired code and a denial are errors that store nothing', async () => {
    clock.autoAdvance = true;
    const { device_authorization_endpoint: _, ...without } = metadata();
    stub.on('GET', '/.well-known/oauth-authorization-server', { body: without });
    await expect(authorize(deps({ presentDeviceCode: async () => {} }), { serverUrl: `${stub.url}/mcp`, clientId: 'c', device: true })).rejects.toThrow(
      /no device_authorization_endpoint/,
    );
    stub.on('GET', '/.well-known/oauth-authorization-server', { body: metadata() }, 2);
    stub.on('POST', '/device', { body: { device_code: 'dc', user_code: 'U', verification_uri: `${stub.url}/d`, expires_in: 12, interval: 5 } });
    stub.on('POST', '/token', { status: 400, body: { error: 'authorization_pending' } }, 2);
    await expect(authorize(deps({ presentDeviceCode: async () => {} }), { serverUrl: `${stub.url}/mcp`, clientId: 'c', device: true })).rejects.toThrow(
      /expired before it was authorized/,
    );
    stub.on('POST', '/device', { body: { device_code: 'dc', user_code: 'U', verification_uri: `${stub.url}/d`, expires_in: 600, interval: 5 } });
    stub.on('POST', '/token', { status: 400, body: { error: 'access_denied' } });
    const denied = await authorize(deps({ presentDeviceCode: async () => {} }), { serverUrl: `${stub.url}/mcp`, clientId: 'c', device: true }).catch(
      (e: unknown) => e,
    );
    expect(denied).toBeInstanceOf(AuthRequiredError);
    expect((denied as AuthRequiredError).remedy).toMatchObject({ kind: 'sign-in', service: 'protocol', serverUrl: `${stub.url}/mcp` });
    expect(await creds.tokens(`${stub.url}/mcp`)).toBeUndefined();
  });
});

describe('identity-provider escape hatches', () => {
  const prm = () => ({ resource: `${stub.url}/mcp`, authorization_servers: [stub.url] });
  const asMetadata = () => ({
    issuer: stub.url,
    authorization_endpoint: `${stub.url}/authorize`,
    token_endpoint: `${stub.url}/token`,
    code_challenge_methods_supported: ['S256'],
  });
  /** An identity provider that refuses `resource` unless it is its own audience name, wants `audience`, and serves its endpoints elsewhere than its metadata says. */
  const strictIdp = (want: { resource?: string | null }) => {
    stub.on('GET', '/.well-known/oauth-protected-resource/mcp', { body: prm() });
    stub.on('GET', '/.well-known/oauth-authorization-server', { body: asMetadata() });
    stub.on('POST', '/real/token', (req) => {
      const form = new URLSearchParams(req.body);
      const ok = want.resource === null ? !form.has('resource') : form.get('resource') === want.resource;
      return ok ? { body: { access_token: 'at-x', token_type: 'Bearer' } } : { status: 400, body: { error: 'invalid_target' } };
    });
  };

  it('--no-resource, --auth-param and the endpoint overrides reach the provider that needs them', async () => {
    strictIdp({ resource: null });
    const t = await authorize(deps(), {
      serverUrl: `${stub.url}/mcp`,
      clientId: 'pre',
      resource: false,
      authorizationParams: { audience: 'api://tools', client_id: 'ignored' },
      authorizationEndpoint: `${stub.url}/real/authorize`,
      tokenEndpoint: `${stub.url}/real/token`,
    });
    expect(t).toMatchObject({ accessToken: 'at-x', tokenEndpoint: `${stub.url}/real/token`, resource: undefined });
    const authz = new URL(opened[0]!);
    expect(authz.pathname).toBe('/real/authorize');
    expect(authz.searchParams.get('audience')).toBe('api://tools');
    expect(authz.searchParams.get('client_id')).toBe('pre');
    expect(authz.searchParams.has('resource')).toBe(false);
  });

  it('--resource replaces the server’s; without a hatch the provider refuses', async () => {
    strictIdp({ resource: 'api://tools' });
    await authorize(deps(), { serverUrl: `${stub.url}/mcp`, clientId: 'pre', resource: 'api://tools', tokenEndpoint: `${stub.url}/real/token` });
    expect(new URL(opened[0]!).searchParams.get('resource')).toBe('api://tools');
    strictIdp({ resource: 'api://tools' });
    await expect(authorize(deps(), { serverUrl: `${stub.url}/mcp`, clientId: 'pre', tokenEndpoint: `${stub.url}/real/token` })).rejects.toThrow(
      /invalid_target/,
    );
  });
});
