/**
 * The keychain addon's unpacking in a single-file executable: a private
 * directory, a file loaded only when its digest matches, a changed or
 * foreign file replaced, a damaged asset refused.
 */
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cacheBase, privateDir, unpackAddon } from '../../../../src/cli/sea/addon.js';

const BYTES = Buffer.from('a native addon, as far as this test is concerned');
const ADDON = { key: 'keyring.node', sha256: createHash('sha256').update(BYTES).digest('hex') };

let base: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'lanyard-addon-'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('unpackAddon', () => {
  it('writes the addon once into a 0700 directory, as a 0600 file named by its digest', () => {
    const dir = join(base, 'lanyard', 'native');
    let reads = 0;
    const file = unpackAddon(dir, ADDON, () => (reads++, BYTES));
    expect(file).toBe(join(dir, `keyring-${ADDON.sha256.slice(0, 16)}.node`));
    expect(readFileSync(file)).toEqual(BYTES);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const mtime = statSync(file).mtimeMs;
    expect(unpackAddon(dir, ADDON, () => (reads++, BYTES))).toBe(file);
    expect(reads).toBe(1); // the second run checked the file and kept it
    expect(statSync(file).mtimeMs).toBe(mtime);
  });

  it('replaces a file whose digest does not match before anything loads it', () => {
    const dir = join(base, 'native');
    const file = unpackAddon(dir, ADDON, () => BYTES);
    writeFileSync(file, 'someone else’s code');
    expect(unpackAddon(dir, ADDON, () => BYTES)).toBe(file);
    expect(readFileSync(file)).toEqual(BYTES);
  });

  it('checks the digest again only when the file is not as it was left: another file in its place (same size and times) is replaced', () => {
    const dir = join(base, 'native');
    const file = unpackAddon(dir, ADDON, () => BYTES);
    expect(readFileSync(`${file}.ok`, 'latin1')).toContain(ADDON.sha256);
    const { mtime, atime } = statSync(file);
    const other = join(dir, 'other');
    writeFileSync(other, Buffer.alloc(BYTES.length, 0x41), { mode: 0o600 });
    utimesSync(other, atime, mtime);
    renameSync(other, file); // a new inode, whatever the times say
    expect(unpackAddon(dir, ADDON, () => BYTES)).toBe(file);
    expect(readFileSync(file)).toEqual(BYTES);
  });

  it('a file opened to others is checked again and made private', () => {
    const dir = join(base, 'native');
    const file = unpackAddon(dir, ADDON, () => BYTES);
    chmodSync(file, 0o666);
    expect(unpackAddon(dir, ADDON, () => BYTES)).toBe(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('while the stamp matches the file, a run reads and hashes nothing (whoever can rewrite the stamp can rewrite the executable)', () => {
    const dir = join(base, 'native');
    const file = unpackAddon(dir, ADDON, () => BYTES);
    // Stand-in for "the file as checked": different bytes, with a stamp that matches them.
    writeFileSync(file, Buffer.alloc(BYTES.length, 0x42));
    const st = lstatSync(file, { bigint: true });
    writeFileSync(`${file}.ok`, `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}:${ADDON.sha256}\n`);
    let reads = 0;
    expect(unpackAddon(dir, ADDON, () => (reads++, BYTES))).toBe(file);
    expect(reads).toBe(0);
    expect(readFileSync(file)).toEqual(Buffer.alloc(BYTES.length, 0x42));
  });

  it('keeps the addons of the three most recently unpacked other builds, and removes older ones', () => {
    const dir = join(base, 'native');
    mkdirSync(dir, { recursive: true });
    const others = ['0000000000000001', '0000000000000002', '0000000000000003', '0000000000000004'].map((h, i) => {
      const f = join(dir, `keyring-${h}.node`);
      writeFileSync(f, 'an older build');
      utimesSync(f, 1000 + i, 1000 + i);
      return f;
    });
    unpackAddon(dir, ADDON, () => BYTES);
    expect(others.map((f) => existsSync(f))).toEqual([false, true, true, true]);
  });

  it('refuses a damaged asset and writes nothing', () => {
    const dir = join(base, 'native');
    expect(() => unpackAddon(dir, ADDON, () => Buffer.from('truncated'))).toThrow(/damaged/);
    expect(() => statSync(join(dir, `keyring-${ADDON.sha256.slice(0, 16)}.node`))).toThrow();
  });
});

describe('privateDir', () => {
  it('takes group and other permissions off an existing directory', () => {
    const dir = join(base, 'open');
    mkdirSync(dir, { mode: 0o777 });
    chmodSync(dir, 0o777);
    privateDir(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('refuses a symbolic link and a file in the directory’s place', () => {
    const elsewhere = join(base, 'elsewhere');
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(base, 'link'));
    expect(() => privateDir(join(base, 'link'))).toThrow(/not a directory/);
    writeFileSync(join(base, 'file'), '');
    expect(() => privateDir(join(base, 'file'))).toThrow();
  });
});

describe('cacheBase', () => {
  it('follows LANYARD_CACHE_DIR, then the platform’s cache directory', () => {
    expect(cacheBase({ LANYARD_CACHE_DIR: '/c', HOME: '/h' }, 'linux')).toBe('/c');
    expect(cacheBase({ HOME: '/h' }, 'linux')).toBe(join('/h', '.cache', 'lanyard'));
    expect(cacheBase({ HOME: '/h', XDG_CACHE_HOME: '/x' }, 'linux')).toBe(join('/x', 'lanyard'));
    expect(cacheBase({ HOME: '/h' }, 'darwin')).toBe(join('/h', 'Library', 'Caches', 'lanyard'));
    expect(cacheBase({ LOCALAPPDATA: 'C:\\Users\\u\\AppData\\Local' }, 'win32')).toBe(join('C:\\Users\\u\\AppData\\Local', 'lanyard', 'Cache'));
  });
});
