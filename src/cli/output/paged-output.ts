/**
 * `--checkpoint FILE` for paged listings (`api --paginate`, `mailbox list
 * --all`): the stdout side of the core's page loop, and the notices a resumed
 * or already completed run prints on stderr.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Context } from '../context.js';
import type { Output } from './output.js';
import { UsageError } from '../errors/usage-error.js';
import { Checkpoint, type CheckpointRun } from '../../core/api/checkpoint.js';
import type { PageOutput, PagedRunResult } from '../../core/api/page-run.js';

/** Pages as NDJSON (or what --jq/--template make of each item), each page in one write, flushed before the checkpoint moves. */
export function ndjsonPageOutput(ctx: Context): PageOutput {
  const out = ctx.io.stdout;
  const fd = (out as { fd?: unknown }).fd;
  const regular = () => {
    if (typeof fd !== 'number') return undefined;
    try {
      const st = fstatSync(fd);
      return st.isFile() ? { dev: st.dev, ino: st.ino, size: st.size } : undefined;
    } catch {
      return undefined;
    }
  };
  return {
    // On a terminal through the sanitiser (a file or a pipe gets the bytes the checkpoint counts).
    render: (items) => ctx.output.forStdout(items.map((i) => ctx.output.line(i)).join('')),
    write: (data) => new Promise((res, rej) => void out.write(data, (err) => (err ? rej(err) : res()))),
    fileState: regular,
    async readTail(from, length) {
      // stdout is open for writing only: read the same file through /proc (Linux); elsewhere nothing is recognised.
      const buf = Buffer.alloc(length);
      let rfd: number | undefined;
      try {
        rfd = openSync(`/proc/self/fd/${String(fd)}`, 'r');
        const n = readSync(rfd, buf, 0, length, from);
        return buf.subarray(0, n);
      } catch {
        return Buffer.alloc(0);
      } finally {
        if (rfd !== undefined) closeSync(rfd);
      }
    },
  };
}

/** `--checkpoint` needs a line-per-item output that two runs can be concatenated into. */
export function requireLineOutput(output: Output, command: string): void {
  if (output.format !== 'ndjson')
    throw new UsageError(`--checkpoint needs --ndjson (${command}): the output of an interrupted and a resumed run is joined line by line`);
}

/** The output format a checkpoint records: NDJSON, and the --jq/--template applied to each item (the run's output says which). */
export function shapedFormat(output: Output): string {
  return output.shapedBy === undefined ? 'ndjson' : `ndjson+${output.shapedBy}`;
}

/** Opens FILE for this run (a missing file starts fresh); says on stderr when it resumes or when the listing was already complete. */
export async function openCheckpoint(
  ctx: Context,
  file: string,
  run: CheckpointRun,
  checkCursor?: (cursor: string) => string | undefined,
): Promise<Checkpoint> {
  if (!file.trim()) throw new UsageError('--checkpoint needs a file name');
  const clock = ctx.clock;
  const cp = await Checkpoint.open(resolve(file), run, { now: () => clock.now(), name: file, checkCursor });
  const s = cp.saved;
  if (s && s.next === undefined)
    ctx.io.err(
      `checkpoint ${file}: this listing completed at ${cp.completedAt ?? 'an earlier run'} (${s.emitted} items); nothing more to print — remove the file to list again`,
    );
  else if (s) ctx.io.err(`checkpoint ${file}: resuming after ${s.emitted} items (${s.pages} pages)`);
  return cp;
}

/** The stderr line when a page was found already written at the end of the output file. */
export function reportCheckpoint(ctx: Context, file: string, r: PagedRunResult): void {
  if (r.skippedBytes)
    ctx.io.err(
      `checkpoint ${file}: ${r.skippedBytes} bytes of the first page were already at the end of the output (written just before the previous run was killed); not written again`,
    );
}
