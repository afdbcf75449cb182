/**
 * The keychain's native addon inside a single-file executable. Node loads an
 * addon only from a file, so the executable unpacks its copy once to a private
 * directory of the user's cache (`<cache>/lanyard/native/`, mode 0700, owned
 * by the user) and loads it only once the file's SHA-256 has matched the one
 * the build recorded: a file someone else wrote or changed is replaced, never
 * loaded. The check is made when the file is written, and again on any run
 * where the file is not exactly as it was left then: a stamp beside it holds
 * the file's inode, size, modification and change times (nanoseconds; the
 * change time is set by the kernel on every write, rename or chmod and cannot
 * be set back), so a run reads and hashes the 3 MB file (≈ 10 ms of CPU,
 * more than the rest of `auth status`) only after something touched it.
 */
import type { BigIntStats } from 'node:fs';
import { chmodSync, lstatSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makeDir } from '../../shared/make-dir.js';

/** The addon the build put in the executable: its asset key and SHA-256 (hex). */
export interface AddonAsset {
  key: string;
  sha256: string;
}

/** Lanyard's cache directory (as bin/lanyard.js places its code cache, but never turned off). */
export function cacheBase(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  if (env.LANYARD_CACHE_DIR) return env.LANYARD_CACHE_DIR;
  const home = env.HOME || env.USERPROFILE;
  if (platform === 'win32' && env.LOCALAPPDATA) return path.join(env.LOCALAPPDATA, 'lanyard', 'Cache');
  if (platform === 'darwin' && home) return path.join(home, 'Library', 'Caches', 'lanyard');
  if (env.XDG_CACHE_HOME || home) return path.join(env.XDG_CACHE_HOME || path.join(home!, '.cache'), 'lanyard');
  // No home at all (a bare CI container): a directory of this user's own in the temporary directory.
  return path.join(tmpdir(), `lanyard-${process.getuid?.() ?? 'user'}`);
}

/**
 * Makes `dir` (and its parents) and checks it is private: a real directory,
 * not a link, owned by this user, writable by no one else (group and other
 * bits are cleared when set). Throws when it cannot be made so.
 */
export function privateDir(dir: string): string {
  makeDir(dir, 0o700);
  if (process.platform === 'win32') return dir; // the profile's directories are the user's own
  const st = lstatSync(dir);
  if (!st.isDirectory()) throw new Error(`${dir} is not a directory`);
  if (st.uid !== process.getuid?.()) throw new Error(`${dir} belongs to another user`);
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  return dir;
}

/** SHA-256 in hex (crypto.hash, one call, where Node has it: 21.7 and later, as in every executable). node:crypto loads on first use. */
function digest(bytes: Uint8Array): string {
  const { hash, createHash } = process.getBuiltinModule('node:crypto');
  return typeof hash === 'function' ? hash('sha256', bytes, 'hex') : createHash('sha256').update(bytes).digest('hex');
}

/** What identifies the file as it was when its digest matched (see the module comment), with the digest. */
function stampOf(st: BigIntStats, sha256: string): string {
  return `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}:${sha256}\n`;
}

/**
 * Whether `file` is, as far as the kernel can tell, the file that was checked:
 * a regular file of this user's, private (0600), whose stamp
 * (`<file>.ok`) matches it.
 */
function unchanged(file: string, sha256: string): boolean {
  try {
    const st = lstatSync(file, { bigint: true });
    if (!st.isFile()) return false;
    if (process.platform !== 'win32' && ((st.mode & 0o077n) !== 0n || st.uid !== BigInt(process.getuid?.() ?? -1))) return false;
    return readFileSync(`${file}.ok`, 'latin1') === stampOf(st, sha256);
  } catch {
    return false;
  }
}

/** Records that `file` was checked just now (never an error: without a stamp the next run checks the digest). */
function stamp(file: string, sha256: string): void {
  const tmp = `${file}.ok.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, stampOf(lstatSync(file, { bigint: true }), sha256), { mode: 0o600 });
    renameSync(tmp, `${file}.ok`);
  } catch {
    rmSync(tmp, { force: true });
  }
}

/** Addons of other builds kept beside the current one (two executables used in turn do not unpack by turns). */
const KEEP_OTHER_BUILDS = 3;

/** Whether the file's SHA-256 is `sha256` (false when it is missing or unreadable). */
function verified(file: string, sha256: string): boolean {
  try {
    return digest(readFileSync(file)) === sha256;
  } catch {
    return false;
  }
}

/**
 * The path of the addon's checked copy in `dir`, unpacked from `bytes` when
 * it is missing or does not match (written to a temporary file, then renamed
 * into place; checked again after).
 */
export function unpackAddon(dir: string, addon: AddonAsset, bytes: () => Uint8Array): string {
  privateDir(dir);
  const file = path.join(dir, `keyring-${addon.sha256.slice(0, 16)}.node`);
  if (unchanged(file, addon.sha256)) return file;
  if (verified(file, addon.sha256)) {
    // (A file left readable or writable by others is made private before its stamp records it.)
    if (process.platform !== 'win32') chmodSync(file, 0o600);
    stamp(file, addon.sha256);
    return file;
  }
  const data = bytes();
  if (digest(data) !== addon.sha256) throw new Error('the keychain addon inside this executable is damaged');
  const tmp = path.join(dir, `.keyring-${process.pid}-${Date.now()}.tmp`);
  try {
    writeFileSync(tmp, data, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, file);
  } finally {
    rmSync(tmp, { force: true });
  }
  if (!verified(file, addon.sha256)) throw new Error(`the keychain addon unpacked to ${file} does not match`);
  stamp(file, addon.sha256);
  pruneOthers(dir, file);
  return file;
}

/** Removes the addons of all but the few most recently unpacked other builds (never an error: one may be in use). */
function pruneOthers(dir: string, keep: string): void {
  try {
    const others = readdirSync(dir)
      .filter((name) => /^keyring-[0-9a-f]{16}\.node$/.test(name) && path.join(dir, name) !== keep)
      .map((name) => ({ file: path.join(dir, name), mtime: statSync(path.join(dir, name)).mtimeMs }))
      .sort((a, b) => b.mtime - a.mtime);
    for (const old of others.slice(KEEP_OTHER_BUILDS)) for (const f of [old.file, `${old.file}.ok`]) rmSync(f, { force: true });
  } catch {
    // A file another process is loading (Windows), a race with another unpacking: kept until next time.
  }
}

let exportsOf: unknown;

/** The keychain addon's exports (unpacked and checked on first use; see the module comment). */
export function loadAddon(addon: AddonAsset | undefined, env: NodeJS.ProcessEnv, asset: (key: string) => Uint8Array): unknown {
  if (exportsOf) return exportsOf;
  if (!addon) throw Object.assign(new Error('this executable has no keychain addon'), { code: 'MODULE_NOT_FOUND' });
  const file = unpackAddon(path.join(cacheBase(env), 'native'), addon, () => asset(addon.key));
  const mod = { exports: {} };
  process.dlopen(mod, file);
  exportsOf = mod.exports;
  return exportsOf;
}
