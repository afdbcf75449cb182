/**
 * `mkdir -p` that always returns. Node's own `mkdir(path, { recursive: true })`
 * (its sync form too; Node 20 to 26) never returns where mkdir answers ENOENT
 * under a directory that exists — `/proc`, `/sys`: the kernel takes no new
 * entries there and says so with ENOENT — because it makes the parent again
 * and retries, for ever, at full CPU. Here each missing level is made once,
 * from the deepest one that exists down; a level that still cannot be made is
 * the error (the system's own, with its code: ENOENT, EACCES, ENOTDIR, a file
 * in the way as EEXIST).
 *
 * Synchronous: a few system calls, one (EEXIST) where the directory is there,
 * as it is on every run but the first.
 *
 * In shared/: the library, the CLI and the emulator (which imports shared/
 * only) each make directories a user names.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Makes `dir` and its missing parents, each with `mode` (less the umask); nothing when it is a directory already. */
export function makeDir(dir: string, mode = 0o777): void {
  const path = resolve(dir);
  try {
    mkdirSync(path, { mode });
    return;
  } catch (err) {
    if (madeAlready(err, path)) return;
    if (code(err) !== 'ENOENT' || dirname(path) === path) throw err;
  }
  makeDir(dirname(path), mode);
  try {
    mkdirSync(path, { mode });
  } catch (err) {
    // Made meanwhile by another process: as good as made here. ENOENT again (the parent exists now): the answer, not a retry.
    if (!madeAlready(err, path)) throw err;
  }
}

const code = (err: unknown) => (err as NodeJS.ErrnoException).code;

/** An EEXIST for a directory (a file in the way stays the error). */
function madeAlready(err: unknown, path: string): boolean {
  if (code(err) !== 'EEXIST') return false;
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Why {@link makeDir} failed, in words for a one-line error (the system's code where it has none). */
export function makeDirProblem(err: unknown): string {
  const c = code(err);
  if (c === 'ENOTDIR' || c === 'EEXIST') return 'a file is in the way';
  if (c === 'EACCES' || c === 'EPERM') return 'permission denied';
  if (c === 'ENOENT') return 'no directory can be made there';
  if (c === 'EROFS') return 'read-only file system';
  return c ?? (err as Error).message;
}
