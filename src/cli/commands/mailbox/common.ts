/** Shared wiring of the mailbox commands: target, input bodies, output files, progress. */
import { MIN_DRAW_COLUMNS } from '../../terminal/spinner.js';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import type { MailboxClient } from '../../../core/mailbox/client.js';
import { mailboxClient as mailboxTargetClient } from '../../services/mailbox/wiring.js';
import { ValidationError } from '../../../core/errors.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors/usage-error.js';
import type { MailboxTargetOptions } from './options.js';
import { lowMemoryRuntime } from './memory.js';

/** The client of the profile's mailbox (services/mailbox.ts), with the process set up for large transfers first. */
export function mailboxClient(ctx: Context, o: MailboxTargetOptions): Promise<MailboxClient> {
  lowMemoryRuntime();
  return mailboxTargetClient(ctx, o);
}

/**
 * Up to this many bytes a message is held in memory, so a server's 429 or 503
 * with Retry-After can be waited out and the message sent again; a larger one
 * is streamed (and such an answer fails with exit 3).
 */
export const RESENDABLE_BYTES = 8 * 1024 * 1024;

/** A stream read into memory when it ends within `limit` bytes; else a stream of everything, read ahead included. */
async function bufferedUpTo(stream: Readable, limit: number): Promise<Uint8Array | AsyncIterable<Uint8Array>> {
  const it = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let size = 0;
  while (size <= limit) {
    const n = await it.next();
    if (n.done) return Buffer.concat(head, size);
    head.push(n.value);
    size += n.value.length;
  }
  return (async function* () {
    yield* head;
    for (let n = await it.next(); !n.done; n = await it.next()) yield n.value;
  })();
}

/** The message body to upload: a file (checked before any request) or stdin; a small one in memory (see RESENDABLE_BYTES). */
export async function inputBody(ctx: Context, file: string | undefined): Promise<Uint8Array | Readable | AsyncIterable<Uint8Array>> {
  if (file === undefined || file === '-') {
    if (ctx.io.stdinIsTTY) throw new UsageError('no message given: pass FILE or pipe the raw message on stdin');
    return bufferedUpTo(ctx.io.stdin, RESENDABLE_BYTES);
  }
  let s: import('node:fs').Stats;
  try {
    s = await (await import('node:fs/promises')).stat(file);
  } catch {
    throw new ValidationError(`cannot read ${file}: no such file`);
  }
  if (!s.isFile()) throw new ValidationError(`${file} is not a regular file`);
  const stream = createReadStream(file, { highWaterMark: 256 * 1024 });
  return s.size <= RESENDABLE_BYTES ? bufferedUpTo(stream, RESENDABLE_BYTES) : stream;
}

/** A file being written: a temporary sibling, renamed into place only when complete. */
export interface OutputFile {
  readonly path: string;
  readonly stream: WriteStream;
  /** Moves the finished file into place (refusing to replace one without --force). */
  commit(): Promise<void>;
  /** Removes the temporary file; the original (if any) is untouched. */
  abort(): Promise<void>;
}

/** Opens an output file; an existing one is refused up front unless `force`. */
export async function openOutputFile(path: string, force: boolean | undefined): Promise<OutputFile> {
  if (!path.trim()) throw new UsageError('--output: a file name is required (or leave --output out to write to stdout)');
  // Loaded here, not at start-up: `mailbox raw` to stdout needs neither.
  const [{ link, rename, rm, stat }, { randomBytes }] = await Promise.all([import('node:fs/promises'), import('node:crypto')]);
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) throw new ValidationError(`${path} is a directory`);
  if (existing && !force) throw new ValidationError(`${path} exists; use --force to overwrite it`);
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.part`);
  const stream = createWriteStream(tmp, { flags: 'wx', mode: 0o644, highWaterMark: 1024 * 1024 });
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', (err: NodeJS.ErrnoException) => reject(new ValidationError(`cannot write in ${dirname(path)}: ${err.code ?? err.message}`)));
  });
  return {
    path,
    stream,
    async commit() {
      if (force) return rename(tmp, path);
      try {
        await link(tmp, path); // fails if the name appeared meanwhile
      } catch (err) {
        await rm(tmp, { force: true });
        if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new ValidationError(`${path} exists; use --force to overwrite it`);
        throw err;
      }
      await rm(tmp, { force: true });
    },
    async abort() {
      stream.destroy();
      await rm(tmp, { force: true }).catch(() => undefined);
    },
  };
}

/** Transfers smaller than this never draw progress (known size), or draw only once this much has passed (unknown size). */
export const PROGRESS_MIN_BYTES = 1024 * 1024;

/**
 * A pass-through stage drawing a progress bar on stderr, throttled; only when
 * stderr is a terminal wide enough to draw on and the data does not go to that
 * terminal too (the bar would be drawn over it), and only for large transfers.
 * Returns undefined when there is nothing to draw.
 */
export function progressStage(ctx: Context, o: { total?: number; label: string; toStdout: boolean }): Transform | undefined {
  const width = ctx.io.stderrColumns;
  if (width < MIN_DRAW_COLUMNS || (o.toStdout && ctx.io.stdoutIsTTY)) return undefined;
  const total = o.total;
  if (total !== undefined && total < PROGRESS_MIN_BYTES) return undefined;
  let done = 0;
  let last = 0;
  let drawn = false;
  const startedAt = ctx.clock.monotonic();
  const draw = (final: boolean) => {
    if (done < PROGRESS_MIN_BYTES && !drawn) return;
    const now = ctx.clock.monotonic();
    if (!final && now - last < 100) return;
    last = now;
    drawn = true;
    const secs = Math.max((now - startedAt) / 1000, 0.001);
    const rate = `${fmtBytes(done / secs)}/s`;
    let line: string;
    if (total) {
      const frac = Math.min(done / total, 1);
      const bar = Math.max(0, Math.min(24, width - 40 - o.label.length));
      const fill = Math.round(frac * bar);
      line = `${o.label} ${bar ? `[${'#'.repeat(fill)}${'-'.repeat(bar - fill)}] ` : ''}${(frac * 100).toFixed(0).padStart(3)}% ${fmtBytes(done)}/${fmtBytes(total)} ${rate}`;
    } else line = `${o.label} ${fmtBytes(done)} ${rate}`;
    // Never wider than the terminal: a wrapped line cannot be redrawn in place.
    ctx.io.stderr.write(`\r\u001b[2K${line.slice(0, width - 1)}${final ? '\n' : ''}`);
  };
  return new Transform({
    transform(chunk: Buffer, _e, cb) {
      done += chunk.length;
      draw(false);
      cb(null, chunk);
    },
    flush(cb) {
      draw(true);
      cb();
    },
  });
}

export function fmtBytes(n: number): string {
  if (n < 1024) return `${Math.round(n)} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}
