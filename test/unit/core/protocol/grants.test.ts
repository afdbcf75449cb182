import { describe, expect, it } from 'vitest';
import { authorizationUrl, processAuthorizationResponse } from '../../../../src/core/protocol/grants/authorization-code.js';
import { renewable, renewalGrant, renewedRecord } from '../../../../src/core/protocol/grants/refresh.js';
import { ProtocolCredentials, type StoredTokens } from '../../../../src/core/protocol/store.js';
import { MemoryCredentialStore } from '../../../../src/core/credentials/memory-store.js';
import { LanyardError } from '../../../../src/core/errors.js';

const base: StoredTokens = {
  accessToken: 'a',
  tokenType: 'Bearer',
  server: 'https://mcp.example/mcp',
  issuer: 'https://as.example',
  tokenEndpoint: 'https://as.example/token',
  resource: 'https://mcp.example/mcp',
  scope: 'read',
  grant: 'authorization_code',
  obtainedAt: 0,
};

describe('the grants as plain-data steps', () => {
  it('authorizationUrl: PKCE S256, state, prompt=consent with offline_access; reserved parameters cannot be replaced', () => {
    const u = new URL(
      authorizationUrl({
        authorizationEndpoint: 'https://as.example/authorize?tenant=t1',
        clientId: 'cid',
        redirectUri: 'http://127.0.0.1:1234/callback',
        codeChallenge: 'chal',
        state: 'st',
        scope: 'read offline_access',
        resource: 'https://mcp.example/mcp',
        extraParams: { audience: 'x', state: 'evil', client_id: 'evil' },
      }),
    );
    const q = Object.fromEntries(u.searchParams);
    expect(q).toEqual({
      tenant: 't1',
      response_type: 'code',
      client_id: 'cid',
      redirect_uri: 'http://127.0.0.1:1234/callback',
      code_challenge: 'chal',
      code_challenge_method: 'S256',
      state: 'st',
      scope: 'read offline_access',
      prompt: 'consent',
      resource: 'https://mcp.example/mcp',
      audience: 'x',
    });
  });

  it('processAuthorizationResponse: the code, an iss that is not the issuer refused, a promised iss required', () => {
    const server = { issuer: 'https://as.example' };
    expect(processAuthorizationResponse(new URLSearchParams('code=c1&iss=https%3A%2F%2Fas.example'), server)).toBe('c1');
    expect(processAuthorizationResponse(new URLSearchParams('code=c1'), server)).toBe('c1');
    expect(() => processAuthorizationResponse(new URLSearchParams('code=c1&iss=https%3A%2F%2Fevil'), server)).toThrow(/issuer https:\/\/evil/);
    expect(() => processAuthorizationResponse(new URLSearchParams('code=c1'), { ...server, issParameter: true })).toThrow(/lacks iss/);
    expect(() => processAuthorizationResponse(new URLSearchParams(''), server)).toThrow(LanyardError);
  });

  it('renewalGrant: the refresh token first, then client credentials, then a workload JWT read again; none otherwise', () => {
    expect(renewalGrant({ ...base, refreshToken: 'r' })).toEqual({ grant_type: 'refresh_token', refresh_token: 'r', resource: base.resource });
    expect(renewalGrant({ ...base, grant: 'client_credentials' })).toMatchObject({ grant_type: 'client_credentials', scope: 'read' });
    const workload = { ...base, grant: 'jwt_bearer' as const, workloadTokenFrom: { env: 'JWT' } };
    expect(renewable(workload)).toBe(true);
    expect(renewalGrant(workload, 'jwt')).toMatchObject({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: 'jwt' });
    expect(renewable(base)).toBe(false);
    expect(renewalGrant(base)).toBeUndefined();
  });

  it('renewedRecord keeps a refresh token the server did not rotate, and the old scope when none is named', () => {
    const r = renewedRecord({ ...base, refreshToken: 'r1' }, { accessToken: 'b', tokenType: 'Bearer' }, 99);
    expect(r).toMatchObject({ accessToken: 'b', refreshToken: 'r1', scope: 'read', obtainedAt: 99 });
  });

  it('the "client proven" mark lives in the credential store object (not a module map): a new store knows nothing', () => {
    const store = new MemoryCredentialStore();
    const a = new ProtocolCredentials(store);
    expect(a.isProven('https://as.example', 'cid')).toBe(false);
    a.markProven('https://as.example', 'cid');
    expect(a.isProven('https://as.example', 'cid')).toBe(true);
    expect(a.isProven('https://as.example', 'other')).toBe(false);
    expect(new ProtocolCredentials(store).isProven('https://as.example', 'cid')).toBe(false);
  });
});
