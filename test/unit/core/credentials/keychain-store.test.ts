/**
 * The keychain store reads the account list once per process; get() always
 * reads the keychain; the opening search's entries are kept for listings
 * until the store writes.
 */
import { describe, expect, it, vi } from 'vitest';

const calls = { find: 0, get: 0 };
const items = new Map<string, string>([['hosting:h:mona', 'tok-1']]);
const keytar = {
  findCredentials: async () => {
    calls.find++;
    return [...items].map(([account, password]) => ({ account, password }));
  },
  getPassword: async (_s: string, a: string) => {
    calls.get++;
    return items.get(a) ?? null;
  },
  setPassword: async (_s: string, a: string, p: string) => void items.set(a, p),
  deletePassword: async (_s: string, a: string) => items.delete(a),
};
vi.mock('@napi-rs/keyring/keytar.js', () => ({ default: keytar, ...keytar }));

const { KeychainCredentialStore } = await import('../../../../src/core/credentials/keychain-store.js');

describe('KeychainCredentialStore', () => {
  it('one search for the account list, kept up to date by its own writes; get() is never cached', async () => {
    const store = await KeychainCredentialStore.load();
    expect(await store.list()).toEqual(['hosting:h:mona']);
    expect(await store.list()).toEqual(['hosting:h:mona']);
    expect(calls.find).toBe(1);
    await store.set('echo:apikey:e', 'k');
    expect(await store.list()).toEqual(['hosting:h:mona', 'echo:apikey:e']);
    await store.delete('hosting:h:mona');
    expect(await store.list()).toEqual(['echo:apikey:e']);
    expect(calls.find).toBe(1);
    // Another process changes a secret: the next read sees it.
    items.set('echo:apikey:e', 'k2');
    expect(await store.get('echo:apikey:e')).toBe('k2');
    items.set('echo:apikey:e', 'k3');
    expect(await store.get('echo:apikey:e')).toBe('k3');
    expect(calls.get).toBe(2);
  });

  it('open(): one search that serves the names and `opened`; get() still asks the keychain; a write drops `opened`', async () => {
    items.clear();
    items.set('hosting:h', 'mona');
    items.set('hosting:h:mona', 'tok-1');
    calls.find = 0;
    calls.get = 0;
    const store = await KeychainCredentialStore.load();
    expect(store.opened).toBeUndefined();
    await store.open();
    expect(calls.find).toBe(1);
    expect([...(store.opened ?? [])]).toEqual([
      ['hosting:h', 'mona'],
      ['hosting:h:mona', 'tok-1'],
    ]);
    expect(await store.list()).toEqual(['hosting:h', 'hosting:h:mona']);
    expect(calls.find).toBe(1);
    // Another process refreshes the token: `opened` is the opening's view, get() the keychain's.
    items.set('hosting:h:mona', 'tok-2');
    expect(store.opened?.get('hosting:h:mona')).toBe('tok-1');
    expect(await store.get('hosting:h:mona')).toBe('tok-2');
    expect(calls.get).toBe(1);
    await store.set('hosting:h:hubot', 'tok-3');
    expect(store.opened).toBeUndefined();
  });
});
