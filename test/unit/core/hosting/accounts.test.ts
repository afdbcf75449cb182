import { describe, expect, it } from 'vitest';
import { MemoryCredentialStore } from '../../../fakes/credential-store.js';
import { HostingAccounts, recordFromTokenSet, type HostingTokenRecord } from '../../../../src/core/hosting/accounts.js';
import { canRefresh, refreshDue } from '../../../../src/core/hosting/refresh.js';

const API = 'http://127.0.0.1:4000/api/v3';
const rec = (login: string, token = `lyo_${login}`): HostingTokenRecord => ({
  login,
  token,
  scopes: ['repo'],
  origin: 'device',
  createdAt: '2026-11-22T12:00:00.000Z',
});

describe('HostingAccounts', () => {
  it('names entries hosting:<api host>:<login> and the active login hosting:<api host>', async () => {
    const store = new MemoryCredentialStore();
    const accounts = new HostingAccounts(API, [store]);
    await accounts.save(rec('mona'));
    expect([...store.data.keys()].sort()).toEqual(['hosting:127.0.0.1:4000', 'hosting:127.0.0.1:4000:mona']);
    expect(store.data.get('hosting:127.0.0.1:4000')).toBe('mona');
    expect((await accounts.active())?.record.token).toBe('lyo_mona');
  });

  it('the newest sign-in becomes active; removing it activates another', async () => {
    const accounts = new HostingAccounts(API, [new MemoryCredentialStore()]);
    await accounts.save(rec('mona'));
    await accounts.save(rec('hubot'));
    expect(await accounts.activeLogin()).toBe('hubot');
    expect(await accounts.remove('hubot')).toBe(true);
    expect(await accounts.activeLogin()).toBe('mona');
    expect(await accounts.remove('nobody')).toBe(false);
  });

  it('reads from every store, writes to the primary and removes the stale copy elsewhere', async () => {
    const keychain = new MemoryCredentialStore();
    const file = new MemoryCredentialStore();
    await new HostingAccounts(API, [file]).save(rec('mona', 'lyo_old'));
    const both = new HostingAccounts(API, [keychain, file]);
    expect((await both.active())?.store).toBe(file);
    await both.save(rec('mona', 'lyo_new'));
    expect(file.data.size).toBe(0);
    expect((await both.list()).map((a) => [a.record.token, a.store === keychain, a.active])).toEqual([['lyo_new', true, true]]);
  });

  it('records keep expiry and refresh data from a token set', () => {
    const now = Date.UTC(2026, 10, 22, 12);
    const r = recordFromTokenSet(
      { accessToken: 'lyu_1', tokenType: 'bearer', scopes: [], expiresIn: 28800, refreshToken: 'lyr_1', refreshTokenExpiresIn: 3600 * 24 },
      { login: 'mona', origin: 'device', clientId: 'Iv1.x', nowMs: now },
    );
    expect(r.expiresAt).toBe(new Date(now + 28800_000).toISOString());
    expect(canRefresh(r, now)).toBe(true);
    expect(refreshDue(r, now)).toBe(false);
    expect(refreshDue(r, now + 28800_000 - 60_000)).toBe(true);
    expect(canRefresh(r, now + 3600_000 * 25)).toBe(false);
  });

  it('list({ asOpened }) reads what a store kept from its opening, without a read per entry; other stores are read', async () => {
    const keychain = new MemoryCredentialStore();
    const file = new MemoryCredentialStore();
    await new HostingAccounts(API, [keychain]).save(rec('mona'));
    await new HostingAccounts(API, [file]).save(rec('hubot'), { activate: false });
    const opened = new Map(keychain.data);
    let reads = 0;
    const kept = Object.assign(Object.create(keychain) as MemoryCredentialStore, {
      opened,
      get: async (a: string) => {
        reads++;
        return keychain.get(a);
      },
    });
    const accounts = new HostingAccounts(API, [kept, file]);
    const listed = (await accounts.list({ asOpened: true })).map((a) => [a.record.login, a.store === kept, a.active]);
    expect(listed).toEqual([
      ['mona', true, true],
      ['hubot', false, false],
    ]);
    expect(reads).toBe(0);
    // Without asOpened (and for a decision under the lock), every entry is read now.
    await keychain.set('hosting:127.0.0.1:4000:mona', JSON.stringify(rec('mona', 'lyo_refreshed')));
    expect((await accounts.list()).map((a) => a.record.token)).toEqual(['lyo_refreshed', 'lyo_hubot']);
    expect(reads).toBeGreaterThan(0);
    expect((await accounts.list({ asOpened: true }))[0]?.record.token).toBe('lyo_mona');
  });
});
