/**
 * The page loop of resumable pagination (checkpoint.ts): each page written
 * whole, the checkpoint staged before it and committed after it, and a page a
 * kill left already written at the end of the output file not written again.
 */
import type { Checkpoint, CheckpointPosition } from './checkpoint.js';

/** One fetched page: its items and the cursor of the next page (none: the listing is complete). */
export interface Page {
  items: unknown[];
  next?: string;
}

/** The output of a paged run: renders a page, writes it and resolves once it is flushed. */
export interface PageOutput {
  render(items: unknown[]): string;
  /** Writes the bytes and resolves when the output has taken them. */
  write(data: Buffer): Promise<void>;
  /** A regular file's identity and size now (undefined for a pipe or a terminal): lets a resumed run recognise a page already written. */
  fileState?(): { dev: number; ino: number; size: number } | undefined;
  /** The last `length` bytes before `size` of the output file (to compare with a re-fetched page). */
  readTail?(from: number, length: number): Promise<Buffer>;
}

export interface PagedRunResult {
  emitted: number;
  pages: number;
  /** Items of this run only. */
  emittedNow: number;
  /** Whether a saved position was resumed. */
  resumed: boolean;
  /** Bytes of a page found already written at the end of the output file (not written again). */
  skippedBytes: number;
}

/**
 * Fetches pages from `first` (or the checkpoint's saved cursor) until there is
 * no next one; writes each page whole, advancing the checkpoint after it.
 * `fetch(cursor, emptyPages)` returns the page and its checked next cursor.
 */
export async function runPages(o: {
  first: string;
  fetch: (cursor: string, emptyPages: number) => Promise<Page & { emptyPages: number }>;
  output: PageOutput;
  checkpoint?: Checkpoint;
}): Promise<PagedRunResult> {
  const saved = o.checkpoint?.saved;
  let pos: CheckpointPosition = saved ? { ...saved } : { next: o.first, emitted: 0, pages: 0, emptyPages: 0 };
  const start = pos.emitted;
  let skippedBytes = 0;
  while (pos.next !== undefined) {
    const page = await o.fetch(pos.next, pos.emptyPages);
    let data = Buffer.from(page.items.length ? o.output.render(page.items) : '');
    // Written before a kill that came ahead of the rename: the bytes are already at the end of the output file.
    if (o.checkpoint && pos.output && data.length) {
      const overlap = await outputOverlap(o.output, pos.output, data);
      skippedBytes += overlap;
      data = data.subarray(overlap);
    }
    const next: CheckpointPosition = { emitted: pos.emitted + page.items.length, pages: pos.pages + 1, emptyPages: page.emptyPages };
    if (page.next !== undefined) next.next = page.next;
    const file = o.output.fileState?.();
    if (file) next.output = { ...file, size: file.size + data.length };
    await o.checkpoint?.stage(next);
    if (data.length) await o.output.write(data);
    await o.checkpoint?.commit();
    pos = next;
  }
  return { emitted: pos.emitted, pages: pos.pages, emittedNow: pos.emitted - start, resumed: !!saved, skippedBytes };
}

/**
 * How many leading bytes of `text` (a page about to be written) are already at
 * the end of the output file past the recorded size: the page was written
 * (wholly or in part) just before a kill that came ahead of the checkpoint's
 * rename. Only for the same regular file (device and inode); 0 otherwise.
 */
export async function outputOverlap(out: PageOutput, recorded: { dev: number; ino: number; size: number }, want: Buffer): Promise<number> {
  const now = out.fileState?.();
  if (!now || !out.readTail || now.dev !== recorded.dev || now.ino !== recorded.ino || now.size <= recorded.size) return 0;
  const extra = now.size - recorded.size;
  if (extra > want.length) return 0;
  const tail = await out.readTail(recorded.size, extra);
  return tail.equals(want.subarray(0, extra)) ? extra : 0;
}
