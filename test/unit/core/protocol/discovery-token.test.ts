import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../../src/core/http/client.js';
import { type LanyardError, OAuthError } from '../../../../src/core/errors.js';
import {
  discoverAuthorizationServer,
  parseBearerChallenge,
  processProtectedResourceResponse,
  protectedResourceRequest,
  appendedWellKnownUrl,
  authorizationServerMetadataUrls,
  wellKnownUrl,
} from '../../../../src/core/protocol/discovery.js';
import { processTokenResponse, tokenRequest } from '../../../../src/core/protocol/token.js';
import { classify, jsonMessages, rpcGet, rpcPost, sessionIdOf, sseEvents } from '../../../../src/core/protocol/jsonrpc.js';
import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, importJWK, jwtVerify, type JWK } from 'jose';
import { chooseDpopAlg, DpopProver, generateDpopKey, htuOf, publicJwk } from '../../../../src/core/protocol/dpop.js';
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

const r2025 = { named: false, revision: '2025-03-26' } as const;
const later = { named: true, revision: '2025-11-25' } as const;

describe('discovery', () => {
  it('2025-03-26: RFC 8414 metadata at the origin with the CTX-Protocol-Version header', async () => {
    stub.on('GET', '/.well-known/oauth-authorization-server', {
      body: {
        issuer: stub.url,
        authorization_endpoint: `${stub.url}/a`,
        token_endpoint: `${stub.url}/t`,
        registration_endpoint: `${stub.url}/r`,
        code_challenge_methods_supported: ['S256'],
      },
    });
    const e = await discoverAuthorizationServer(http, `${stub.url}/mcp`, r2025);
    expect(e).toMatchObject({
      source: 'oauth-authorization-server',
      authorizationEndpoint: `${stub.url}/a`,
      tokenEndpoint: `${stub.url}/t`,
      registrationEndpoint: `${stub.url}/r`,
    });
    expect(stub.requests[0]!.headers['ctx-protocol-version']).toBe('2025-03-26');
    stub.verify();
  });

  it('2025-03-26: 404 → the fallback endpoints; later revisions: the OpenID configuration, and no fallback', async () => {
    stub.on('GET', '/.well-known/oauth-authorization-server', { status: 404 }, 3);
    const e = await discoverAuthorizationServer(http, stub.url, r2025);
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
    const o = await discoverAuthorizationServer(http, stub.url, later);
    expect(o.source).toBe('openid-configuration');
    expect(o.tokenEndpoint).toBe(`${stub.url}/tok`);
    expect(stub.requests.at(-1)!.headers['mcp-protocol-version']).toBe('2025-11-25');
    stub.on('GET', '/.well-known/openid-configuration', { status: 404 });
    await expect(discoverAuthorizationServer(http, stub.url, later)).rejects.toThrow(
      /publishes no metadata \(tried .*oauth-authorization-server, .*openid-configuration\)/,
    );
    stub.verify();
  });

  it('other failures are errors that name the status; the issuer must match exactly (RFC 8414 §3.3)', async () => {
    stub.on('GET', '/.well-known/oauth-authorization-server', { status: 500, body: 'boom' });
    await expect(discoverAuthorizationServer(http, stub.url, r2025)).rejects.toThrow(/HTTP 500/);
    const meta = (issuer: string) => ({ body: { issuer, authorization_endpoint: 'https://a.example/a', token_endpoint: 'https://a.example/t' } });
    stub.on('GET', '/.well-known/oauth-authorization-server', meta('https://evil.example.com'));
    await expect(discoverAuthorizationServer(http, stub.url, r2025)).rejects.toThrow(/issuer is "https:\/\/evil\.example\.com"/);
    stub.on('GET', '/.well-known/oauth-authorization-server', meta(`${stub.url}/`));
    await expect(discoverAuthorizationServer(http, stub.url, later)).rejects.toThrow(/: issuer is ".*\/", expected/);
  });

  it('malformed metadata: one line naming the URL and the field', async () => {
    stub.on('GET', '/.well-known/oauth-authorization-server', { body: { issuer: stub.url, token_endpoint: 'https://a.example/t' } });
    await expect(discoverAuthorizationServer(http, stub.url, later)).rejects.toThrow(
      new RegExp(`^authorization server metadata at ${stub.url}/.well-known/oauth-authorization-server: authorization_endpoint is missing$`),
    );
    stub.on('GET', '/.well-known/oauth-authorization-server', {
      body: {
        issuer: stub.url,
        authorization_endpoint: 'https://a.example/a',
        token_endpoint: 'https://a.example/t',
        code_challenge_methods_supported: 'S256',
      },
    });
    await expect(discoverAuthorizationServer(http, stub.url, later)).rejects.toThrow(/code_challenge_methods_supported is not an array of strings/);
    stub.on('GET', '/.well-known/oauth-authorization-server', { body: '[1,2]', headers: { 'content-type': 'application/json' } });
    await expect(discoverAuthorizationServer(http, stub.url, later)).rejects.toThrow(/is not a JSON object/);
  });

  it('well-known URLs and the order of the later revisions', () => {
    expect(wellKnownUrl('https://as.example.com/tenant1', 'oauth-authorization-server')).toBe(
      'https://as.example.com/.well-known/oauth-authorization-server/tenant1',
    );
    expect(appendedWellKnownUrl('https://as.example.com/tenant1/', 'openid-configuration')).toBe(
      'https://as.example.com/tenant1/.well-known/openid-configuration',
    );
    expect(wellKnownUrl('https://as.example.com', 'oauth-authorization-server')).toBe('https://as.example.com/.well-known/oauth-authorization-server');
    expect(authorizationServerMetadataUrls('https://as.example.com/tenant1').map((u) => u.url)).toEqual([
      'https://as.example.com/.well-known/oauth-authorization-server/tenant1',
      'https://as.example.com/.well-known/openid-configuration/tenant1',
      'https://as.example.com/tenant1/.well-known/openid-configuration',
    ]);
    expect(authorizationServerMetadataUrls('https://as.example.com').map((u) => u.url)).toEqual([
      'https://as.example.com/.well-known/oauth-authorization-server',
      'https://as.example.com/.well-known/openid-configuration',
    ]);
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
    const ok = await processProtectedResourceResponse(await protectedResourceRequest(http, `${stub.url}/prm`, '2025-11-25'), `${stub.url}/mcp`);
    expect(ok).toEqual({ resource: `${stub.url}/mcp`, authorizationServers: ['https://as.example.com'], scopes: undefined, url: `${stub.url}/prm` });
    await expect(processProtectedResourceResponse(await protectedResourceRequest(http, `${stub.url}/prm2`, '2025-11-25'), `${stub.url}/mcp`)).rejects.toThrow(
      /resource is https:\/\/other\.example\.com\/mcp, which is not http/,
    );
  });
});

describe('token endpoint', () => {
  const o = { issuer: 'https://as.example.com', now: 0 };
  const grant = { grant_type: 'authorization_code', code: 'c', redirect_uri: 'http://127.0.0.1:1/callback', code_verifier: 'v' };

  it('private_key_jwt without its key: client_required with a remedy, no CLI flag in the message', async () => {
    const err = (await tokenRequest(http, `${stub.url}/token`, grant, { clientId: 'k', authMethod: 'private_key_jwt', origin: 'provided' }, o).catch(
      (e: unknown) => e,
    )) as LanyardError;
    expect([err.code, err.service, err.remedy, err.message]).toEqual([
      'client_required',
      'protocol',
      { kind: 'client-id', confidential: true },
      'this client authenticates with a private key, but none is available',
    ]);
  });

  it('none: client_id in the form; client_secret_post: the secret too; client_secret_basic: an encoded Basic header', async () => {
    stub.on('POST', '/token', { body: { access_token: 'at', token_type: 'bearer', expires_in: 60, refresh_token: 'rt', scope: 's' } }, 3);
    const t = await processTokenResponse(
      await tokenRequest(http, `${stub.url}/token`, grant, { clientId: 'pub', authMethod: 'none', origin: 'dynamic' }, o),
      clock.now(),
    );
    expect(t).toEqual({ accessToken: 'at', tokenType: 'Bearer', expiresAt: clock.now() + 60_000, refreshToken: 'rt', scope: 's' });
    await tokenRequest(http, `${stub.url}/token`, grant, { clientId: 'conf', clientSecret: 'p@ss', authMethod: 'client_secret_post', origin: 'provided' }, o);
    await tokenRequest(http, `${stub.url}/token`, grant, { clientId: 'a:b', clientSecret: 'p@ss:x', authMethod: 'client_secret_basic', origin: 'provided' }, o);
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
      await tokenRequest(http, `${stub.url}/token`, grant, { clientId: 'x', authMethod: 'none', origin: 'dynamic' }, o),
      0,
    ).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OAuthError);
    expect(e).toMatchObject({ error: 'invalid_grant', errorDescription: 'used', status: 400 });
    await expect(
      processTokenResponse(await tokenRequest(http, `${stub.url}/token`, grant, { clientId: 'x', authMethod: 'none', origin: 'dynamic' }, o), 0),
    ).rejects.toThrow(/token_type/);
  });
});

describe('JSON-RPC over HTTP', () => {
  it('sends both Accept types, the session id and the version header; parses event streams field by field', async () => {
    const events = [
      'id: e1\nretry: 250\ndata: \n\n',
      ': a comment\nevent: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\n',
      'data: {"jsonrpc":"2.0","id":"x","method":"elicitation/create","params":{}}\r\n\r\n',
      'id: e2\ndata: {"jsonrpc":"2.0",\ndata: "id":"7","result":{"ok":true}}\n\n',
    ].join('');
    stub.on('POST', '/mcp', { headers: { 'content-type': 'text/event-stream', 'mcp-session-id': 'sess-1' }, body: events });
    const res = await rpcPost(
      http,
      `${stub.url}/mcp`,
      { jsonrpc: '2.0', id: '7', method: 'ping' },
      { accessToken: 'tok', sessionId: 'sess-0', revision: '2025-06-18' },
    );
    expect(sessionIdOf(res)).toBe('sess-1');
    const got = [];
    for await (const ev of sseEvents(res)) got.push(ev);
    expect(got.map((e) => [e.id, e.retry])).toEqual([
      ['e1', 250],
      [undefined, undefined],
      [undefined, undefined],
      ['e2', undefined],
    ]);
    expect(got.flatMap((e) => (e.data ? classify(JSON.parse(e.data)).map((m) => m.kind) : []))).toEqual(['notification', 'request', 'response']);
    const req = stub.requests[0]!;
    expect(req.headers.accept).toBe('application/json, text/event-stream');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['mcp-session-id']).toBe('sess-0');
    expect(req.headers['mcp-protocol-version']).toBe('2025-06-18');
    expect(req.headers['ctx-protocol-version']).toBeUndefined();
    expect(req.headers.authorization).toBe('Bearer tok');
    expect(req.url.search).toBe('');
  });

  it('2025-03-26 sessions carry the spec header; JSON bodies (and batches) are classified; garbage is a clear error', async () => {
    stub.on('POST', '/mcp', {
      body: [
        { jsonrpc: '2.0', id: 1, result: 'a' },
        { jsonrpc: '2.0', id: 2, result: 'b' },
      ],
    });
    stub.on('POST', '/mcp', { body: 'not json', headers: { 'content-type': 'application/json' } });
    const res = await rpcPost(http, `${stub.url}/mcp`, { jsonrpc: '2.0', id: 2, method: 'm' }, { revision: '2025-03-26' });
    expect((await jsonMessages(res)).map((m) => m.kind)).toEqual(['response', 'response']);
    expect(stub.requests[0]!.headers['ctx-protocol-version']).toBe('2025-03-26');
    await expect(jsonMessages(await rpcPost(http, `${stub.url}/mcp`, { jsonrpc: '2.0', id: 3, method: 'm' }, {}))).rejects.toThrow(/body that is not JSON/);
  });
});

/** Verifies a proof with the key its header carries (as a server does) and returns its claims. */
async function verifyProof(proof: string) {
  const h = decodeProtectedHeader(proof);
  expect(h.typ).toBe('dpop+jwt');
  expect(h.jwk).toBeDefined();
  expect((h.jwk as Record<string, unknown>).d).toBeUndefined();
  const { payload } = await jwtVerify(proof, await importJWK(h.jwk as JWK, h.alg));
  return { header: h, payload };
}

const client = { clientId: 'c1', authMethod: 'none' as const, origin: 'provided' as const };

describe('DPoP proofs (RFC 9449 §4.2)', () => {
  it('signs htm, htu without query or fragment, the clock’s iat, a fresh jti and ath of the token', async () => {
    const key = await generateDpopKey('ES256');
    const prover = new DpopProver(key, () => clock.now());
    const a = await verifyProof(await prover.proof('post', 'https://rs.example/mcp?x=1#f', 'tok-1'));
    const b = await verifyProof(await prover.proof('GET', 'https://rs.example/mcp'));
    expect(a.header.alg).toBe('ES256');
    expect(a.payload).toMatchObject({ htm: 'POST', htu: 'https://rs.example/mcp', iat: Math.floor(clock.now() / 1000) });
    expect(a.payload.ath).toBe(createHash('sha256').update('tok-1').digest('base64url'));
    expect(b.payload.ath).toBeUndefined();
    expect(a.payload.jti).not.toBe(b.payload.jti);
    expect(await calculateJwkThumbprint(a.header.jwk as JWK)).toBe(await calculateJwkThumbprint(publicJwk(key) as JWK));
    expect(htuOf('https://h.example:8443/p/q?z')).toBe('https://h.example:8443/p/q');
  });

  it('chooses an advertised algorithm it signs with; ES256 when none is listed; none when only foreign ones are', async () => {
    expect(chooseDpopAlg(['RS256', 'ES256'])).toBe('ES256');
    expect(chooseDpopAlg(['PS512', 'EdDSA'])).toBe('EdDSA');
    expect(chooseDpopAlg(undefined)).toBe('ES256');
    expect(chooseDpopAlg(['HS256'])).toBeUndefined();
    const ed = await verifyProof(await new DpopProver(await generateDpopKey('EdDSA'), () => clock.now()).proof('POST', 'https://a.example/t'));
    expect(ed.header.alg).toBe('EdDSA');
  });
});

describe('DPoP at the token endpoint', () => {
  it('answers use_dpop_nonce once with a proof carrying the nonce, and takes a DPoP token', async () => {
    const proofs: string[] = [];
    stub.on('POST', '/token', (req) => {
      proofs.push(String(req.headers.dpop));
      return { status: 400, headers: { 'dpop-nonce': 'n-1' }, body: { error: 'use_dpop_nonce' } };
    });
    stub.on('POST', '/token', (req) => {
      proofs.push(String(req.headers.dpop));
      return { headers: { 'dpop-nonce': 'n-2' }, body: { access_token: 'at', token_type: 'DPoP', expires_in: 60 } };
    });
    const prover = new DpopProver(await generateDpopKey('ES256'), () => clock.now());
    const res = await tokenRequest(http, `${stub.url}/token`, { grant_type: 'client_credentials' }, client, {
      issuer: stub.url,
      now: clock.now(),
      dpop: prover,
    });
    const t = await processTokenResponse(res, clock.now(), true);
    expect(t).toMatchObject({ accessToken: 'at', tokenType: 'DPoP' });
    const [first, second] = await Promise.all(proofs.map(verifyProof));
    expect(first!.payload.nonce).toBeUndefined();
    expect(second!.payload).toMatchObject({ nonce: 'n-1', htm: 'POST', htu: `${stub.url}/token` });
    expect(first!.payload.jti).not.toBe(second!.payload.jti);
    // The nonce of the last answer goes with the next proof to that server.
    expect((await verifyProof(await prover.proof('POST', `${stub.url}/token`))).payload.nonce).toBe('n-2');
  });

  it('does not retry another 400 that brings a nonce, and its error stays readable', async () => {
    stub.on('POST', '/token', { status: 400, headers: { 'dpop-nonce': 'n-1' }, body: { error: 'invalid_grant', error_description: 'gone' } });
    const prover = new DpopProver(await generateDpopKey('ES256'), () => clock.now());
    const res = await tokenRequest(http, `${stub.url}/token`, { grant_type: 'refresh_token', refresh_token: 'r' }, client, {
      issuer: stub.url,
      now: clock.now(),
      dpop: prover,
    });
    const err = await processTokenResponse(res, clock.now(), true).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OAuthError);
    expect((err as OAuthError).error).toBe('invalid_grant');
    expect(stub.requests).toHaveLength(1);
  });

  it('refuses a DPoP token type it did not ask for', async () => {
    stub.on('POST', '/token', { body: { access_token: 'at', token_type: 'DPoP' } });
    const res = await tokenRequest(http, `${stub.url}/token`, { grant_type: 'client_credentials' }, client, { issuer: stub.url, now: clock.now() });
    expect(stub.requests[0]!.headers.dpop).toBeUndefined();
    await expect(processTokenResponse(res, clock.now())).rejects.toThrow(/unsupported token_type DPoP/);
  });
});

describe('DPoP at the resource server', () => {
  it('parses the DPoP challenge; a request carries Authorization: DPoP and a proof bound to the token', async () => {
    expect(parseBearerChallenge('DPoP error="use_dpop_nonce", resource_metadata="https://x/.well-known/r"')).toMatchObject({
      error: 'use_dpop_nonce',
      resourceMetadata: 'https://x/.well-known/r',
    });
    stub.on('POST', '/mcp', { body: { jsonrpc: '2.0', id: 1, result: {} } });
    const dpop = new DpopProver(await generateDpopKey('ES256'), () => clock.now());
    const res = await rpcPost(http, `${stub.url}/mcp`, { jsonrpc: '2.0', id: 1, method: 'ping' }, { accessToken: 'at-9', dpop });
    await res.dump();
    const req = stub.requests[0]!;
    expect(req.headers.authorization).toBe('DPoP at-9');
    const { payload } = await verifyProof(String(req.headers.dpop));
    expect(payload).toMatchObject({ htm: 'POST', htu: `${stub.url}/mcp`, ath: createHash('sha256').update('at-9').digest('base64url') });
  });

  it('a resumed stream that is redirected within its origin proves each exchange for its own URL, with a new jti', async () => {
    stub.on('GET', '/mcp', { status: 307, headers: { location: '/mcp/stream?resume=1' } });
    stub.on('GET', '/mcp/stream', { headers: { 'content-type': 'text/event-stream' }, body: '' });
    const dpop = new DpopProver(await generateDpopKey('ES256'), () => clock.now());
    await (await rpcGet(http, `${stub.url}/mcp`, { accessToken: 'at-9', dpop }, 'e1')).dump();
    const proofs = await Promise.all(stub.requests.map(async (r) => (await verifyProof(String(r.headers.dpop))).payload));
    expect(stub.requests.map((r) => r.headers.authorization)).toEqual(['DPoP at-9', 'DPoP at-9']);
    expect(proofs.map((p) => [p.htm, p.htu])).toEqual([
      ['GET', `${stub.url}/mcp`],
      ['GET', `${stub.url}/mcp/stream`],
    ]);
    expect(proofs[0]!.jti).not.toBe(proofs[1]!.jti);
  });
});
