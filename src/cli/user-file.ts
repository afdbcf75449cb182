/**
 * Files the user names on the command line or in a variable (a CA bundle, a
 * workload-token file, a private key): read under a size cap, a time bound
 * for pipes and the run's signal (src/core/fs/bounded-read.ts). A file that
 * cannot be used is one line naming the option or variable and the file,
 * exit 2; Ctrl-C or SIGTERM meanwhile is exit 130/143.
 */
import { CancelledError, ConfigError } from '../core/errors.js';
import { FileReadError, readBoundedText } from '../core/fs/bounded-read.js';

/** The caps (docs/reliability.md lists them). */
export const USER_FILE_CAPS = {
  /** A PEM bundle of CAs (Debian's whole bundle is about 220 KiB). */
  caBundle: 4 * 1024 * 1024,
  /** A token or a private key. */
  credential: 64 * 1024,
  /** A field's value read from a file (`api --field k=@file`): it is held in memory and sent as JSON. */
  fieldValue: 64 * 1024 * 1024,
} as const;

/** How long a pipe or FIFO may take to give its content. */
export const USER_FILE_PIPE_MS = 30_000;

/** The file's text, or the one-line error naming `what` (`--workload-token-file`, `LANYARD_CA_FILE`). */
export async function readUserFile(path: string, what: string, o: { maxBytes: number; signal?: AbortSignal }): Promise<string> {
  try {
    return await readBoundedText(path, { maxBytes: o.maxBytes, timeoutMs: USER_FILE_PIPE_MS, signal: o.signal });
  } catch (err) {
    if (!(err instanceof FileReadError)) throw err;
    if (err.kind === 'aborted') throw new CancelledError();
    throw new ConfigError(`${what}: ${path} ${err.reason}`);
  }
}
