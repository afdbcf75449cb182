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
    expect(await layered!.moveMarked()).toEqual({ moved: ['protocol:a', 'health:h'], left: [], stale: [] });
    expect(await onDisk()).toEqual({});
    expect(await layered!.moveMarked()).toEqual({ moved: [], left: [], stale: [] });
    expect(keychain.data.get('protocol:a')).toBe('refreshed-token');
  });
});

describe('many writers at once while the file holds marked copies (a fleet sharing one config directory)', () => {
  it('every write lands, every marked copy moves once, a newer fallback copy written meanwhile is the one read; no lock is left waiting', async () => {
    const keychain = keychainOf({});
    const fallback = FileCredentialStore.inDir(dir, undefined, { fallback: true });
    for (let i = 0; i < 5; i++) await fallback.set(`m:${i}`, `marked-${i}`);
    // Each writer opens its own store, with its own lock of the directory: as separate processes do.
    const writers = Array.from({ length: 8 }, async (_, i) => (await openCredentialStore({ configDir: dir, keychain })).set(`w:${i}`, `write-${i}`));
    // Meanwhile a process without the keychain refreshes m:0.
    const late = fallback.set('m:0', 'marked-0-newer');
    await Promise.all([...writers, late]);
    const reader = await openCredentialStore({ configDir: dir, keychain });
    for (let i = 0; i < 8; i++) expect(await reader.get(`w:${i}`)).toBe(`write-${i}`);
    expect(await reader.get('m:0')).toBe('marked-0-newer');
    for (let i = 1; i < 5; i++) expect(keychain.data.get(`m:${i}`)).toBe(`marked-${i}`);
    const left = await onDisk().catch(() => ({}));
    expect(Object.keys(left).filter((a) => a !== 'm:0' && a !== 'lanyard:keychain-fallback')).toEqual([]);
    await reader.set('w:0', 'write-0-again');
    expect(await onDisk()).toEqual({});
    expect(keychain.data.get('m:0')).toBe('marked-0-newer');
  });
});

describe('a marked copy older than the keychain’s (a release before the mark ran between: downgrade, then upgrade)', () => {
  const hosting = (token: string, createdAt: string) => JSON.stringify({ login: 'mona', token, scopes: ['repo'], origin: 'pasted', createdAt });
  const protocol = (accessToken: string, obtainedAt: number) => JSON.stringify({ accessToken, server: 's', obtainedAt });

  it('is not moved over the keychain’s newer record but taken out of the file; one made after it moves; a copy with no time moves as marked', async () => {
    const keychain = keychainOf({
      // Written by the older release after the fallback: newer than the file's.
      'hosting:h:mona': hosting('newer-in-keychain', '2026-11-20T10:00:00.000Z'),
      'protocol:p': protocol('newer-protocol', 2_000),
      // Written before the fallback: older than the file's.
      'hosting:h:hubot': hosting('older-in-keychain', '2026-11-01T10:00:00.000Z'),
      'echo:k': 'key-in-keychain',
    });
    const fallback = FileCredentialStore.inDir(dir, undefined, { fallback: true });
    await fallback.set('hosting:h:mona', hosting('stale-in-file', '2026-11-10T10:00:00.000Z'));
    await fallback.set('protocol:p', protocol('stale-protocol', 1_000));
    await fallback.set('hosting:h:hubot', hosting('newer-in-file', '2026-11-10T10:00:00.000Z'));
    await fallback.set('echo:k', 'key-in-file');
    const { openCredentialStores } = await import('../../../../src/core/credentials/open.js');
    const { layered } = await openCredentialStores({ configDir: dir, keychain });
    const r = await layered!.moveMarked();
    expect({ moved: r.moved.sort(), stale: r.stale.sort(), left: r.left }).toEqual({
      moved: ['echo:k', 'hosting:h:hubot'],
      stale: ['hosting:h:mona', 'protocol:p'],
      left: [],
    });
    expect(await onDisk()).toEqual({});
    expect(JSON.parse(keychain.data.get('hosting:h:mona')!).token).toBe('newer-in-keychain');
    expect(JSON.parse(keychain.data.get('protocol:p')!).accessToken).toBe('newer-protocol');
    expect(JSON.parse(keychain.data.get('hosting:h:hubot')!).token).toBe('newer-in-file');
    expect(keychain.data.get('echo:k')).toBe('key-in-file');
    expect(JSON.parse((await layered!.first.get('hosting:h:mona'))!).token).toBe('newer-in-keychain');
  });
});
