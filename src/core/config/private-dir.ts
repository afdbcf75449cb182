/**
 * The config directory holds the credential file: when another user can write
 * to it (or to a file in it), they can swap or delete `credentials.json` or
 * point a profile at their own server. Such a directory is refused, as ssh
 * refuses a `~/.ssh` others can write to: a `credential_store` error (exit 1)
 * that names the fix. Not checked on Windows (no mode bits).
 */
import { statSync } from 'node:fs';
import { platform } from 'node:os';
import { join } from 'node:path';
import { ConfigError, LanyardError } from '../errors.js';

/** The files of the config directory that decide what Lanyard sends where. */
const FILES = ['config.json', 'credentials.json'];

/** Throws when `dir` is not a directory, or it or one of its files is writable by group or others, or owned by another user; a missing one is fine. */
export function assertPrivateConfigDir(dir: string): void {
  if (platform() === 'win32') return;
  // The effective uid, not os.userInfo(): that looks the user up (the passwd file, or LDAP through NSS) and throws
  // for a uid without an entry, as containers run with `--user 12345`.
  const me = process.geteuid?.() ?? 0;
  for (const path of [dir, ...FILES.map((f) => join(dir, f))]) {
    let st: import('node:fs').Stats;
    try {
      st = statSync(path);
    } catch {
      continue;
    }
    // Not a directory (LANYARD_CONFIG_DIR=/dev/null, a file): its mode says nothing, and the advice to chmod it would be wrong.
    if (path === dir && !st.isDirectory())
      throw new ConfigError(`the config directory ${dir} is not a directory`, { hint: 'point LANYARD_CONFIG_DIR (or XDG_CONFIG_HOME) at a directory' });
    const mode = (st.mode & 0o777).toString(8).padStart(3, '0');
    if (st.mode & 0o022)
      throw new LanyardError('credential_store', `${path} is writable by other users (mode ${mode}): refusing to use it`, {
        hint: `make it private: chmod go-w ${path}`,
      });
    if (me !== 0 && st.uid !== me && st.uid !== 0)
      throw new LanyardError('credential_store', `${path} belongs to another user (uid ${st.uid}): refusing to use it`, {
        hint: `use a config directory of your own (LANYARD_CONFIG_DIR)`,
      });
  }
}
