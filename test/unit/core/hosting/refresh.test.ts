import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../fakes/clock.js';
import { StubHttp } from '../../../fakes/stub-http.js';
import { HttpClient } from '../../../../src/core/http/client.js';
import { refreshRecord } from '../../../../src/core/hosting/refresh.js';
import { AuthRequiredError } from '../../../../src/core/errors.js';
import type { HostingTokenRecord } from '../../../../src/core/hosting/accounts.js';

const NOW = Date.UTC(2026, 10, 22, 12);
const record: HostingTokenRecord = {
  login: 'mona',
  token: 'lyu_old',
  scopes: [],
  origin: 'device',
  clientId: 'Iv1.x',
  createdAt: new Date(NOW - 8 * 3600_000).toISOString(),
  expiresAt: new Date(NOW - 1000).toISOString(),
  refreshToken: 'lyr_old',
  refreshTokenExpiresAt: new Date(NOW + 86400_000).toISOString(),
};

describe('refreshRecord', () => {
  let stub: StubHttp | undefined;
  afterEach(async () => stub?.close());

  it('exchanges the refresh token and keeps the rotated one', async () => {
    stub = await StubHttp.start();
    stub.on('POST', '/login/oauth/access_token', {
      body: { access_token: 'lyu_new', token_type: 'bearer', scope: '', expires_in: 28800, refresh_token: 'lyr_new', refresh_token_expires_in: 100 },
    });
    const http = new HttpClient({ clock: new FakeClock(), userAgent: 't' });
    const next = await refreshRecord({ http, webUrl: stub.url, record, nowMs: NOW });
    expect(next).toMatchObject({
      token: 'lyu_new',
      refreshToken: 'lyr_new',
      expiresAt: new Date(NOW + 28800_000).toISOString(),
      refreshTokenExpiresAt: new Date(NOW + 100_000).toISOString(),
    });
    expect(new URLSearchParams(stub.requests[0]!.body).get('refresh_token')).toBe('lyr_old');
    await http.close();
  });

  it('a refused refresh token means signing in again (exit 4)', async () => {
    stub = await StubHttp.start();
    stub.on('POST', '/login/oauth/access_token', { body: { error: 'bad_refresh_token', error_description: 'incorrect or expired' } });
    const http = new HttpClient({ clock: new FakeClock(), userAgent: 't' });
    await expect(refreshRecord({ http, webUrl: stub.url, record, nowMs: NOW })).rejects.toBeInstanceOf(AuthRequiredError);
    await expect(refreshRecord({ http, webUrl: stub.url, record: { ...record, refreshToken: undefined }, nowMs: NOW })).rejects.toThrow(/cannot be refreshed/);
    await http.close();
  });
});
