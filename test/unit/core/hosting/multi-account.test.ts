/**
 * Several accounts on one host: choosing one (`--user`, git's user name),
 * `auth switch`'s rules, an environment token against an asked-for account,
 * refreshing the asked-for account under its own lock, and the transparent
 * migration of older single-account stores.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../fakes/clock.js';
import { MemoryCredentialStore } from '../../../fakes/credential-store.js';
import { StubHttp } from '../../../fakes/stub-http.js';
import { chooseSwitchTarget, HostingAccounts, type HostingTokenRecord } from '../../../../src/core/hosting/accounts.js';
import { HostingAuth, type HostingAuthOptions } from '../../../../src/core/hosting/auth.js';
import type { CredentialLock } from '../../../../src/core/credentials/lock.js';
import { type LanyardError, ValidationError } from '../../../../src/core/errors.js';
import { HttpClient } from '../../../../src/core/http/client.js';

const API = 'http://127.0.0.1:4000/api/v3';
const HOST = '127.0.0.1:4000';
const NOW = Date.UTC(2026, 10, 22, 12);
const rec = (login: string, o: Partial<HostingTokenRecord> = {}): HostingTokenRecord => ({
  login,
  token: `lyo_${login}`,
  scopes: ['repo'],
  origin: 'device',
  createdAt: new Date(NOW - 3600_000).toISOString(),
  ...o,
});

async function twoAccounts(): Promise<{ store: MemoryCredentialStore; accounts: HostingAccounts }> {
  const store = new MemoryCredentialStore();
  const accounts = new HostingAccounts(API, [store]);
  await accounts.save(rec('mona'));
  await accounts.save(rec('hubot'));
  return { store, accounts };
}

function options(accounts: HostingAccounts, o: Partial<HostingAuthOptions> = {}): HostingAuthOptions {
  return {
    env: {},
    apiUrl: API,
    accounts: async () => accounts,
    http: new HttpClient({ clock: new FakeClock(NOW), userAgent: 't' }),
    clock: new FakeClock(NOW),
    ...o,
  };
}

describe('choosing a stored account', () => {
  it('resolve() uses the active account, or the one asked for (login matched exactly, else ignoring case)', async () => {
    const { accounts } = await twoAccounts();
    expect((await HostingAuth.resolve(options(accounts))).login).toBe('hubot');
    const mona = await HostingAuth.resolve(options(accounts, { login: 'mona' }));
    expect([mona.login, mona.source, await mona.credential()]).toEqual(['mona', 'memory', { scheme: 'bearer', token: 'lyo_mona' }]);
    expect((await HostingAuth.resolve(options(accounts, { login: 'MONA' }))).login).toBe('mona');
    // Asking for an account changes nothing stored: the active one stays.
    expect(await accounts.activeLogin()).toBe('hubot');
  });

  it('an unknown account is a usage error naming the stored ones (one line)', async () => {
    const { accounts } = await twoAccounts();
    const err = await HostingAuth.resolve(options(accounts, { login: 'octocat' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toBe(`no stored hosting account "octocat" on ${HOST} (stored: hubot, mona)`);
    expect((err as LanyardError).hint).toBeUndefined();
    const none = new HostingAccounts(API, [new MemoryCredentialStore()]);
    await expect(HostingAuth.resolve(options(none, { login: 'mona' }))).rejects.toThrow(`no stored hosting account "mona" on ${HOST} (none stored)`);
  });

  it('an environment token still wins; asking for an account alongside one is a usage error saying so', async () => {
    const { accounts } = await twoAccounts();
    const env = await HostingAuth.resolve(options(accounts, { env: { WORKFLOW_TOKEN: 'lyw_x' } }));
    expect([env.source, await env.credential()]).toEqual(['env:WORKFLOW_TOKEN', { scheme: 'bearer', token: 'lyw_x' }]);
    const err = await HostingAuth.resolve(options(accounts, { env: { LANYARD_TOKEN: 'lyo_env' }, login: 'mona' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toMatch(/^cannot use the stored account "mona": LANYARD_TOKEN is set in the environment and takes precedence/);
    expect((err as Error).message).not.toContain('lyo_env');
  });

  it("an environment token is used without the whitespace around it (a secret file's newline); a line break inside it is refused, never sent", async () => {
    const { accounts } = await twoAccounts();
    const env = await HostingAuth.resolve(options(accounts, { env: { LANYARD_TOKEN: 'lyo_env\n' } }));
    expect([env.source, await env.credential()]).toEqual(['env:LANYARD_TOKEN', { scheme: 'bearer', token: 'lyo_env' }]);
    // Only whitespace: not set, so the stored accounts apply.
    const blank = await HostingAuth.resolve(options(accounts, { env: { LANYARD_TOKEN: ' \n', WORKFLOW_TOKEN: '' } }));
    expect(blank.source).not.toMatch(/^env:/);
    const err = await HostingAuth.resolve(options(accounts, { env: { WORKFLOW_TOKEN: 'lyw_a\nX-Injected: 1' } })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toBe('WORKFLOW_TOKEN holds a line break or control character inside the token; set it to the token alone');
  });
});

describe('auth switch rules', () => {
  const accountsOf = async (n: number) => {
    const accounts = new HostingAccounts(API, [new MemoryCredentialStore()]);
    for (const l of ['mona', 'hubot', 'octo'].slice(0, n)) await accounts.save(rec(l));
    return accounts.list();
  };

  it('one account: that one; two: the other one; more: ask; --user: that one; unknown: usage error', async () => {
    expect(chooseSwitchTarget(HOST, await accountsOf(1))).toEqual({ login: 'mona' });
    expect(chooseSwitchTarget(HOST, await accountsOf(2))).toEqual({ login: 'mona' }); // hubot is active
    const three = await accountsOf(3);
    expect(chooseSwitchTarget(HOST, three)).toEqual({ ask: three });
    expect(three.map((a) => [a.record.login, a.active])).toEqual([
      ['octo', true],
      ['hubot', false],
      ['mona', false],
    ]);
    expect(chooseSwitchTarget(HOST, three, 'Hubot')).toEqual({ login: 'hubot' });
    expect(() => chooseSwitchTarget(HOST, three, 'nobody')).toThrow(ValidationError);
    expect(() => chooseSwitchTarget(HOST, [])).toThrow(expect.objectContaining({ code: 'not_signed_in' }));
  });

  it('activate() records the new active account; toggling twice comes back', async () => {
    const { accounts, store } = await twoAccounts();
    expect(await accounts.activate('mona')).toBe('mona');
    expect(store.data.get(`hosting:${HOST}`)).toBe('mona');
    expect((await HostingAuth.resolve(options(accounts))).login).toBe('mona');
    const next = chooseSwitchTarget(HOST, await accounts.list());
    expect(next).toEqual({ login: 'hubot' });
    await expect(accounts.activate('nobody')).rejects.toThrow(ValidationError);
    expect(store.data.get(`hosting:${HOST}`)).toBe('mona');
  });

  it('the active pointer moves to the primary store (keychain) and leaves the file', async () => {
    const keychain = new MemoryCredentialStore();
    const file = new MemoryCredentialStore();
    await new HostingAccounts(API, [file]).save(rec('mona'));
    await new HostingAccounts(API, [file]).save(rec('hubot'));
    const both = new HostingAccounts(API, [keychain, file]);
    await both.activate('mona');
    expect([keychain.data.get(`hosting:${HOST}`), file.data.has(`hosting:${HOST}`)]).toEqual(['mona', false]);
    expect((await both.active())?.record.login).toBe('mona');
  });

  it('accounts of another port of the same address are not this host’s', async () => {
    const store = new MemoryCredentialStore();
    await new HostingAccounts(API, [store]).save(rec('mona'));
    const bare = new HostingAccounts('http://127.0.0.1/api/v3', [store]);
    expect(await bare.list()).toEqual([]);
    expect(await bare.active()).toBeUndefined();
  });
});

describe('refreshing the asked-for account', () => {
  let stub: StubHttp | undefined;
  afterEach(async () => stub?.close());

  it('refreshes the chosen account (not the active one) under that account’s lock and saves it in place', async () => {
    stub = await StubHttp.start();
    const store = new MemoryCredentialStore();
    const accounts = new HostingAccounts(API, [store]);
    const expiring = { clientId: 'Iv1.x', expiresAt: new Date(NOW + 60_000).toISOString(), refreshTokenExpiresAt: new Date(NOW + 86400_000).toISOString() };
    await accounts.save(rec('mona', { ...expiring, token: 'lyu_mona_old', refreshToken: 'lyr_mona' }));
    await accounts.save(rec('hubot', { ...expiring, token: 'lyu_hubot_old', refreshToken: 'lyr_hubot' }));
    stub.on('POST', '/login/oauth/access_token', {
      body: { access_token: 'lyu_mona_new', token_type: 'bearer', scope: '', expires_in: 28800, refresh_token: 'lyr_mona_2' },
    });
    stub.on('GET', '/user', { body: { login: 'mona', id: 1 } });
    const locks: string[] = [];
    const lock: CredentialLock = { withLock: (name, f) => (locks.push(name), f()) };
    const http = new HttpClient({ clock: new FakeClock(NOW), userAgent: 't' });
    const auth = await HostingAuth.resolve(options(accounts, { apiUrl: stub.url, webUrl: stub.url, http, lock, login: 'mona' }));
    await http.close();
    expect(await auth.credential()).toEqual({ scheme: 'bearer', token: 'lyu_mona_new' });
    expect(locks).toEqual([`hosting-${HOST}-mona`]);
    expect(new URLSearchParams(stub.requests[0]!.body).get('refresh_token')).toBe('lyr_mona');
    expect(stub.requests[1]!.headers.authorization).toMatch(/ lyu_mona_new$/);
    expect(JSON.parse(store.data.get(`hosting:${HOST}:mona`)!)).toMatchObject({ token: 'lyu_mona_new', refreshToken: 'lyr_mona_2' });
    expect(JSON.parse(store.data.get(`hosting:${HOST}:hubot`)!)).toMatchObject({ token: 'lyu_hubot_old', refreshToken: 'lyr_hubot' });
    expect(await accounts.activeLogin()).toBe('hubot');
  });
});

describe('older single-account stores', () => {
  it('a token record kept under the host entry is used as it is and moved to its own entry', async () => {
    const store = new MemoryCredentialStore();
    const old = rec('mona', { token: 'lyo_kept' });
    store.data.set(`hosting:${HOST}`, JSON.stringify(old));
    const accounts = new HostingAccounts(API, [store]);
    const auth = await HostingAuth.resolve(options(accounts));
    expect([auth.login, await auth.credential()]).toEqual(['mona', { scheme: 'bearer', token: 'lyo_kept' }]);
    expect(Object.fromEntries(store.data)).toEqual({ [`hosting:${HOST}`]: 'mona', [`hosting:${HOST}:mona`]: JSON.stringify(old) });
    // A second sign-in then sits beside it.
    await accounts.save(rec('hubot'));
    expect((await accounts.list()).map((a) => [a.record.login, a.record.token, a.active])).toEqual([
      ['hubot', 'lyo_hubot', true],
      ['mona', 'lyo_kept', false],
    ]);
  });

  it('a store that refuses writes still serves the old token (migration retried next time)', async () => {
    const store = new MemoryCredentialStore();
    store.data.set(`hosting:${HOST}`, JSON.stringify(rec('mona', { token: 'lyo_kept' })));
    store.set = async () => {
      throw new Error('read-only');
    };
    const accounts = new HostingAccounts(API, [store]);
    expect((await accounts.active())?.record.token).toBe('lyo_kept');
    expect((await accounts.list()).map((a) => a.record.login)).toEqual(['mona']);
    expect((await accounts.find('mona')).record.token).toBe('lyo_kept');
  });

  it('records without an active entry (or with one naming a deleted account): the newest becomes active', async () => {
    const store = new MemoryCredentialStore();
    store.data.set(`hosting:${HOST}:mona`, JSON.stringify(rec('mona', { createdAt: new Date(NOW - 7200_000).toISOString() })));
    store.data.set(`hosting:${HOST}:hubot`, JSON.stringify(rec('hubot')));
    const accounts = new HostingAccounts(API, [store]);
    expect((await accounts.active())?.record.login).toBe('hubot');
    expect(store.data.get(`hosting:${HOST}`)).toBe('hubot');
    store.data.set(`hosting:${HOST}`, 'deleted-user');
    expect((await HostingAuth.resolve(options(accounts))).login).toBe('hubot');
    expect(store.data.get(`hosting:${HOST}`)).toBe('hubot');
  });
});

describe('the account bound to the working directory', () => {
  const bound = { login: 'mona', dir: '/work/acme' };
  it('is taken instead of the active one; --user and an environment token still win', async () => {
    const { accounts } = await twoAccounts();
    const auth = await HostingAuth.resolve(options(accounts, { bound }));
    expect([auth.login, auth.boundDir]).toEqual(['mona', '/work/acme']);
    expect(await accounts.activeLogin()).toBe('hubot');
    const named = await HostingAuth.resolve(options(accounts, { bound, login: 'hubot' }));
    expect([named.login, named.boundDir]).toEqual(['hubot', undefined]);
    const env = await HostingAuth.resolve(options(accounts, { bound, env: { LANYARD_TOKEN: 'lyp_env' } }));
    expect([env.source, await env.credential()]).toEqual(['env:LANYARD_TOKEN', { scheme: 'bearer', token: 'lyp_env' }]);
  });

  it('a bound account that is not stored is exit 4 naming the directory, not a silent fall back to the active one', async () => {
    const { accounts } = await twoAccounts();
    const err = (await HostingAuth.resolve(options(accounts, { bound: { login: 'octocat', dir: '/work/acme' } })).catch((e: unknown) => e)) as LanyardError;
    expect(err.code).toBe('auth_required');
    expect(err.message).toBe(`the hosting account octocat bound to /work/acme is not signed in on ${HOST}`);
  });
});
