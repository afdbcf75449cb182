import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../../../src/core/credentials/file-store.js';
import { openCredentialStore } from '../../../../src/core/credentials/open.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-cred-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe('FileCredentialStore', () => {
  it('keeps secrets in a 0600 file and round-trips them', async () => {
    const s = FileCredentialStore.inDir(dir);
    await s.set('hosting:h:mona', 'secret-1');
    await s.set('hosting:h', 'mona');
    expect(await s.get('hosting:h:mona')).toBe('secret-1');
    expect((await stat(s.path)).mode & 0o777).toBe(0o600);
    expect(await s.list()).toEqual(['hosting:h:mona', 'hosting:h']);
    expect(await s.delete('hosting:h:mona')).toBe(true);
    expect(await s.delete('hosting:h:mona')).toBe(false);
    expect(JSON.parse(await readFile(s.path, 'utf8'))).toEqual({ 'hosting:h': 'mona' });
  });
  it('marks what a store opened as the keychain’s fallback writes; a store chosen on purpose leaves marks as they are; a delete removes one', async () => {
    const fallback = FileCredentialStore.inDir(dir, undefined, { fallback: true });
    const chosen = FileCredentialStore.inDir(dir);
    await chosen.set('echo:chosen', 'a');
    await fallback.set('echo:fell-back', 'b');
    await fallback.set('echo:both', 'c');
    await chosen.set('echo:both', 'd');
    expect(await chosen.list()).toEqual(['echo:chosen', 'echo:fell-back', 'echo:both']);
    expect(chosen.contents()).toEqual({
      entries: { 'echo:chosen': 'a', 'echo:fell-back': 'b', 'echo:both': 'd' },
      fallback: new Set(['echo:fell-back', 'echo:both']),
    });
    await chosen.delete('echo:fell-back');
    await chosen.delete('echo:both');
    expect(JSON.parse(await readFile(chosen.path, 'utf8'))).toEqual({ 'echo:chosen': 'a' });
    await expect(fallback.set('lanyard:keychain-fallback', 'x')).rejects.toThrow(/reserved/);
  });
  it('reports a corrupt file clearly', async () => {
    const s = FileCredentialStore.inDir(dir);
    await s.set('a', 'b');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(s.path, '{broken');
    await expect(s.get('a')).rejects.toThrow(/corrupt/);
  });
});

describe('openCredentialStore', () => {
  it('--insecure-storage chooses the file up front and says why', async () => {
    const why: string[] = [];
    const s = await openCredentialStore({ configDir: dir, insecure: true, onFallback: (w) => why.push(w) });
    expect(s.kind).toBe('file');
    expect(why[0]).toMatch(/insecure/);
  });
  it('falls back to the file when there is no Secret Service (no D-Bus), within the time limit', async () => {
    const saved = process.env.DBUS_SESSION_BUS_ADDRESS;
    process.env.DBUS_SESSION_BUS_ADDRESS = `unix:path=${join(dir, 'no-bus')}`;
    try {
      const why: string[] = [];
      const t0 = Date.now();
      const s = await openCredentialStore({ configDir: dir, timeoutMs: 3000, onFallback: (w) => why.push(w) });
      expect(s.kind).toBe('file');
      expect(why[0]).toMatch(/keychain is unavailable/);
      expect(Date.now() - t0).toBeLessThan(4000);
    } finally {
      if (saved === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
      else process.env.DBUS_SESSION_BUS_ADDRESS = saved;
    }
  });
});
