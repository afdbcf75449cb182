/**
 * Whole-file writes that never leave half a file: the text goes to a new
 * temporary file beside the target (created exclusively, with the final mode,
 * flushed to disk) and is renamed over it. A reader sees the old file or the
 * new one, never a mix; a crash leaves at most a stray `*.tmp`.
 */
import { dirname } from 'node:path';
import { makeDir } from '../../shared/make-dir.js';

export async function writeFileAtomic(path: string, text: string, mode = 0o600): Promise<void> {
  await (await stageFile(path, text, mode)).commit();
}

/** A written, flushed temporary file not yet renamed over its target. */
export interface StagedFile {
  /** Renames it over the target (one system call). */
  commit(): Promise<void>;
  /** Removes it; the target stays as it was. */
  discard(): Promise<void>;
}

/**
 * The first half of {@link writeFileAtomic}: the temporary file is written and
 * flushed now, renamed over `path` only on `commit()` — for a caller that puts
 * it in place after something else is done (a checkpoint after its page).
 */
export async function stageFile(path: string, text: string, mode = 0o600): Promise<StagedFile> {
  const { open, rename, unlink } = await import('node:fs/promises');
  makeDir(dirname(path), 0o700);
  const { randomBytes } = await import('node:crypto'); // only writes need it: kept off the start-up path
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const fh = await open(tmp, 'wx', mode);
  try {
    await fh.writeFile(text);
    await fh.sync();
    // The umask may have narrowed or (umask 000) not narrowed the mode open() was given.
    await fh.chmod(mode);
  } catch (err) {
    await fh.close();
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  await fh.close();
  const discard = () => unlink(tmp).catch(() => undefined);
  return {
    async commit() {
      try {
        await rename(tmp, path);
      } catch (err) {
        await discard();
        throw err;
      }
    },
    discard,
  };
}
