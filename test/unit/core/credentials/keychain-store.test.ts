/** The keychain store reads the account list once per process; secrets are always read from the keychain. */
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
});
