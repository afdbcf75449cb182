import { describe, expect, it } from 'vitest';
import {
  buildAuthorizeUrl,
  EXPIRY_SKEW_MS,
  healthAccount,
  loadHealthToken,
  processImplicitResponse,
  resolveHealthToken,
  saveHealthToken,
} from '../../../../src/core/health/token.js';
import { AuthRequiredError, OAuthError, ValidationError } from '../../../../src/core/errors.js';
import { FakeClock } from '../../../fakes/clock.js';
import { MemoryCredentialStore } from '../../../fakes/credential-store.js';

describe('buildAuthorizeUrl', () => {
  it('asks for a token in the fragment with every implicit-flow parameter', () => {
    const u = new URL(
      buildAuthorizeUrl({ authUrl: 'https://login.example.com/', clientId: 'cid', redirectUri: 'http://127.0.0.1:5555/callback', state: 'st', nonce: 'no' }),
    );
    expect(u.origin + u.pathname).toBe('https://login.example.com/common/oauth2/authorize');
    expect(Object.fromEntries(u.searchParams)).toEqual({
      response_type: 'token',
      client_id: 'cid',
      redirect_uri: 'http://127.0.0.1:5555/callback',
      scope: 'user_impersonation',
      state: 'st',
      nonce: 'no',
    });
  });
  it('refuses a plain-HTTP sign-in host that is not loopback', () => {
    expect(() =>
      buildAuthorizeUrl({ authUrl: 'http://login.example.com', clientId: 'c', redirectUri: 'http://127.0.0.1:1/cb', state: 's', nonce: 'n' }),
    ).toThrow(ValidationError);
  });
});

describe('processImplicitResponse', () => {
  const now = Date.UTC(2026, 10, 22, 12);
  it('computes the expiry from expires_in', () => {
    const rec = processImplicitResponse(new URLSearchParams('access_token=abc&token_type=Bearer&expires_in=3599&state=s&scope=user_impersonation'), now, 'cid');
    expect(rec).toEqual({
      access_token: 'abc',
      token_type: 'Bearer',
      expires_at: now + 3_599_000,
      obtained_at: now,
      scope: 'user_impersonation',
      client_id: 'cid',
    });
  });
  it('refuses missing tokens, other token types and bad expiry', () => {
    expect(() => processImplicitResponse(new URLSearchParams('token_type=Bearer&expires_in=1'), now)).toThrow(OAuthError);
    expect(() => processImplicitResponse(new URLSearchParams('access_token=a&token_type=mac&expires_in=1'), now)).toThrow(/token_type/);
    expect(() => processImplicitResponse(new URLSearchParams('access_token=a&token_type=bearer&expires_in=soon'), now)).toThrow(/expires_in/);
    expect(() => processImplicitResponse(new URLSearchParams('error=access_denied&error_description=no'), now)).toThrow('access_denied: no');
  });
});

describe('resolveHealthToken', () => {
  const authUrl = 'http://127.0.0.1:4000';
  it('the environment wins over the store', async () => {
    const store = new MemoryCredentialStore();
    await saveHealthToken(store, authUrl, { access_token: 'stored', token_type: 'Bearer', expires_at: Date.now() + 1e6, obtained_at: 0 });
    expect(await resolveHealthToken({ envToken: 'from-env', stores: async () => [store], authUrl, nowMs: 0 })).toEqual({
      token: 'from-env',
      source: 'environment',
    });
  });
  it('uses the stored token until it expires (with skew), then asks for a new sign-in', async () => {
    const clock = new FakeClock();
    const store = new MemoryCredentialStore();
    const expiresAt = clock.now() + 3600_000;
    await saveHealthToken(store, authUrl, { access_token: 'stored', token_type: 'Bearer', expires_at: expiresAt, obtained_at: clock.now() });
    expect(store.data.has(healthAccount(authUrl))).toBe(true);
    expect((await resolveHealthToken({ stores: async () => [store], authUrl, nowMs: clock.now() })).token).toBe('stored');
    clock.advance(3600_000 - EXPIRY_SKEW_MS);
    const err = await resolveHealthToken({ stores: async () => [store], authUrl, nowMs: clock.now() }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuthRequiredError);
    expect((err as AuthRequiredError).message).toMatch(/expired/);
    expect((err as AuthRequiredError).hint).toBe('the implicit flow gives no refresh token');
    expect((err as AuthRequiredError).remedy).toEqual({ kind: 'sign-in', service: 'health', again: true });
  });
  it('looks through the stores in order; none → exit-4 error', async () => {
    const a = new MemoryCredentialStore();
    const b = new MemoryCredentialStore();
    await b.set(healthAccount(authUrl), 'plain-token');
    expect((await resolveHealthToken({ stores: async () => [a, b], authUrl, nowMs: 0 })).token).toBe('plain-token');
    expect(await loadHealthToken(a, authUrl)).toBeUndefined();
    await expect(resolveHealthToken({ stores: async () => [a], authUrl, nowMs: 0 })).rejects.toThrow(AuthRequiredError);
    await expect(resolveHealthToken({ nowMs: 0 })).rejects.toThrow(/not signed in/);
  });
});
