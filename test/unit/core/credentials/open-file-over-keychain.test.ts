/**
 * The library's openCredentialStore applies the file-over-keychain rule the
 * CLI's port applies (file-over-keychain.ts): over a keychain that came back
 * after a fallback, the 0600 file's copies (written while it could not be
 * used) are the newer and are read first; a write goes to the keychain and
 * removes the file's copy. A required keychain never reads the file. The
 * stores are injected: a keychain opening on a map, the file in a temp dir.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../../../src/core/credentials/file-store.js';
import { openCredentialStore } from '../../../../src/core/credentials/open.js';
import { keychainOf } from '../../../fakes/keychain-opening.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-fok-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

/** The keychain holds the older copy of `protocol:a` and `echo:k`; the file holds a newer `protocol:a` and `health:h`, written during a fallback. */
async function afterAFallback() {
  const keychain = keychainOf({ 'protocol:a': 'old-token', 'echo:k': 'key-in-keychain' });
  // Written as the fallback writes (marked: file-store.ts); an unmarked copy would lose to the keychain's.
  const file = FileCredentialStore.inDir(dir, undefined, { fallback: true });
  await file.set('protocol:a', 'refreshed-token');
  await file.set('health:h', 'only-in-file');
  return { keychain, file };
}

describe('openCredentialStore: the 0600 file over the keychain', () => {
  it("reads the file's newer copy first, the keychain's for the rest; lists and shows each entry once", async () => {
    const { keychain } = await afterAFallback();
    const store = await openCredentialStore({ configDir: dir, keychain });
    expect(store.kind).toBe('keychain');
    expect(await store.get('protocol:a')).toBe('refreshed-token');
    expect(await store.get('echo:k')).toBe('key-in-keychain');
    expect(await store.get('health:h')).toBe('only-in-file');
    expect((await store.list()).sort()).toEqual(['echo:k', 'health:h', 'protocol:a']);
    expect(store.opened?.get('protocol:a')).toBe('refreshed-token');
  });

  it("a write goes to the keychain and removes the file's older copy; a delete removes both", async () => {
    const { keychain, file } = await afterAFallback();
    const store = await openCredentialStore({ configDir: dir, keychain });
    await store.set('protocol:a', 'next-token');
    expect(keychain.data.get('protocol:a')).toBe('next-token');
    expect(await file.get('protocol:a')).toBeUndefined();
    expect(await store.get('protocol:a')).toBe('next-token');
    expect(await store.delete('health:h')).toBe(true);
    expect(await file.get('health:h')).toBeUndefined();
  });

  it("an unmarked copy (insecure storage chosen, or an older release's) never beats the keychain's", async () => {
    const keychain = keychainOf({ 'protocol:a': 'newer-in-keychain' });
    await FileCredentialStore.inDir(dir).set('protocol:a', 'older-in-file');
    const store = await openCredentialStore({ configDir: dir, keychain });
    expect(await store.get('protocol:a')).toBe('newer-in-keychain');
  });

  it('a required keychain never reads the file: its own copies only', async () => {
    const { keychain } = await afterAFallback();
    const store = await openCredentialStore({ configDir: dir, keychain, requireKeychain: true });
    expect(await store.get('protocol:a')).toBe('old-token');
    expect(await store.get('health:h')).toBeUndefined();
  });
});
