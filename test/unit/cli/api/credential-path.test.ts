/**
 * The credential of `lanyard api /user`, followed on fakes handed in as the
 * context's ports: the profile is read once, the stored token is read from
 * the store once, and the credential is computed once (by the HTTP client,
 * when it sends the request) — not again by each layer on the way.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Context } from '../../../../src/cli/context.js';
import { runApi } from '../../../../src/cli/commands/api/run.js';
import type { ApiOptions } from '../../../../src/cli/commands/api/options.js';
import type { ProfileSettings } from '../../../../src/core/config/settings.js';
import { hostOf } from '../../../../src/core/credentials/accounts.js';
import { HostingAccounts, type HostingTokenRecord } from '../../../../src/core/hosting/accounts.js';
import { HostingAuth } from '../../../../src/core/hosting/auth.js';
import { HttpClient } from '../../../../src/core/http/client.js';
import { FakeClock } from '../../../fakes/clock.js';
import { MemoryCredentialStore } from '../../../fakes/credential-store.js';
import { createTestIO, type TestIO } from '../../../fakes/io.js';
import { StubHttp } from '../../../fakes/stub-http.js';
import { contextOnFakes } from '../../../fakes/context.js';

const NOW = Date.UTC(2026, 10, 26, 12);
const TOKEN = 'lyu_token_of_the_fake_store_0001';

/** A store that counts the reads of each account. */
class CountingStore extends MemoryCredentialStore {
  readonly reads = new Map<string, number>();
  override async get(account: string) {
    this.reads.set(account, (this.reads.get(account) ?? 0) + 1);
    return super.get(account);
  }
}

let stub: StubHttp;
let http: HttpClient;
let io: TestIO;
let store: CountingStore;
let profileReads: number;
let apiUrl: string;

const options = (o: Partial<ApiOptions> = {}): ApiOptions => ({ header: [], rawField: [], field: [], service: 'hosting', ...o });

beforeEach(async () => {
  stub = await StubHttp.start();
  stub.on('GET', '/api/v3/user', () => ({ body: { login: 'mona' } }));
  apiUrl = `${stub.url}/api/v3`;
  http = new HttpClient({ clock: new FakeClock(NOW), userAgent: 'test' });
  store = new CountingStore();
  const record: HostingTokenRecord = {
    login: 'mona',
    token: TOKEN,
    scopes: ['repo'],
    origin: 'device',
    clientId: 'Iv1.x',
    createdAt: new Date(NOW).toISOString(),
  };
  await new HostingAccounts(apiUrl, [store]).save(record, { activate: true });
  store.reads.clear();
  profileReads = 0;
});
afterEach(async () => {
  vi.restoreAllMocks();
  await http.close();
  await stub.close();
});

function context(env: NodeJS.ProcessEnv = {}): Context {
  io = createTestIO();
  const profiles: Record<string, ProfileSettings> = { fake: { 'hosting.apiUrl': apiUrl, 'hosting.webUrl': stub.url } };
  // Counts each time the settings of a profile are read from the source.
  const counted = new Proxy(profiles, {
    get(target, name) {
      if (typeof name === 'string' && Object.hasOwn(target, name)) profileReads++;
      return Reflect.get(target, name, target) as unknown;
    },
  });
  return contextOnFakes(io, env, { http, credentials: store, profiles: { active: 'fake', profiles: counted } }, new FakeClock(NOW));
}

describe('the credential of `lanyard api /user`', () => {
  it('reads the profile once, the stored token once, and computes the credential once', async () => {
    const computed = vi.spyOn(HostingAuth.prototype, 'credential');
    await runApi(context(), '/user', options());
    expect(JSON.parse(io.stdoutText())).toEqual({ login: 'mona' });
    expect(stub.requests.map((r) => r.headers.authorization)).toEqual([`Bearer ${TOKEN}`]);
    expect(profileReads).toBe(1);
    expect(store.reads.get(`hosting:${hostOf(apiUrl)}:mona`)).toBe(1);
    expect(computed).toHaveBeenCalledTimes(1);
  });

  it('with LANYARD_TOKEN the store is not read at all', async () => {
    await runApi(context({ LANYARD_TOKEN: 'lyp_from_the_environment' }), '/user', options());
    expect(stub.requests.map((r) => r.headers.authorization)).toEqual(['Bearer lyp_from_the_environment']);
    expect(store.reads.size).toBe(0);
    expect(profileReads).toBe(1);
  });
});
