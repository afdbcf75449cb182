/**
 * The library's openCredentialStore applies the file-over-keychain rule the
 * CLI's port applies (file-over-keychain.ts): over a keychain that came back
 * after a fallback, the 0600 file's copies (written while it could not be
 * used) are the newer and are read first; a write goes to the keychain and
 * removes the file's copy. A required keychain never reads the file. The
 * stores are injected: a keychain opening on a map, the file in a temp dir.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
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

/** What credentials.json holds, the mark included. */
const onDisk = async (): Promise<Record<string, unknown>> => JSON.parse(await readFile(join(dir, 'credentials.json'), 'utf8'));

describe('the marked copies move into the keychain once it works again', () => {
  it('reads move nothing; the next write (of any entry) moves every marked copy into the keychain, then out of the file with its mark', async () => {
    const { keychain } = await afterAFallback();
    await FileCredentialStore.inDir(dir).set('echo:chosen', 'kept-on-purpose');
    const store = await openCredentialStore({ configDir: dir, keychain });
    expect(await store.get('protocol:a')).toBe('refreshed-token');
    await store.list();
    void store.opened;
    expect(await onDisk()).toMatchObject({ 'protocol:a': 'refreshed-token', 'lanyard:keychain-fallback': ['protocol:a', 'health:h'] });
    await store.set('echo:k', 'new-key');
    expect(Object.fromEntries(keychain.data)).toEqual({ 'protocol:a': 'refreshed-token', 'health:h': 'only-in-file', 'echo:k': 'new-key' });
    // An unmarked copy (chosen on purpose) is not the fallback's: it stays where it was put.
    expect(await onDisk()).toEqual({ 'echo:chosen': 'kept-on-purpose' });
    expect(await store.get('protocol:a')).toBe('refreshed-token');
    expect(await store.get('health:h')).toBe('only-in-file');
  });

  it("the written entry's own marked copy is the older one: the keychain keeps the write, the file loses its copy", async () => {
    const { keychain } = await afterAFallback();
    const store = await openCredentialStore({ configDir: dir, keychain });
    await store.set('protocol:a', 'next-token');
    expect(keychain.data.get('protocol:a')).toBe('next-token');
    expect(keychain.data.get('health:h')).toBe('only-in-file');
    expect(await onDisk()).toEqual({});
  });

  it('a copy the keychain does not take (its write fails, or it reads back otherwise) stays marked in the file and is still read first', async () => {
    const { keychain } = await afterAFallback();
    const binding = (await keychain.result) as { binding: { setPassword: (s: string, a: string, p: string) => Promise<void> } };
    const setPassword = binding.binding.setPassword;
    binding.binding.setPassword = async (s, a, p) => {
      if (a === 'protocol:a') throw new Error('the Secret Service did not answer');
      if (a === 'health:h') return setPassword(s, a, 'mangled');
      return setPassword(s, a, p);
    };
    const store = await openCredentialStore({ configDir: dir, keychain });
    await store.set('echo:k', 'new-key');
    expect(keychain.data.get('echo:k')).toBe('new-key');
    expect(await onDisk()).toMatchObject({ 'protocol:a': 'refreshed-token', 'health:h': 'only-in-file' });
    expect(((await onDisk())['lanyard:keychain-fallback'] as string[]).sort()).toEqual(['health:h', 'protocol:a']);
    expect(await store.get('protocol:a')).toBe('refreshed-token');
    expect(await store.get('health:h')).toBe('only-in-file');
  });

  it('a newer copy the fallback writes to the file while the move runs stays there, and wins', async () => {
    const { keychain, file } = await afterAFallback();
    const binding = (await keychain.result) as { binding: { setPassword: (s: string, a: string, p: string) => Promise<void> } };
    const setPassword = binding.binding.setPassword;
    binding.binding.setPassword = async (s, a, p) => {
      await setPassword(s, a, p);
      // Another process, still without the keychain, refreshes the token meanwhile.
      if (a === 'protocol:a') await file.set('protocol:a', 'refreshed-again');
    };
    const store = await openCredentialStore({ configDir: dir, keychain });
    await store.set('echo:k', 'new-key');
    expect(await onDisk()).toEqual({ 'protocol:a': 'refreshed-again', 'lanyard:keychain-fallback': ['protocol:a'] });
    expect(await store.get('protocol:a')).toBe('refreshed-again');
    expect(keychain.data.get('health:h')).toBe('only-in-file');
  });

  it('moveMarked (doctor) moves them now and says what it moved; nothing marked, nothing done', async () => {
    const { keychain } = await afterAFallback();
    const { openCredentialStores } = await import('../../../../src/core/credentials/open.js');
    const { layered } = await openCredentialStores({ configDir: dir, keychain });
    expect(await layered!.moveMarked()).toEqual({ moved: ['protocol:a', 'health:h'], left: [] });
    expect(await onDisk()).toEqual({});
    expect(await layered!.moveMarked()).toEqual({ moved: [], left: [] });
    expect(keychain.data.get('protocol:a')).toBe('refreshed-token');
  });
});
