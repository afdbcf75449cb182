/**
 * Whole-file writes that never leave half a file: the text goes to a new
 * temporary file beside the target (created exclusively, with the final mode,
 * flushed to disk) and is renamed over it. A reader sees the old file or the
 * new one, never a mix; a crash leaves at most a stray `*.tmp`.
 */
import { dirname } from 'node:path';

export async function writeFileAtomic(path: string, text: string, mode = 0o600): Promise<void> {
  const { mkdir, open, rename, chmod, unlink } = await import('node:fs/promises');
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const { randomBytes } = await import('node:crypto'); // only writes need it: kept off the start-up path
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const fh = await open(tmp, 'wx', mode);
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
  try {
    // The umask may have narrowed or (umask 000) not narrowed the mode open() was given.
    await chmod(tmp, mode);
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}
