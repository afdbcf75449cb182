/**
 * The one 401 hint: `lanyard api` run on fakes against a server that refuses
 * the credential; the hint is computed where errors are formatted (cli/errors/exit.ts)
 * from what the error carries (service, credential source, whose), and never
 * written back into the error.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runApi } from '../../../../src/cli/commands/api/run.js';
import type { ApiOptions } from '../../../../src/cli/commands/api/options.js';
import { exitCodeFor, formatError } from '../../../../src/cli/errors/exit.js';
import { HttpError } from '../../../../src/core/errors.js';
import { HostingAccounts } from '../../../../src/core/hosting/accounts.js';
import { HttpClient } from '../../../../src/core/http/client.js';
import { FakeClock } from '../../../fakes/clock.js';
import { MemoryCredentialStore } from '../../../fakes/credential-store.js';
import { createTestIO } from '../../../fakes/io.js';
import { StubHttp } from '../../../fakes/stub-http.js';
import { contextOnFakes } from '../../../fakes/context.js';

const NOW = Date.UTC(2026, 10, 26, 12);
let stub: StubHttp;
let http: HttpClient;
let store: MemoryCredentialStore;

const options = (o: Partial<ApiOptions> = {}): ApiOptions => ({ header: [], rawField: [], field: [], service: 'hosting', ...o });

beforeEach(async () => {
  stub = await StubHttp.start();
  stub.on('GET', '/api/v3/user', () => ({ status: 401, body: { message: 'Bad credentials' } }));
  http = new HttpClient({ clock: new FakeClock(NOW), userAgent: 'test' });
  store = new MemoryCredentialStore();
  await new HostingAccounts(`${stub.url}/api/v3`, [store]).save(
    { login: 'mona', token: 'lyu_revoked_0001', scopes: ['repo'], origin: 'device', clientId: 'Iv1.x', createdAt: new Date(NOW).toISOString() },
    { activate: true },
  );
});
afterEach(async () => {
  await http.close();
  await stub.close();
});

async function refused(env: NodeJS.ProcessEnv = {}): Promise<HttpError> {
  const ctx = contextOnFakes(
    createTestIO(),
    env,
    { http, credentials: store, profiles: { active: 'fake', profiles: { fake: { 'hosting.apiUrl': `${stub.url}/api/v3`, 'hosting.webUrl': stub.url } } } },
    new FakeClock(NOW),
  );
  const err = await runApi(ctx, '/user', options()).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(HttpError);
  return err as HttpError;
}

describe('the 401 hint of `lanyard api`', () => {
  it('names the stored account whose token was refused; exit 4; the error is not written into', async () => {
    const err = await refused();
    expect(exitCodeFor(err)).toBe(4);
    expect(err.hint).toBeUndefined();
    expect(formatError(err, false).split('\n')[1]).toBe('the stored token of mona was refused (revoked or expired): sign in again with `lanyard auth device`');
    expect(err.hint).toBeUndefined();
    // Formatting twice says the same (nothing was appended the first time).
    expect(formatError(err, false)).toBe(formatError(err, false));
  });

  it('names the variable when the token came from the environment', async () => {
    const err = await refused({ LANYARD_TOKEN: 'lyp_env_0001' });
    expect(formatError(err, false).split('\n')[1]).toMatch(/^the token from LANYARD_TOKEN was refused: set a valid one, or unset it/);
  });
});
