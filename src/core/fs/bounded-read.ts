/**
 * Reads of files a user names (a CA bundle, a workload-token file, a key):
 * bounded in bytes and in time, and ended by a signal.
 *
 * - a regular file larger than `maxBytes` is refused before it is read (and
 *   one that grows while read is refused at `maxBytes`);
 * - a directory, a device (`/dev/zero`, a terminal) or a socket is refused;
 * - a pipe or FIFO (`<(command)`, `/dev/stdin` from a pipe, `mkfifo`) is read
 *   without blocking a thread: opened non-blocking, so a FIFO with no writer
 *   waits for one on the event loop, under `maxBytes`, `timeoutMs` and
 *   `signal`.
 */
import { closeSync, constants, open as openFd, openSync, readSync, type Stats, statSync } from 'node:fs';

export interface BoundedReadOptions {
  /** The most bytes the file may hold. */
  maxBytes: number;
  /** How long a pipe may take to give its whole content, ms (regular files are read at disk speed). */
  timeoutMs?: number;
  /** Ends the read (a pipe's wait included) with `FileReadError` kind `aborted`. */
  signal?: AbortSignal;
}

/** Why a bounded read failed: `reason` is a phrase to follow the file's name. */
export class FileReadError extends Error {
  constructor(
    readonly kind: 'too-large' | 'not-a-file' | 'timeout' | 'aborted' | 'unreadable',
    readonly reason: string,
  ) {
    super(reason);
    this.name = 'FileReadError';
  }
}

/** A size as said in messages: `64 KiB`, `4 MiB`. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

/**
 * A regular file up to this size is read with synchronous calls: at disk
 * speed that is well under a millisecond, against a thread-pool hop per call
 * (stat, open, read, close) and node:fs/promises to load. Larger ones are
 * read chunk by chunk on the thread pool, where Ctrl-C can end the read.
 */
const SYNC_READ_MAX = 4 * 1024 * 1024;

/** The text (UTF-8) of the file at `path`, within the bounds; a `FileReadError` otherwise. */
export async function readBoundedText(path: string, o: BoundedReadOptions): Promise<string> {
  if (o.signal?.aborted) throw new FileReadError('aborted', 'was not read (interrupted)');
  let info: Stats;
  try {
    info = statSync(path);
  } catch (err) {
    throw unreadable(err);
  }
  if (info.isDirectory()) throw new FileReadError('not-a-file', 'is a directory, not a file');
  if (info.isFIFO()) return readPipe(path, o);
  if (!info.isFile()) throw new FileReadError('not-a-file', `is ${info.isSocket() ? 'a socket' : 'a device'}, not a file`);
  if (info.size > o.maxBytes) throw new FileReadError('too-large', `is larger than ${formatBytes(o.maxBytes)} (${info.size} bytes)`);
  return info.size <= SYNC_READ_MAX ? readSmallFile(path, info.size, o) : readLargeFile(path, info.size, o);
}

const unreadable = (err: unknown) => new FileReadError('unreadable', `cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);

/** One byte more than allowed (or than stat said) tells a file that grew since stat. */
const readBuffer = (size: number, o: BoundedReadOptions) => Buffer.alloc(Math.min(o.maxBytes + 1, size + 1));

/** The bytes read as text, or too-large when the file grew past the cap. */
function boundedText(buf: Buffer, used: number, o: BoundedReadOptions): string {
  if (used > o.maxBytes) throw new FileReadError('too-large', `is larger than ${formatBytes(o.maxBytes)}`);
  return buf.subarray(0, used).toString('utf8');
}

function readSmallFile(path: string, size: number, o: BoundedReadOptions): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (err) {
    throw unreadable(err);
  }
  try {
    const buf = readBuffer(size, o);
    let used = 0;
    for (let n = 1; n > 0; used += n) {
      if (used === buf.length) throw new FileReadError('too-large', `is larger than ${formatBytes(o.maxBytes)}`);
      n = readSync(fd, buf, used, buf.length - used, null);
    }
    return boundedText(buf, used, o);
  } catch (err) {
    if (err instanceof FileReadError) throw err;
    throw unreadable(err);
  } finally {
    closeSync(fd);
  }
}

async function readLargeFile(path: string, size: number, o: BoundedReadOptions): Promise<string> {
  const { open } = await import('node:fs/promises');
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch (err) {
    throw unreadable(err);
  }
  try {
    const buf = readBuffer(size, o);
    let used = 0;
    for (;;) {
      if (o.signal?.aborted) throw new FileReadError('aborted', 'was not read (interrupted)');
      if (used === buf.length) throw new FileReadError('too-large', `is larger than ${formatBytes(o.maxBytes)}`);
      const { bytesRead } = await handle.read(buf, used, buf.length - used, null);
      if (bytesRead === 0) break;
      used += bytesRead;
    }
    return boundedText(buf, used, o);
  } catch (err) {
    if (err instanceof FileReadError) throw err;
    throw unreadable(err);
  } finally {
    await handle.close();
  }
}

/** A pipe or FIFO read on the event loop (a blocking open would hold a thread, and the process, until a writer came). */
async function readPipe(path: string, o: BoundedReadOptions): Promise<string> {
  // A bare descriptor (not a FileHandle): the socket owns it from here on, and closes it.
  const fd = await new Promise<number>((resolve, reject) =>
    openFd(path, constants.O_RDONLY | constants.O_NONBLOCK, (err, fd) =>
      err ? reject(new FileReadError('unreadable', `cannot be read (${err.code ?? err.message})`)) : resolve(fd),
    ),
  );
  const { Socket } = await import('node:net');
  const pipe = new Socket({ fd, readable: true, writable: false });
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = o.timeoutMs
      ? setTimeout(
          () => stop(new FileReadError('timeout', `gave no end of file within ${Math.ceil(o.timeoutMs! / 1000)} s (a pipe with no writer?)`)),
          o.timeoutMs,
        )
      : undefined;
    const onAbort = () => stop(new FileReadError('aborted', 'was not read (interrupted)'));
    o.signal?.addEventListener('abort', onAbort, { once: true });
    function stop(err?: Error): void {
      clearTimeout(timer);
      o.signal?.removeEventListener('abort', onAbort);
      pipe.destroy();
      if (err) reject(err);
      else resolve(Buffer.concat(chunks, size).toString('utf8'));
    }
    pipe.on('data', (d: Buffer) => {
      size += d.length;
      if (size > o.maxBytes) stop(new FileReadError('too-large', `gives more than ${formatBytes(o.maxBytes)}`));
      else chunks.push(d);
    });
    pipe.on('end', () => stop());
    pipe.on('error', (err: NodeJS.ErrnoException) => stop(new FileReadError('unreadable', `cannot be read (${err.code ?? err.message})`)));
  });
}
