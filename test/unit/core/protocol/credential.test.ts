/**
 * The protocol service's credential provider (`lanyard api --service
 * protocol`, `lanyard doctor`) with a DPoP-bound stored token (RFC 9449):
 * every exchange the HTTP client sends carries a proof of its own, checked
 * here with jose (not with Lanyard's signer): htm and htu of that exchange,
 * ath of the token, a jti never seen before, the server's nonce.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { EmbeddedJWK, jwtVerify } from 'jose';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../../src/core/http/client.js';
import { protocolAuth } from '../../../../src/core/protocol/credential.js';
import { generateDpopKey, type DpopKey } from '../../../../src/core/protocol/dpop.js';
import type { ProtocolAuthDeps } from '../../../../src/core/protocol/flow.js';
import { ProtocolCredentials, type StoredTokens } from '../../../../src/core/protocol/store.js';
import { FakeClock } from '../../../fakes/clock.js';
import { MemoryCredentialStore } from '../../../fakes/credential-store.js';
import { type RecordedRequest, StubHttp } from '../../../fakes/stub-http.js';

let stub: StubHttp;
let http: HttpClient;
let clock: FakeClock;
let creds: ProtocolCredentials;
let key: DpopKey;

beforeEach(async () => {
  stub = await StubHttp.start();
  clock = new FakeClock(Date.UTC(2026, 10, 22, 12));
  http = new HttpClient({ clock, userAgent: 'test', random: () => 0.5 });
  creds = new ProtocolCredentials(new MemoryCredentialStore());
  key ??= await generateDpopKey('ES256');
});
afterEach(async () => {
  await http.close();
  await stub.close();
});

const deps = (): ProtocolAuthDeps => ({
  http,
  clock,
  credentials: creds,
  loopbackTimeoutMs: 60_000,
  clientSecret: async () => undefined,
  presentAuthorizationUrl: async () => {
    throw new Error('no sign-in from the provider');
  },
});

async function stored(over: Partial<StoredTokens> = {}): Promise<StoredTokens> {
  const t: StoredTokens = {
    server: `${stub.url}/mcp`,
    issuer: stub.url,
    tokenEndpoint: `${stub.url}/token`,
    grant: 'authorization_code',
    obtainedAt: clock.now(),
    accessToken: 'at-1',
    tokenType: 'DPoP',
    expiresAt: clock.now() + 3_600_000,
    refreshToken: 'rt-1',
    dpopKey: key,
    ...over,
  };
  await creds.saveTokens(t);
  await creds.saveClient(stub.url, { clientId: 'dyn-1', authMethod: 'none', origin: 'dynamic' });
  return t;
}

const ath = (token: string) => createHash('sha256').update(token).digest('base64url');

/** The proof a request carried, verified against the key in its own header; its claims. */
async function proofOf(req: RecordedRequest): Promise<Record<string, unknown>> {
  const proof = req.headers.dpop;
  expect(typeof proof).toBe('string');
  const { payload, protectedHeader } = await jwtVerify(String(proof), EmbeddedJWK, { typ: 'dpop+jwt', currentDate: new Date(clock.now()) });
  expect(protectedHeader.alg).toBe('ES256');
  return payload as Record<string, unknown>;
}

const challenge = (error: string) => ({ 'www-authenticate': `DPoP error="${error}", algs="ES256"` });

describe('protocolAuth with a DPoP-bound token', () => {
  it('each request gets a fresh proof of its own method and URL (no query) with the ath of the token', async () => {
    await stored();
    stub.on('GET', '/items', { body: [] });
    stub.on('POST', '/mcp', { body: {} });
    const auth = await protocolAuth(deps(), `${stub.url}/mcp`);
    await http.request({ url: `${stub.url}/items?page=2#x`, auth });
    await http.request({ method: 'POST', url: `${stub.url}/mcp`, json: { jsonrpc: '2.0', id: 1, method: 'ping' }, auth });
    const [a, b] = stub.requests;
    expect([a!.headers.authorization, b!.headers.authorization]).toEqual(['DPoP at-1', 'DPoP at-1']);
    const pa = await proofOf(a!);
    const pb = await proofOf(b!);
    expect(pa).toMatchObject({ htm: 'GET', htu: `${stub.url}/items`, ath: ath('at-1'), iat: Math.floor(clock.now() / 1000) });
    expect(pb).toMatchObject({ htm: 'POST', htu: `${stub.url}/mcp`, ath: ath('at-1') });
    expect(pa.jti).toEqual(expect.any(String));
    expect(pa.jti).not.toBe(pb.jti);
    expect(pa.nonce).toBeUndefined();
  });

  it("a use_dpop_nonce 401 is sent again with the server's nonce, without a refresh; later requests carry it at once", async () => {
    await stored();
    stub.on('POST', '/mcp', { status: 401, headers: { ...challenge('use_dpop_nonce'), 'dpop-nonce': 'n-1' }, body: { error: 'use_dpop_nonce' } });
    stub.on('POST', '/mcp', { body: { ok: 1 } }, 2);
    const auth = await protocolAuth(deps(), `${stub.url}/mcp`);
    const send = () => http.request({ method: 'POST', url: `${stub.url}/mcp`, json: {}, auth });
    expect(await (await send()).json()).toEqual({ ok: 1 });
    expect(await (await send()).json()).toEqual({ ok: 1 });
    const proofs = await Promise.all(stub.requests.map(proofOf));
    expect(proofs.map((p) => p.nonce)).toEqual([undefined, 'n-1', 'n-1']);
    expect(new Set(proofs.map((p) => p.jti)).size).toBe(3);
    expect(stub.requests.map((r) => r.path)).toEqual(['/mcp', '/mcp', '/mcp']); // no token request
  });

  it('a nonce handed out with a 200 is used by the next proof; a nonce 401 (returned, okStatus) is answered too', async () => {
    await stored();
    stub.on('GET', '/a', { headers: { 'dpop-nonce': 'n-1' }, body: {} });
    stub.on('GET', '/a', { status: 401, headers: { ...challenge('use_dpop_nonce'), 'dpop-nonce': 'n-2' }, body: {} });
    stub.on('GET', '/a', { body: {} });
    const auth = await protocolAuth(deps(), `${stub.url}/mcp`);
    await http.request({ url: `${stub.url}/a`, auth });
    const res = await http.request({ url: `${stub.url}/a`, auth, okStatus: (s) => s === 200 || s === 401 });
    expect(res.status).toBe(200);
    expect((await Promise.all(stub.requests.map(proofOf))).map((p) => p.nonce)).toEqual([undefined, 'n-1', 'n-2']);
  });

  it('a retry after a 503 and a followed redirect each carry a new proof, the redirect one for its own URL', async () => {
    await stored();
    stub.on('GET', '/a', { status: 503, body: {} });
    stub.on('GET', '/a', { status: 302, headers: { location: '/b?x=1' } });
    stub.on('GET', '/b', { body: {} });
    await http.request({ url: `${stub.url}/a`, auth: await protocolAuth(deps(), `${stub.url}/mcp`) });
    const proofs = await Promise.all(stub.requests.map(proofOf));
    expect(proofs.map((p) => p.htu)).toEqual([`${stub.url}/a`, `${stub.url}/a`, `${stub.url}/b`]);
    expect(new Set(proofs.map((p) => p.jti)).size).toBe(3);
  });

  it('an invalid_token 401 refreshes with a proof of the same key at the token endpoint; the retry proves the new token', async () => {
    await stored();
    stub.on('GET', '/a', { status: 401, headers: challenge('invalid_token'), body: { error: 'invalid_token' } });
    stub.on('POST', '/token', { body: { access_token: 'at-2', token_type: 'DPoP', expires_in: 3600, refresh_token: 'rt-2' } });
    stub.on('GET', '/a', { body: {} });
    await http.request({ url: `${stub.url}/a`, auth: await protocolAuth(deps(), `${stub.url}/mcp`) });
    const [, token, retried] = stub.requests;
    expect(new URLSearchParams(token!.body).get('refresh_token')).toBe('rt-1');
    expect(await proofOf(token!)).toMatchObject({ htm: 'POST', htu: `${stub.url}/token` });
    expect(retried!.headers.authorization).toBe('DPoP at-2');
    expect(await proofOf(retried!)).toMatchObject({ ath: ath('at-2') });
  });

  it('a revoked token: refreshed once after invalid_token, and the nonce challenge the retry meets is answered', async () => {
    await stored();
    stub.on('GET', '/a', { status: 401, headers: challenge('invalid_token'), body: {} });
    stub.on('POST', '/token', { body: { access_token: 'at-2', token_type: 'DPoP', expires_in: 3600 } });
    stub.on('GET', '/a', { status: 401, headers: { ...challenge('use_dpop_nonce'), 'dpop-nonce': 'n-1' }, body: {} });
    stub.on('GET', '/a', { body: {} });
    await http.request({ url: `${stub.url}/a`, auth: await protocolAuth(deps(), `${stub.url}/mcp`) });
    expect(stub.requests.map((r) => r.path)).toEqual(['/a', '/token', '/a', '/a']);
    const last = await proofOf(stub.requests[3]!);
    expect(last).toMatchObject({ nonce: 'n-1', ath: ath('at-2') });
  });

  it('a nonce challenge is answered once per exchange: a second one (a new nonce again) goes to the refresh, and then stands', async () => {
    await stored();
    const nonce = (n: string) => ({ status: 401, headers: { ...challenge('use_dpop_nonce'), 'dpop-nonce': n }, body: {} });
    stub.on('GET', '/a', nonce('n-1'));
    stub.on('GET', '/a', nonce('n-2'));
    stub.on('POST', '/token', { body: { access_token: 'at-2', token_type: 'DPoP', expires_in: 3600 } });
    stub.on('GET', '/a', nonce('n-3'));
    stub.on('GET', '/a', nonce('n-4'));
    const err = await http.request({ url: `${stub.url}/a`, auth: await protocolAuth(deps(), `${stub.url}/mcp`) }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 401 });
    expect(stub.requests.map((r) => r.path)).toEqual(['/a', '/a', '/token', '/a', '/a']);
  });

  it('a streamed body is not sent again for a nonce', async () => {
    await stored();
    stub.on('POST', '/a', { status: 401, headers: { ...challenge('use_dpop_nonce'), 'dpop-nonce': 'n-1' }, body: {} });
    const body = Readable.from([Buffer.from('{}')]);
    const err = await http
      .request({ method: 'POST', url: `${stub.url}/a`, body, auth: await protocolAuth(deps(), `${stub.url}/mcp`) })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 401 });
    expect(stub.requests).toHaveLength(1);
  });

  it('without a request the credential names the token without a proof, and the client never sends it as it is', async () => {
    await stored();
    const auth = await protocolAuth(deps(), `${stub.url}/mcp`);
    const c = await auth.credential();
    expect(c).toEqual({ scheme: 'dpop', token: 'at-1', proof: '' });
    await expect(http.request({ url: `${stub.url}/a`, credential: c })).rejects.toThrow(/proof of its request/);
    expect(stub.requests).toHaveLength(0);
    // Handed along with its provider (lanyard exec's precomputed credential), the proof is made at send time.
    stub.on('GET', '/a', { body: {} });
    await http.request({ url: `${stub.url}/a`, credential: c, auth });
    expect(await proofOf(stub.requests[0]!)).toMatchObject({ htu: `${stub.url}/a` });
  });

  it('a bearer token is still sent as Bearer, without a proof', async () => {
    await stored({ tokenType: 'Bearer', dpopKey: undefined });
    stub.on('GET', '/a', { body: {} });
    const auth = await protocolAuth(deps(), `${stub.url}/mcp`);
    await http.request({ url: `${stub.url}/a`, auth });
    expect(stub.requests[0]!.headers.authorization).toBe('Bearer at-1');
    expect(stub.requests[0]!.headers.dpop).toBeUndefined();
    expect(auth.perRequest).toBe(false);
  });
});
