import { describe, expect, it } from 'vitest';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { FakeClock } from '../../../fakes/clock.js';
import { MemoryCredentialStore } from '../../../fakes/credential-store.js';
import { buildAuthorizationUrl, createPkce, processDiscovery, processIdToken } from '../../../../src/core/echo/signin.js';
import { readCachedToken, writeCachedToken, idTokenAccount } from '../../../../src/core/echo/credentials.js';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const clock = new FakeClock(Date.UTC(2026, 5, 1, 10, 0, 0));
const ISS = 'http://127.0.0.1:4000/idp';
const sign = (claims: Record<string, unknown>) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k' }).sign(privateKey);
const nowSec = () => Math.floor(clock.now() / 1000);

describe('PKCE and the authorization request', () => {
  it('derives an S256 challenge from a 43-character verifier', () => {
    const { verifier, challenge } = createPkce((n) => new Uint8Array(n).fill(7));
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(challenge).toBe(createHash('sha256').update(verifier).digest('base64url'));
  });

  it('asks for code, openid email, S256, state and nonce', () => {
    const url = new URL(
      buildAuthorizationUrl(
        { issuer: ISS, authorization_endpoint: `${ISS}/authorize`, token_endpoint: `${ISS}/token` },
        {
          clientId: 'cli',
          redirectUri: 'http://127.0.0.1:5555/callback',
          scopes: ['openid', 'email'],
          state: 's1',
          nonce: 'n1',
          codeChallenge: 'c'.repeat(43),
        },
      ),
    );
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'cli',
      redirect_uri: 'http://127.0.0.1:5555/callback',
      response_type: 'code',
      scope: 'openid email',
      state: 's1',
      nonce: 'n1',
      code_challenge: 'c'.repeat(43),
      code_challenge_method: 'S256',
    });
  });

  it('refuses a discovery document of another issuer', () => {
    expect(() => processDiscovery({ issuer: 'http://evil', authorization_endpoint: 'a', token_endpoint: 'b' }, ISS)).toThrow(/names issuer http:\/\/evil/);
  });
});

describe('ID token checks', () => {
  const good = { iss: ISS, aud: 'cli', sub: '42', email: 'ada@x.test', nonce: 'n1' };
  it('accepts a matching token and keeps its expiry', async () => {
    const t = await sign({ ...good, iat: nowSec(), exp: nowSec() + 3600 });
    expect(processIdToken(t, { issuer: ISS, clientId: 'cli', nonce: 'n1', nowMs: clock.now() })).toMatchObject({
      email: 'ada@x.test',
      subject: '42',
      expiresAt: (nowSec() + 3600) * 1000,
    });
  });
  it('refuses another issuer, audience, nonce, or an expired token', async () => {
    const check = async (over: Record<string, unknown>) =>
      processIdToken(await sign({ ...good, exp: nowSec() + 60, ...over }), { issuer: ISS, clientId: 'cli', nonce: 'n1', nowMs: clock.now() });
    await expect(check({ iss: 'http://other' })).rejects.toThrow(/issuer is http:\/\/other/);
    await expect(check({ aud: ['x', 'y'] })).rejects.toThrow(/audience does not include cli/);
    await expect(check({ nonce: 'n2' })).rejects.toThrow(/nonce/);
    await expect(check({ exp: nowSec() - 1 })).rejects.toThrow(/expired/);
  });
});

describe('identity token cache', () => {
  it('serves a cached token until a minute before it expires, only for the same issuer and client', async () => {
    const store = new MemoryCredentialStore();
    const account = idTokenAccount(ISS);
    expect(account).toBe('echo:idtoken:127.0.0.1:4000');
    await writeCachedToken(store, account, { token: 't', expiresAt: clock.now() + 10 * 60_000, issuer: ISS, clientId: 'cli' });
    const read = () => readCachedToken(store, account, { issuer: ISS, clientId: 'cli', nowMs: clock.now() });
    expect((await read())?.token).toBe('t');
    expect(await readCachedToken(store, account, { issuer: ISS, clientId: 'other', nowMs: clock.now() })).toBeUndefined();
    clock.advance(8 * 60_000);
    expect((await read())?.token).toBe('t');
    clock.advance(61_000);
    expect(await read()).toBeUndefined();
  });
});
