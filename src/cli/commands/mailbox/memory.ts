/**
 * Bounded memory for large transfers. Two process-level tweaks, applied by
 * the mailbox commands before the HTTP pool starts:
 * - `--liftoff-only`: undici's HTTP parser is WebAssembly; V8's optimising
 *   tier roughly doubles its code memory (≈35 MiB) for no gain on a CLI run.
 * - a young-generation GC every few MiB streamed: socket read buffers are
 *   external memory that V8 otherwise lets grow by ~30 MiB before collecting.
 * Both are best effort: if the runtime refuses, nothing changes but memory.
 */
import type { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gcFn: ((o?: { type?: string }) => void) | undefined;
let applied = false;

export function lowMemoryRuntime(): void {
  if (applied) return;
  applied = true;
  try {
    setFlagsFromString('--liftoff-only');
    setFlagsFromString('--expose-gc');
    gcFn = runInNewContext('gc') as typeof gcFn;
  } catch {
    gcFn = undefined;
  }
}

/** Observes `stream` (no extra pipeline hop) and collects short-lived buffers every `everyBytes`. */
export function guardMemory(stream: Readable, everyBytes = Number(process.env.XGC ?? 4) * 1024 * 1024): void {
  if (!gcFn || everyBytes === 0) return;
  let since = 0;
  stream.on('data', (chunk: Buffer) => {
    since += chunk.length;
    if (since < everyBytes || !gcFn) return;
    since = 0;
    try {
      gcFn({ type: 'minor' });
    } catch {
      gcFn = undefined;
    }
  });
}

let pages = 0;

/**
 * After each page of a long listing: a young-generation collection (the
 * page's parsed JSON is garbage once printed), and every tenth page a full
 * one, so what got promoted does not pile up until V8's own threshold.
 */
export function collectAfterPage(): void {
  try {
    // gc() without options is a full collection (Node 20 reads {type: 'major'} as minor).
    if (++pages % 10 === 0) gcFn?.();
    else gcFn?.({ type: 'minor' });
  } catch {
    gcFn = undefined;
  }
}
