import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../../src/core/http/client.js';
import { OAuthError } from '../../../../src/core/errors.js';
import {
  discoverAuthorizationServer,
  parseBearerChallenge,
  processProtectedResourceResponse,
  protectedResourceRequest,
  wellKnownUrl,
} from '../../../../src/core/protocol/discovery.js';
import { processTokenResponse, tokenRequest } from '../../../../src/core/protocol/token.js';
import { processRpcResponse, rpcPost, sessionIdOf } from '../../../../src/core/protocol/jsonrpc.js';
import { FakeClock } from '../../../fakes/clock.js';
import { StubHttp } from '../../../fakes/stub-http.js';

let stub: StubHttp;
let http: HttpClient;
const clock = new FakeClock();
beforeEach(async () => {
  stub = await StubHttp.start();
  http = new HttpClient({ clock, userAgent: 'test' });
});
afterEach(async () => {
  await http.close();
  await stub.close();
});

describe('discovery', () => {
  it('fetches RFC 8414 metadata with the protocol version header', async () => {
    stub.on('GET', '/.well-known/oauth-authorization-server', {
      body: {
        issuer: stub.url,
        authorization_endpoint: `${stub.url}/a`,
        token_endpoint: `${stub.url}/t`,
        registration_endpoint: `${stub.url}/r`,
        code_challenge_methods_supported: ['S256'],
      },
    });
    const e = await discoverAuthorizationServer(http, stub.url);
    expect(e).toMatchObject({
      source: 'oauth-authorization-server',
      authorizationEndpoint: `${stub.url}/a`,
      tokenEndpoint: `${stub.url}/t`,
      registrationEndpoint: `${stub.url}/r`,
    });
    expect(stub.requests[0]!.headers['ctx-protocol-version']).toBe('2025-03-26');
    stub.verify();
  });

  it('404 → the fallback endpoints; the OpenID configuration only when asked', async () => {
    stub.on('GET', '/.well-known/oauth-authorization-server', { status: 404 }, 2);
    const e = await discoverAuthorizationServer(http, stub.url);
    expect(e).toEqual({
      issuer: stub.url,
      authorizationEndpoint: `${stub.url}/authorize`,
      tokenEndpoint: `${stub.url}/token`,
      registrationEndpoint: `${stub.url}/register`,
      source: 'fallback',
    });
    stub.on('GET', '/.well-known/openid-configuration', {
      body: { issuer: stub.url, authorization_endpoint: `${stub.url}/auth`, token_endpoint: `${stub.url}/tok` },
    });
    const o = await discoverAuthorizationServer(http, stub.url, { openid: true });
    expect(o.source).toBe('openid-configuration');
    expect(o.tokenEndpoint).toBe(`${stub.url}/tok`);
    stub.verify();
  });

  it('other failures are errors that name the status; a foreign issuer is refused', async () => {
    stub.on('GET', '/.well-known/oauth-authorization-server', { status: 500, body: 'boom' });
    await expect(discoverAuthorizationServer(http, stub.url)).rejects.toThrow(/HTTP 500/);
    const s2 = await StubHttp.start();
    try {
      s2.on('GET', '/.well-known/oauth-authorization-server', {
        body: { issuer: 'https://evil.example.com', authorization_endpoint: 'x', token_endpoint: 'y' },
      });
      await expect(discoverAuthorizationServer(http, s2.url)).rejects.toThrow(/names issuer https:\/\/evil\.example\.com/);
    } finally {
      await s2.close();
    }
  });

  it('well-known URLs of issuers with a path (RFC 8414 §3.1)', () => {
    expect(wellKnownUrl('https://as.example.com/tenant1', 'oauth-authorization-server')).toBe(
      'https://as.example.com/.well-known/oauth-authorization-server/tenant1',
    );
    expect(wellKnownUrl('https://as.example.com/tenant1/', 'openid-configuration')).toBe('https://as.example.com/tenant1/.well-known/openid-configuration');
    expect(wellKnownUrl('https://as.example.com', 'oauth-authorization-server')).toBe('https://as.example.com/.well-known/oauth-authorization-server');
  });

  it('parses Bearer challenges', () => {
    expect(
      parseBearerChallenge('Bearer realm="x", error="insufficient_scope", scope="a b", resource_metadata="https://r/.well-known/oauth-protected-resource"'),
    ).toEqual({ error: 'insufficient_scope', errorDescription: undefined, scope: 'a b', resourceMetadata: 'https://r/.well-known/oauth-protected-resource' });
    expect(parseBearerChallenge('Basic realm="y", Bearer error=invalid_token')?.error).toBe('invalid_token');
    expect(parseBearerChallenge('Bearer')).toEqual({ error: undefined, errorDescription: undefined, scope: undefined, resourceMetadata: undefined });
    expect(parseBearerChallenge('Basic realm="y"')).toBeUndefined();
    expect(parseBearerChallenge('Bearer error_description="say \\"hi\\""')?.errorDescription).toBe('say "hi"');
  });

  it('protected-resource metadata must name the server it was fetched for', async () => {
    stub.on('GET', '/prm', { body: { resource: `${stub.url}/mcp`, authorization_servers: ['https://as.example.com'] } });
    stub.on('GET', '/prm2', { body: { resource: 'https://other.example.com/mcp', authorization_servers: ['https://as.example.com'] } });
    const ok = await processProtectedResourceResponse(await protectedResourceRequest(http, `${stub.url}/prm`), `${stub.url}/mcp`);
    expect(ok).toEqual({ resource: `${stub.url}/mcp`, authorizationServers: ['https://as.example.com'], scopes: undefined });
    await expect(processProtectedResourceResponse(await protectedResourceRequest(http, `${stub.url}/prm2`), `${stub.url}/mcp`)).rejects.toThrow(/not http/);
  });
});

describe('token endpoint', () => {
  const grant = { grant_type: 'authorization_code', code: 'c', redirect_uri: 'http://127.0.0.1:1/callback', code_verifier: 'v' };

  it('none: client_id in the form; client_secret_post: the secret too; client_secret_basic: an encoded Basic header', async () => {
    stub.on('POST', '/token', { body: { access_token: 'at', token_type: 'bearer', expires_in: 60, refresh_token: 'rt', scope: 's' } }, 3);
    const t = await processTokenResponse(
      await tokenRequest(http, `${stub.url}/token`, grant, { clientId: 'pub', authMethod: 'none', origin: 'dynamic' }),
      clock.now(),
    );
    expect(t).toEqual({ accessToken: 'at', tokenType: 'Bearer', expiresAt: clock.now() + 60_000, refreshToken: 'rt', scope: 's' });
    await tokenRequest(http, `${stub.url}/token`, grant, { clientId: 'conf', clientSecret: 'p@ss', authMethod: 'client_secret_post', origin: 'provided' });
    await tokenRequest(http, `${stub.url}/token`, grant, { clientId: 'a:b', clientSecret: 'p@ss:x', authMethod: 'client_secret_basic', origin: 'provided' });
    const [none, post, basic] = stub.requests.map((r) => ({ form: new URLSearchParams(r.body), auth: r.headers.authorization }));
    expect(none!.form.get('client_id')).toBe('pub');
    expect(none!.form.has('client_secret')).toBe(false);
    expect(none!.auth).toBeUndefined();
    expect(post!.form.get('client_secret')).toBe('p@ss');
    expect(basic!.form.has('client_id')).toBe(false);
    expect(Buffer.from(basic!.auth!.slice(6), 'base64').toString()).toBe('a%3Ab:p%40ss%3Ax');
    expect(none!.form.get('code_verifier')).toBe('v');
  });

  it('errors become OAuthError with error, description and status; non-Bearer tokens are refused', async () => {
    stub.on('POST', '/token', { status: 400, body: { error: 'invalid_grant', error_description: 'used' } });
    stub.on('POST', '/token', { body: { access_token: 'at', token_type: 'mac' } });
    const e = await processTokenResponse(
      await tokenRequest(http, `${stub.url}/token`, grant, { clientId: 'x', authMethod: 'none', origin: 'dynamic' }),
      0,
    ).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OAuthError);
    expect(e).toMatchObject({ error: 'invalid_grant', errorDescription: 'used', status: 400 });
    await expect(
      processTokenResponse(await tokenRequest(http, `${stub.url}/token`, grant, { clientId: 'x', authMethod: 'none', origin: 'dynamic' }), 0),
    ).rejects.toThrow(/token_type/);
  });
});

describe('JSON-RPC over HTTP', () => {
  it('sends both Accept types and the session id; reads the matching message of an event stream', async () => {
    const events = [
      'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\n',
      'data: {"jsonrpc":"2.0","id":"other","result":1}\n\n',
      'data: {"jsonrpc":"2.0",\ndata: "id":"7","result":{"ok":true}}\n\n',
    ].join('');
    stub.on('POST', '/mcp', { headers: { 'content-type': 'text/event-stream', 'mcp-session-id': 'sess-1' }, body: events });
    const res = await rpcPost(http, `${stub.url}/mcp`, { jsonrpc: '2.0', id: '7', method: 'ping' }, { accessToken: 'tok', sessionId: 'sess-0' });
    expect(sessionIdOf(res)).toBe('sess-1');
    expect(await processRpcResponse(res, '7')).toEqual({ jsonrpc: '2.0', id: '7', result: { ok: true } });
    const req = stub.requests[0]!;
    expect(req.headers.accept).toBe('application/json, text/event-stream');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['mcp-session-id']).toBe('sess-0');
    expect(req.headers.authorization).toBe('Bearer tok');
    expect(req.url.search).toBe('');
  });

  it('reads a JSON body (or batch) and fails clearly without our id', async () => {
    stub.on('POST', '/mcp', {
      body: [
        { jsonrpc: '2.0', id: 1, result: 'a' },
        { jsonrpc: '2.0', id: 2, result: 'b' },
      ],
    });
    stub.on('POST', '/mcp', { body: { jsonrpc: '2.0', id: 9, result: 'x' } });
    expect((await processRpcResponse(await rpcPost(http, `${stub.url}/mcp`, { jsonrpc: '2.0', id: 2, method: 'm' }, {}), 2)).result).toBe('b');
    await expect(processRpcResponse(await rpcPost(http, `${stub.url}/mcp`, { jsonrpc: '2.0', id: 3, method: 'm' }, {}), 3)).rejects.toThrow(
      /without a JSON-RPC response to request 3/,
    );
  });
});
