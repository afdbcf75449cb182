import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../fakes/clock.js';
import { StubHttp } from '../../../fakes/stub-http.js';
import { HttpClient } from '../../../../src/core/http/client.js';
import {
  authorizationCodeRequest,
  deviceAuthorizationRequest,
  OAuthResponseError,
  processDeviceAuthorizationResponse,
  processTokenResponse,
  refreshTokenRequest,
} from '../../../../src/core/hosting/oauth.js';
import { OAuthError, RateLimitError } from '../../../../src/core/errors.js';

let stub: StubHttp;
let http: HttpClient;
beforeEach(async () => {
  stub = await StubHttp.start();
  http = new HttpClient({ clock: new FakeClock(), userAgent: 'test' });
});
afterEach(async () => {
  await http.close();
  await stub.close();
});

const exchange = () =>
  authorizationCodeRequest(http, { webUrl: stub.url, clientId: 'c', clientSecret: 's', code: 'k', redirectUri: 'http://127.0.0.1:1/callback' });

describe('processTokenResponse', () => {
  it.each([
    ['form', 'application/x-www-form-urlencoded', 'access_token=lyo_1&scope=repo%2Cuser&token_type=bearer'],
    ['JSON', 'application/json', '{"access_token":"lyo_1","scope":"repo,user","token_type":"bearer"}'],
    ['XML', 'application/xml', '<OAuth><token_type>bearer</token_type><scope>repo,user</scope><access_token>lyo_1</access_token></OAuth>'],
  ])('parses the %s encoding; scopes are comma-separated', async (_n, ct, body) => {
    stub.on('POST', '/login/oauth/access_token', { headers: { 'content-type': ct }, body });
    const t = await processTokenResponse(await exchange());
    expect(t).toEqual({ accessToken: 'lyo_1', tokenType: 'bearer', scopes: ['repo', 'user'] });
  });

  it('reads expires_in, refresh_token and refresh_token_expires_in (installable apps)', async () => {
    stub.on('POST', '/login/oauth/access_token', {
      body: { access_token: 'lyu_1', token_type: 'bearer', scope: '', expires_in: 28800, refresh_token: 'lyr_1', refresh_token_expires_in: 15897600 },
    });
    expect(await processTokenResponse(await exchange())).toEqual({
      accessToken: 'lyu_1',
      tokenType: 'bearer',
      scopes: [],
      expiresIn: 28800,
      refreshToken: 'lyr_1',
      refreshTokenExpiresIn: 15897600,
    });
  });

  it('an error with HTTP 200 is an OAuth error with its fields', async () => {
    stub.on('POST', '/login/oauth/access_token', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'error=bad_verification_code&error_description=The+code+passed+is+incorrect+or+expired.',
    });
    const err = await processTokenResponse(await exchange()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OAuthResponseError);
    expect((err as OAuthResponseError).error).toBe('bad_verification_code');
    expect((err as OAuthResponseError).status).toBe(200);
    expect((err as Error).message).toContain('incorrect or expired');
  });

  it('a secondary rate limit on the token endpoint is a RateLimitError', async () => {
    stub.on('POST', '/login/oauth/access_token', {
      status: 429,
      headers: { 'retry-after': '60' },
      body: { message: 'You have exceeded a secondary rate limit for OAuth access token requests.' },
    });
    await expect(processTokenResponse(await exchange())).rejects.toBeInstanceOf(RateLimitError);
  });

  it('refuses a non-bearer token type and a missing access_token', async () => {
    stub.on('POST', '/login/oauth/access_token', { body: { access_token: 'x', token_type: 'mac' } });
    stub.on('POST', '/login/oauth/access_token', { body: { token_type: 'bearer' } });
    await expect(processTokenResponse(await exchange())).rejects.toThrow(/token_type/);
    await expect(processTokenResponse(await exchange())).rejects.toThrow(/lacks access_token/);
  });

  it('the refresh request sends grant_type refresh_token and the client id', async () => {
    stub.on('POST', '/login/oauth/access_token', { body: { access_token: 'lyu_2', token_type: 'bearer', scope: '' } });
    await processTokenResponse(await refreshTokenRequest(http, { webUrl: stub.url, clientId: 'Iv1.x', refreshToken: 'lyr_old' }));
    expect(Object.fromEntries(new URLSearchParams(stub.requests[0]!.body))).toEqual({
      client_id: 'Iv1.x',
      grant_type: 'refresh_token',
      refresh_token: 'lyr_old',
    });
  });
});

describe('processDeviceAuthorizationResponse', () => {
  it('returns a typed, frozen result; interval defaults to 5, expires_in to 900', async () => {
    stub.on('POST', '/login/device/code', { body: { device_code: 'd'.repeat(40), user_code: 'ABCD-EFGH', verification_uri: 'http://w/login/device' } });
    const a = await processDeviceAuthorizationResponse(await deviceAuthorizationRequest(http, { webUrl: stub.url, clientId: 'c' }));
    expect(a).toEqual({ deviceCode: 'd'.repeat(40), userCode: 'ABCD-EFGH', verificationUri: 'http://w/login/device', expiresIn: 900, interval: 5 });
    expect(Object.isFrozen(a)).toBe(true);
    expect(new URLSearchParams(stub.requests[0]!.body).has('scope')).toBe(false);
  });
  it('refuses a non-http verification_uri', async () => {
    stub.on('POST', '/login/device/code', {
      body: { device_code: 'd', user_code: 'A-B', verification_uri: 'javascript:alert(1)', expires_in: 900, interval: 5 },
    });
    await expect(processDeviceAuthorizationResponse(await deviceAuthorizationRequest(http, { webUrl: stub.url, clientId: 'c' }))).rejects.toBeInstanceOf(
      OAuthError,
    );
  });
});
