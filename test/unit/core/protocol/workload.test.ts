/**
 * Workload identity tokens (RFC 7523 JWT-bearer grant) are renewed the way
 * the cloud SDKs renew theirs: the stored record remembers where the
 * platform's JWT comes from (never the JWT), and when the access token
 * expires the JWT is read again there and the grant made again — under the
 * server's lock, in `protocol request`'s session and in the registry's
 * provider alike, never by a browser sign-in.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CredentialLock } from '../../../../src/core/credentials/lock.js';
import { HttpClient } from '../../../../src/core/http/client.js';
import { protocolAuth } from '../../../../src/core/protocol/credential.js';
import { authorize, currentTokens, type ProtocolAuthDeps, renewable } from '../../../../src/core/protocol/flow.js';
import { callProtocolServer } from '../../../../src/core/protocol/session.js';
import { ProtocolCredentials, type StoredTokens, type WorkloadTokenSource } from '../../../../src/core/protocol/store.js';
import { FakeClock } from '../../../fakes/clock.js';
import { MemoryCredentialStore } from '../../../fakes/credential-store.js';
import { StubHttp } from '../../../fakes/stub-http.js';

let stub: StubHttp;
let http: HttpClient;
let clock: FakeClock;
let store: MemoryCredentialStore;
let creds: ProtocolCredentials;
/** What the platform's file holds now (the test rotates it); undefined: the file is gone. */
let platformJwt: string | undefined;
let reads: WorkloadTokenSource[];
let locks: string[];
let browser: string[];

const JWT_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const jwt = (n: number) => `eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJqb2ItJHtufSJ9.sig-${n}`;
const FROM: WorkloadTokenSource = { file: '/var/run/secrets/tokens/lanyard' };

beforeEach(async () => {
  stub = await StubHttp.start();
  clock = new FakeClock(Date.UTC(2026, 10, 22, 12));
  http = new HttpClient({ clock, userAgent: 'test', random: () => 0.5 });
  store = new MemoryCredentialStore();
  creds = new ProtocolCredentials(store);
  platformJwt = jwt(1);
  reads = [];
  locks = [];
  browser = [];
});
afterEach(async () => {
  await http.close();
  await stub.close();
});

const lock: CredentialLock = {
  async withLock(name, f) {
    locks.push(name);
    return f();
  },
};

function deps(extra: Partial<ProtocolAuthDeps> = {}): ProtocolAuthDeps {
  return {
    http,
    clock,
    lock,
    credentials: creds,
    loopbackTimeoutMs: 60_000,
    clientSecret: async () => undefined,
    async presentAuthorizationUrl(url) {
      browser.push(url);
      throw new Error('a workload never signs in with a browser');
    },
    async workloadToken(from) {
      reads.push(from);
      if (platformJwt === undefined) throw new Error(`cannot read ${'file' in from ? from.file : from.env}`);
      return platformJwt;
    },
    ...extra,
  };
}

const server = () => `${stub.url}/mcp`;

/** A workload's stored tokens (no refresh token), expiring in a minute, and its client. */
async function stored(over: Partial<StoredTokens> = {}): Promise<StoredTokens> {
  const t: StoredTokens = {
    server: server(),
    issuer: stub.url,
    tokenEndpoint: `${stub.url}/token`,
    grant: 'jwt_bearer',
    obtainedAt: clock.now(),
    accessToken: 'at-1',
    tokenType: 'Bearer',
    expiresAt: clock.now() + 60_000,
    scope: 'tools:read',
    resource: server(),
    workloadTokenFrom: FROM,
    ...over,
  };
  await creds.saveTokens(t);
  await creds.saveClient(stub.url, { clientId: 'wl-client', authMethod: 'none', origin: 'provided' });
  return t;
}

const grantOf = (i: number) => Object.fromEntries(new URLSearchParams(stub.requests[i]!.body));
const token = (n: number) => ({ body: { access_token: `at-${n}`, token_type: 'Bearer', expires_in: 3600 } });
/** The stored record as the store holds it (what a keychain entry or the 0600 file would). */
const raw = () => [...store.data.values()].join('\n');

describe('workload identity tokens', () => {
  it('the sign-in stores where the JWT came from, never the JWT', async () => {
    stub.on('GET', '/.well-known/oauth-authorization-server', { status: 404 });
    stub.on('POST', '/token', token(1));
    const t = await authorize(deps(), { serverUrl: server(), clientId: 'wl-client', workloadToken: jwt(1), workloadTokenFrom: FROM });
    expect(t).toMatchObject({ grant: 'jwt_bearer', workloadTokenFrom: FROM, accessToken: 'at-1' });
    expect(t.refreshToken).toBeUndefined();
    expect(grantOf(stub.requests.length - 1)).toMatchObject({ grant_type: JWT_GRANT, assertion: jwt(1), client_id: 'wl-client' });
    expect(await creds.tokens(server())).toMatchObject({ workloadTokenFrom: FROM });
    expect(raw()).not.toContain(jwt(1));
    expect(renewable(t)).toBe(true);
  });

  it('when the access token expires the JWT is read again (the platform rotated it) and the grant made again, under the lock', async () => {
    await stored();
    platformJwt = jwt(2);
    expect((await currentTokens(deps(), server()))?.accessToken).toBe('at-1');
    expect(reads).toEqual([]);
    clock.advance(61_000);
    stub.on('POST', '/token', token(2));
    const t = await currentTokens(deps(), server());
    expect(t).toMatchObject({ accessToken: 'at-2', workloadTokenFrom: FROM, expiresAt: clock.now() + 3_600_000 });
    expect(reads).toEqual([FROM]);
    expect(grantOf(0)).toEqual({ grant_type: JWT_GRANT, assertion: jwt(2), scope: 'tools:read', resource: server(), client_id: 'wl-client' });
    expect(locks).toEqual([`protocol-${server()}`]);
    expect(await creds.tokens(server())).toMatchObject({ accessToken: 'at-2', workloadTokenFrom: FROM });
    expect(raw()).not.toContain(jwt(2));
  });

  it('the registry provider (api, exec) renews at once; after a 401 it renews with the JWT as it is then', async () => {
    await stored({ expiresAt: clock.now() - 1 });
    stub.on('POST', '/token', token(2));
    stub.on('GET', '/x', { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' }, body: {} });
    stub.on('POST', '/token', token(3));
    stub.on('GET', '/x', { body: {} });
    const auth = await protocolAuth(deps(), server());
    expect(await auth.credential()).toEqual({ scheme: 'bearer', token: 'at-2' });
    platformJwt = jwt(3);
    await http.request({ url: `${stub.url}/x`, auth });
    expect(stub.requests.map((r) => r.path)).toEqual(['/token', '/x', '/token', '/x']);
    expect([grantOf(0).assertion, grantOf(2).assertion]).toEqual([jwt(1), jwt(3)]);
    expect(stub.requests[3]!.headers.authorization).toBe('Bearer at-3');
  });

  it("protocol request's session renews after invalid_token instead of signing in with the browser", async () => {
    await stored();
    stub.on('POST', '/mcp', { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' }, body: {} });
    stub.on('POST', '/token', token(2));
    stub.on('POST', '/mcp', (req) => ({ body: { jsonrpc: '2.0', id: JSON.parse(req.body).id, result: {} } }));
    platformJwt = jwt(2);
    const r = await callProtocolServer(deps(), { serverUrl: server(), method: 'ping', clientInfo: { name: 't', version: '0' }, revision: '2026-07-28' });
    expect(r).toMatchObject({ authorized: true, response: { result: {} } });
    expect(browser).toEqual([]);
    expect(stub.requests.map((q) => q.path)).toEqual(['/mcp', '/token', '/mcp']);
    expect(grantOf(1).assertion).toBe(jwt(2));
    expect(stub.requests[2]!.headers.authorization).toBe('Bearer at-2');
  });

  it('a JWT that cannot be read again is the error, as it is: no token request, no browser, the record kept', async () => {
    await stored({ expiresAt: clock.now() - 1 });
    platformJwt = undefined;
    await expect(currentTokens(deps(), server())).rejects.toThrow(/cannot read \/var\/run\/secrets\/tokens\/lanyard/);
    expect(stub.requests).toEqual([]);
    expect(browser).toEqual([]);
    expect(await creds.tokens(server())).toMatchObject({ accessToken: 'at-1' });
  });

  it('a refusal of the new JWT (invalid_grant) is reported as it is, not answered with a browser sign-in', async () => {
    await stored({ expiresAt: clock.now() - 1 });
    stub.on('POST', '/token', { status: 400, body: { error: 'invalid_grant', error_description: 'the assertion expired' } });
    await expect(currentTokens(deps(), server())).rejects.toMatchObject({ error: 'invalid_grant' });
    expect(browser).toEqual([]);
  });

  it('tokens of a workload signed in before (no source stored), or without a reader, are not renewed: as before', async () => {
    await stored({ expiresAt: clock.now() - 1, workloadTokenFrom: undefined });
    expect(await currentTokens(deps(), server())).toBeUndefined();
    await stored({ expiresAt: clock.now() - 1 });
    expect(await currentTokens(deps({ workloadToken: undefined }), server())).toBeUndefined();
    expect(stub.requests).toEqual([]);
  });
});
