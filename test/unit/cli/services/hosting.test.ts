/**
 * The hosting credential as commands get it (src/cli/services/hosting.ts): precedence,
 * --basic-client, and a stored installable-app token refreshed before expiry
 * and after a 401, with the rotated refresh token saved.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createContext, type Context, type GlobalOptions } from '../../../../src/cli/context.js';
import { hostingTarget } from '../../../../src/cli/services/hosting/wiring.js';
import { ConfigStore } from '../../../../src/core/config/store.js';
import { FileCredentialStore } from '../../../../src/core/credentials/file-store.js';
import { HostingAccounts, type HostingTokenRecord } from '../../../../src/core/hosting/accounts.js';
import { FakeClock } from '../../../fakes/clock.js';
import { createTestIO } from '../../../fakes/io.js';
import { StubHttp } from '../../../fakes/stub-http.js';

let dir: string;
let stub: StubHttp;
let clock: FakeClock;
const NOW = Date.UTC(2026, 10, 22, 12);

function context(env: Record<string, string> = {}, globals: GlobalOptions = {}): Context {
  return createContext({
    io: createTestIO(),
    env: { LANYARD_CONFIG_DIR: dir, LANYARD_KEYCHAIN: 'off', ...env },
    signal: new AbortController().signal,
    version: 'test',
    globals: () => ({ profile: 'p', ...globals }),
    clock,
  });
}

const record = (o: Partial<HostingTokenRecord> = {}): HostingTokenRecord => ({
  login: 'mona',
  token: 'lyu_old',
  scopes: [],
  origin: 'device',
  clientId: 'Iv1.x',
  createdAt: new Date(NOW - 3600_000).toISOString(),
  expiresAt: new Date(NOW + 7 * 3600_000).toISOString(),
  refreshToken: 'lyr_old',
  refreshTokenExpiresAt: new Date(NOW + 86400_000).toISOString(),
  ...o,
});

async function stored(): Promise<HostingTokenRecord | undefined> {
  return (await new HostingAccounts(`${stub.url}/api/v3`, [FileCredentialStore.inDir(dir)]).active())?.record;
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-target-'));
  stub = await StubHttp.start();
  clock = new FakeClock(NOW);
  const config = await ConfigStore.open({ dir });
  await config.putProfile('p', { 'hosting.apiUrl': `${stub.url}/api/v3`, 'hosting.webUrl': stub.url, 'hosting.clientId': 'Iv1.x' });
});
afterEach(async () => {
  await stub.close();
  await rm(dir, { recursive: true, force: true });
});

const refreshed = {
  body: { access_token: 'lyu_new', token_type: 'bearer', scope: '', expires_in: 28800, refresh_token: 'lyr_new', refresh_token_expires_in: 15897600 },
};

describe('hostingTarget', () => {
  it('LANYARD_TOKEN wins over WORKFLOW_TOKEN and the stored token; anonymous without any', async () => {
    await new HostingAccounts(`${stub.url}/api/v3`, [FileCredentialStore.inDir(dir)]).save(record({ expiresAt: undefined, refreshToken: undefined }));
    expect((await hostingTarget(context({ LANYARD_TOKEN: 'a', WORKFLOW_TOKEN: 'b' }))).credential).toEqual({ scheme: 'bearer', token: 'a' });
    expect((await hostingTarget(context({ WORKFLOW_TOKEN: 'b' }))).source).toBe('env:WORKFLOW_TOKEN');
    expect(await hostingTarget(context())).toMatchObject({ source: 'file', login: 'mona', credential: { scheme: 'bearer', token: 'lyu_old' } });
    await rm(join(dir, 'credentials.json'));
    expect((await hostingTarget(context())).source).toBe('anonymous');
  });

  it('--basic-client uses client_id:LANYARD_CLIENT_SECRET even when a token is set', async () => {
    const t = await hostingTarget(context({ LANYARD_TOKEN: 'a', LANYARD_CLIENT_SECRET: 'sek' }, { basicClient: true }));
    expect(t).toMatchObject({ source: 'basic-client', credential: { scheme: 'basic', username: 'Iv1.x', password: 'sek' } });
    await expect(hostingTarget(context({}, { basicClient: true }))).rejects.toThrow(/LANYARD_CLIENT_SECRET/);
  });

  it('refreshes a stored token shortly before it expires and saves the rotated refresh token', async () => {
    await new HostingAccounts(`${stub.url}/api/v3`, [FileCredentialStore.inDir(dir)]).save(record({ expiresAt: new Date(NOW + 60_000).toISOString() }));
    stub.on('POST', '/login/oauth/access_token', refreshed);
    // Every refreshed token is revalidated.
    stub.on('GET', '/api/v3/user', { body: { login: 'mona' } });
    const t = await hostingTarget(context());
    expect(t.credential).toEqual({ scheme: 'bearer', token: 'lyu_new' });
    expect(await stored()).toMatchObject({ token: 'lyu_new', refreshToken: 'lyr_new', expiresAt: new Date(NOW + 28800_000).toISOString() });
    stub.verify();
  });

  it('a 401 with a refreshable token: refresh once and retry with the new token', async () => {
    await new HostingAccounts(`${stub.url}/api/v3`, [FileCredentialStore.inDir(dir)]).save(record());
    stub.on('GET', '/api/v3/user', { status: 401, body: { message: 'Bad credentials' } });
    stub.on('POST', '/login/oauth/access_token', refreshed);
    const asMona = (req: { headers: Record<string, string | string[] | undefined> }) => ({
      body: { login: req.headers.authorization === 'Bearer lyu_new' ? 'mona' : 'wrong' },
    });
    stub.on('GET', '/api/v3/user', asMona); // the revalidation of the refreshed token
    stub.on('GET', '/api/v3/user', asMona); // the retried request
    const t = await hostingTarget(context());
    const res = await t.http.request({ url: 'user', baseUrl: t.apiUrl, auth: t.auth });
    expect(await res.json()).toEqual({ login: 'mona' });
    expect(await t.auth.credential()).toEqual({ scheme: 'bearer', token: 'lyu_new' });
    expect((await stored())?.refreshToken).toBe('lyr_new');
    stub.verify();
  });
});
