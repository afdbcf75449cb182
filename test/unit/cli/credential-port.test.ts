/**
 * The context's one door to credential storage (credential-port.ts): one
 * opening per process, the fallback said once, the lookup list, the hosting
 * accounts cached per API URL, and a store handed in as the only store.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createContext, type Context, type ContextPorts } from '../../../src/cli/context.js';
import type { KeychainOpening } from '../../../src/core/credentials/keychain-open.js';
import { FileCredentialStore } from '../../../src/core/credentials/file-store.js';
import { holderKind } from '../../../src/core/credentials/as-opened.js';
import { MemoryCredentialStore } from '../../fakes/credential-store.js';
import { keychainOf } from '../../fakes/keychain-opening.js';
import { createTestIO, type TestIO } from '../../fakes/io.js';

let dir: string;
let io: TestIO;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-port-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function context(env: NodeJS.ProcessEnv, ports?: ContextPorts, keychain?: KeychainOpening): Context {
  io = createTestIO();
  return createContext({
    io,
    env: { LANYARD_CONFIG_DIR: dir, ...env },
    signal: new AbortController().signal,
    version: 't',
    globals: () => ({}),
    ports,
    ...(keychain ? { keychain } : {}),
  });
}

describe('ctx.credentialStorage()', () => {
  it('opens once: the same port for every caller, idle resolved, the file when the keychain is off', async () => {
    const ctx = context({ LANYARD_KEYCHAIN: 'off' });
    const opening = ctx.credentialStorage();
    await opening.idle;
    const port = await opening;
    expect(await ctx.credentialStorage()).toBe(port);
    expect(port.primary.kind).toBe('file');
    expect(port.file.path.startsWith(dir)).toBe(true);
    expect(port.lookup()).toEqual([port.store()]);
    expect(await port.hostingAccounts('https://api.example.test')).toBe(await port.hostingAccounts('https://api.example.test'));
    expect(await port.hostingAccounts('https://other.example.test')).not.toBe(await port.hostingAccounts('https://api.example.test'));
  });

  it('a chosen fallback is said once, when a secret is written', async () => {
    const ctx = context({ LANYARD_KEYCHAIN: 'off' });
    const store = (await ctx.credentialStorage()).store();
    expect(io.stderrText()).toBe('');
    await store.set('echo:example.test', 'a-secret-of-the-test');
    await store.set('echo:other.test', 'another-secret-of-it');
    expect(io.stderrText().match(/storing the credential in a plain file/g)).toHaveLength(1);
  });

  it('a store handed in is the only store: looked in, written to, and the hosting accounts', async () => {
    const given = new MemoryCredentialStore();
    const port = await context({}, { credentials: given, profiles: { profiles: {} } }).credentialStorage();
    expect([port.primary, port.store(), ...port.lookup()]).toEqual([given, given, given]);
    await (await port.hostingAccounts('https://api.example.test')).save(
      { login: 'mona', token: 'lyu_x', scopes: [], origin: 'pasted', clientId: '', createdAt: new Date(0).toISOString() },
      { activate: true },
    );
    expect([...given.data.keys()].sort()).toEqual(['hosting:api.example.test', 'hosting:api.example.test:mona']);
  });

  it('behind the keychain the 0600 file is read, for lookups and hosting accounts alike, unless the keychain is required', async () => {
    const saved = { login: 'mona', token: 'lyu_saved_in_the_file', scopes: [], origin: 'pasted' as const, clientId: '', createdAt: new Date(0).toISOString() };
    const inFile = await (await context({ LANYARD_KEYCHAIN: 'off' }).credentialStorage()).hostingAccounts('https://api.example.test');
    await inFile.save(saved, { activate: true });
    expect(await FileCredentialStore.inDir(dir).list()).toHaveLength(2);

    const behind = await context({}, undefined, keychainOf({})).credentialStorage();
    expect(behind.primary.kind).toBe('keychain');
    expect(behind.lookup()).toHaveLength(2);
    expect((await (await behind.hostingAccounts('https://api.example.test')).active())?.record.login).toBe('mona');

    const required = await context({ LANYARD_KEYCHAIN: 'required' }, undefined, keychainOf({})).credentialStorage();
    expect(required.lookup()).toEqual([required.store()]);
    expect(await (await required.hostingAccounts('https://api.example.test')).active()).toBeUndefined();
  });

  it('where the keychain and the 0600 file both hold an entry the file took while the keychain could not be used (marked so), the file’s (the newer) wins; its next write moves it into the keychain', async () => {
    const host = 'api.example.test';
    const record = (token: string) => JSON.stringify({ login: 'mona', token, scopes: [], origin: 'pasted', createdAt: new Date(0).toISOString() });
    // The keychain's older copies; the file's newer ones, as a fallback wrote them (and an echo key only the file holds).
    const keychain = keychainOf({
      [`hosting:${host}`]: 'mona',
      [`hosting:${host}:mona`]: record('lyu_older_in_the_keychain'),
      'echo:e.test': 'older-echo-key',
    });
    const file = FileCredentialStore.inDir(dir, undefined, { fallback: true });
    await file.set(`hosting:${host}:mona`, record('lyu_newer_in_the_file'));
    await file.set('echo:e.test', 'newer-echo-key');
    await FileCredentialStore.inDir(dir).set('echo:only.test', 'only-in-the-file');
    const port = await context({}, undefined, keychain).credentialStorage();
    const accounts = await port.hostingAccounts(`https://${host}`);
    const active = await accounts.active();
    expect([active?.record.token, active?.store.kind]).toEqual(['lyu_newer_in_the_file', 'file']);
    // Listed once each, from the store that holds the newest copy (auth status reads as opened).
    expect((await accounts.list({ asOpened: true })).map((a) => [a.record.token, a.store.kind])).toEqual([['lyu_newer_in_the_file', 'file']]);
    expect((await accounts.list()).map((a) => [a.record.token, a.store.kind])).toEqual([['lyu_newer_in_the_file', 'file']]);
    // One store (echo keys, protocol tokens): the file's copy first, the keychain's where the file has none.
    const store = port.store();
    expect([await store.get('echo:e.test'), await store.get('echo:only.test')]).toEqual(['newer-echo-key', 'only-in-the-file']);
    expect(store.opened?.get('echo:e.test')).toBe('newer-echo-key');
    expect((await store.list()).sort()).toEqual(['echo:e.test', 'echo:only.test', `hosting:${host}`, `hosting:${host}:mona`]);
    // Said where each came from: the store a lookup finds it in (auth status, echo key status).
    expect(await holderKind(port.lookup(), 'echo:e.test')).toBe('file');
    expect(await holderKind(port.lookup(), 'echo:only.test')).toBe('file');
    // The next write of an entry puts it in the keychain and removes the file's copy: a refresh where the record was found,
    await accounts.update({ ...active!.record, token: 'lyu_refreshed' }, active!.store);
    expect(await file.get(`hosting:${host}:mona`)).toBeUndefined();
    const refreshed = await (await context({}, undefined, keychain).credentialStorage()).hostingAccounts(`https://${host}`);
    expect((await refreshed.get('mona'))?.record.token).toBe('lyu_refreshed');
    expect((await refreshed.get('mona'))?.store.kind).toBe('keychain');
    // a write through the one store, a new sign-in.
    await store.set('echo:e.test', 'newest-echo-key');
    await accounts.save(JSON.parse(record('lyu_saved_again')), { activate: true });
    expect(await file.list()).toEqual(['echo:only.test']);
    const reopened = await context({}, undefined, keychain).credentialStorage();
    expect(await reopened.store().get('echo:e.test')).toBe('newest-echo-key');
    expect((await (await reopened.hostingAccounts(`https://${host}`)).active())?.record.token).toBe('lyu_saved_again');
    // Deleting through the one store removes both copies.
    await file.set('echo:e.test', 'again-in-the-file');
    expect(await reopened.store().delete('echo:e.test')).toBe(true);
    expect(await reopened.store().get('echo:e.test')).toBeUndefined();
  });

  it('a file without the mark (an older release, --insecure-storage, LANYARD_INSECURE_STORAGE) never beats the keychain’s copy, which is named as the source; a keychain write leaves that file copy alone', async () => {
    const host = 'api.example.test';
    const record = (token: string) => JSON.stringify({ login: 'mona', token, scopes: [], origin: 'pasted', createdAt: new Date(0).toISOString() });
    // The layout of the release before the mark: plain entries, the older copies (that release wrote the keychain without removing them).
    await writeFile(
      join(dir, 'credentials.json'),
      JSON.stringify({
        'echo:e.test': 'OLDKEY_insecure_1111',
        [`hosting:${host}`]: 'mona',
        [`hosting:${host}:mona`]: record('lyu_older_in_the_file'),
        'protocol:srv.test': '{"old":1}',
      }),
      { mode: 0o600 },
    );
    // And one written on purpose to the file now (LANYARD_INSECURE_STORAGE=1).
    await (await context({ LANYARD_INSECURE_STORAGE: '1' }).credentialStorage()).store().set('echo:chosen.test', 'OLDER_chosen_in_the_file');
    const keychain = keychainOf({
      'echo:e.test': 'NEWKEY_keychain_2222',
      'echo:chosen.test': 'NEWER_in_the_keychain',
      [`hosting:${host}`]: 'mona',
      [`hosting:${host}:mona`]: record('lyu_newer_in_the_keychain'),
      'protocol:srv.test': '{"new":2}',
    });
    const port = await context({}, undefined, keychain).credentialStorage();
    const store = port.store();
    expect(await store.get('echo:e.test')).toBe('NEWKEY_keychain_2222');
    expect(await store.get('echo:chosen.test')).toBe('NEWER_in_the_keychain');
    expect(await store.get('protocol:srv.test')).toBe('{"new":2}');
    expect(store.opened?.get('echo:e.test')).toBe('NEWKEY_keychain_2222');
    expect(store.opened?.get('protocol:srv.test')).toBe('{"new":2}');
    expect(await holderKind(port.lookup(), 'echo:e.test')).toBe('keychain');
    expect(await holderKind(port.lookup(), 'protocol:srv.test')).toBe('keychain');
    const active = await (await port.hostingAccounts(`https://${host}`)).active();
    expect([active?.record.token, active?.store.kind]).toEqual(['lyu_newer_in_the_keychain', 'keychain']);
    // A write to the keychain leaves the file's own copy (a file chosen on purpose keeps its entries, as before the mark).
    await store.set('echo:e.test', 'NEWEST_keychain_3333');
    expect(await FileCredentialStore.inDir(dir).get('echo:e.test')).toBe('OLDKEY_insecure_1111');
    expect(await (await context({}, undefined, keychain).credentialStorage()).store().get('echo:e.test')).toBe('NEWEST_keychain_3333');
  });
});
