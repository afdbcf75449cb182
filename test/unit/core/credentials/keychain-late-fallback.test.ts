/**
 * A keychain binding that is installed but cannot load (an addon that will
 * not map: older glibc, a noexec mount, another arch's copy), with the
 * entries read over D-Bus (a fake Secret Service on a socket): the binding
 * is left unloaded by the opening, fails at the first write, and the store
 * turns to the 0600 file then, saying why, as an opening whose binding
 * failed to load always did. The token is never lost.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// The package is reported installed (so the opening leaves the binding unloaded), and loading it throws.
vi.mock('@napi-rs/keyring/keytar.js', () => {
  throw new Error('libkeyring.node: cannot open shared object file: wrong ELF class');
});
vi.mock('@napi-rs/keyring-linux-x64-gnu', () => ({ default: {} }));
vi.mock('@napi-rs/keyring-linux-arm64-gnu', () => ({ default: {} }));
vi.mock('../../../../src/core/credentials/keychain-binding.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../../../src/core/credentials/keychain-binding.js')>()),
  platformBindingInstalled: () => true,
}));

// Unit files share a worker's modules (isolate: false): a file run before this one may have loaded open.js and
// keychain-binding.js unmocked, so this file loads its own copies, under the mocks above.
vi.resetModules();
const { fakeSecretService } = await import('./fake-secret-service.js');
type FakeBus = import('./fake-secret-service.js').FakeBus;
const { startKeychainOpen } = await import('../../../../src/core/credentials/keychain-open.js');
const { openCredentialStore } = await import('../../../../src/core/credentials/open.js');
const { FileCredentialStore } = await import('../../../../src/core/credentials/file-store.js');

const UNAVAILABLE = 'the OS keychain is unavailable (the keychain binding could not be loaded)';
let dir: string;
let bus: FakeBus;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-late-fallback-'));
  bus = await fakeSecretService([
    { path: '/org/freedesktop/secrets/collection/login/1', attributes: { service: 'lanyard', username: 'hosting:h' }, secret: 'mona' },
    { path: '/org/freedesktop/secrets/collection/login/2', attributes: { service: 'lanyard', username: 'hosting:h:mona' }, secret: 'tok-old' },
  ]);
});
afterEach(async () => {
  await bus.close();
  await rm(dir, { recursive: true, force: true });
});

const fileEntries = async () => JSON.parse(await readFile(join(dir, 'credentials.json'), 'utf8')) as Record<string, string>;
const open = (o: { requireKeychain?: boolean; why?: string[] } = {}) =>
  openCredentialStore({
    configDir: dir,
    sessionBus: bus.address,
    timeoutMs: 3000,
    requireKeychain: o.requireKeychain,
    onFallback: (w) => o.why?.push(w),
  });

describe.runIf(process.platform === 'linux')('a binding installed but unable to load, the entries read over D-Bus', () => {
  it('the opening reads the keychain without loading it (no warning yet)', async () => {
    const why: string[] = [];
    const s = await open({ why });
    expect(s.kind).toBe('keychain');
    expect(Object.fromEntries(s.opened ?? [])).toEqual({ 'hosting:h': 'mona', 'hosting:h:mona': 'tok-old' });
    expect(why).toEqual([]);
  });

  it('the first write goes to the 0600 file, said once with the reason an eager load gave; later writes too', async () => {
    const why: string[] = [];
    const s = await open({ why });
    await s.set('hosting:h:mona', 'tok-new');
    expect(why).toEqual([UNAVAILABLE]);
    expect(s.kind).toBe('file');
    await s.set('hosting:h', 'mona');
    expect(why).toHaveLength(1);
    // Marked as taken in the keychain's stead (file-over-keychain.ts).
    expect(await fileEntries()).toEqual({ 'hosting:h:mona': 'tok-new', 'hosting:h': 'mona', 'lanyard:keychain-fallback': ['hosting:h:mona', 'hosting:h'] });
  });

  it('mixed state: the file wins for an account it took in the keychain’s stead, the Secret Service serves the rest; the listing is both', async () => {
    // A copy the file holds without the mark (an older release, --insecure-storage): the Secret Service's wins over it.
    await FileCredentialStore.inDir(dir).set('hosting:h', 'an-older-login');
    const s = await open();
    await s.set('hosting:h:mona', 'tok-new');
    await s.set('echo:key', 'k-1');
    expect(s.opened).toBeUndefined();
    expect(await s.get('hosting:h:mona')).toBe('tok-new');
    expect(await s.get('hosting:h')).toBe('mona');
    expect((await s.list()).sort()).toEqual(['echo:key', 'hosting:h', 'hosting:h:mona']);
    // The next run: the D-Bus read still has the old token; the file's copy is read first (file-over-keychain.ts),
    // without loading the binding; its first write falls back and says so.
    const why: string[] = [];
    const next = await open({ why });
    expect(await next.get('hosting:h:mona')).toBe('tok-new');
    expect(why).toEqual([]);
    await next.set('hosting:h:mona', 'tok-newer');
    expect(why).toEqual([UNAVAILABLE]);
    expect(await next.get('hosting:h:mona')).toBe('tok-newer');
  });

  it("a delete takes the file's copy; one only the keychain holds fails with nothing deleted, saying so", async () => {
    const s = await open();
    await s.set('echo:key', 'k-1');
    await s.set('hosting:h', 'hubot');
    expect(await s.delete('echo:key')).toBe(true);
    expect(await s.delete('hosting:h')).toBe(true);
    expect(await s.delete('nobody')).toBe(false);
    await expect(s.delete('hosting:h:mona')).rejects.toMatchObject({
      code: 'credential_store',
      message: expect.stringMatching(/nothing was deleted/),
      // What to do is the caller's to say (the CLI: `lanyard doctor`, LANYARD_KEYCHAIN=off).
      remedy: { kind: 'keychain-binding' },
    });
    expect(await fileEntries()).toEqual({});
    expect(await s.get('hosting:h:mona')).toBe('tok-old');
  });

  it('with the keychain required: the write fails with the required error, nothing in the file', async () => {
    const s = await open({ requireKeychain: true });
    await expect(s.set('hosting:h:mona', 'tok-new')).rejects.toMatchObject({
      message: `the OS keychain is required, and ${UNAVAILABLE}: not falling back to the file`,
    });
    await expect(readFile(join(dir, 'credentials.json'))).rejects.toThrow();
  });

  it('an opening handed in (as bin/lanyard.js starts one) falls back the same way', async () => {
    const why: string[] = [];
    const s = await openCredentialStore({
      configDir: dir,
      keychain: startKeychainOpen({ sessionBus: bus.address, timeoutMs: 3000 }),
      onFallback: (w) => why.push(w),
    });
    await s.set('hosting:h:mona', 'tok-new');
    expect(why).toEqual([UNAVAILABLE]);
    expect(await fileEntries()).toEqual({ 'hosting:h:mona': 'tok-new', 'lanyard:keychain-fallback': ['hosting:h:mona'] });
  });
});
