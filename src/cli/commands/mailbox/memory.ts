/**
 * Bounded memory for large transfers. Two process-level tweaks, applied by
 * the mailbox commands before the HTTP pool starts:
 * - `--liftoff-only`: set when undici's WebAssembly HTTP parser carried the
 *   listings (V8's optimising tier doubled its code memory, ≈35 MiB). Requests
 *   now go through node:http, so the only WebAssembly a mailbox command may
 *   run is the `--jq` filter's; the flag is kept for it, unmeasured since.
 * - a young-generation GC whenever spent buffers of a transfer pass 16 MiB:
 *   socket read buffers are external memory that V8 otherwise lets grow by
 *   ~30–60 MiB before collecting.
 * Both are best effort: if the runtime refuses, nothing changes but memory.
 */
import type { Readable } from 'node:stream';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type GcFn = (o?: { type?: string }) => void;
/** undefined: not made yet; null: unavailable. */
let gcFn: GcFn | null | undefined = null;
let applied = false;

export function lowMemoryRuntime(): void {
  if (applied) return;
  applied = true;
  try {
    setFlagsFromString('--liftoff-only');
    setFlagsFromString('--expose-gc');
    gcFn = undefined;
  } catch {
    gcFn = null;
  }
}

/** The gc() of a fresh context (where --expose-gc installs it), made on first need: a small transfer never pays for it. */
function collect(o?: { type?: string }): void {
  if (gcFn === null) return;
  try {
    gcFn ??= runInNewContext('gc') as GcFn;
    gcFn(o);
  } catch {
    gcFn = null;
  }
}

/**
 * Observes `stream` (no extra pipeline hop): every `everyBytes`, if more than
 * `maxBuffers` of external memory (array buffers, live or awaiting collection) is held, collects the
 * young generation (where spent socket buffers are). A forced collection every
 * few MiB instead costs ~4× the GC time for ~8 MiB less peak RSS.
 */
export function guardMemory(stream: Readable, everyBytes = 1024 * 1024, maxBuffers = 16 * 1024 * 1024): void {
  if (gcFn === null) return;
  let since = 0;
  stream.on('data', (chunk: Buffer) => {
    since += chunk.length;
    if (since < everyBytes) return;
    since = 0;
    // V8's external memory (array buffers) - not process.memoryUsage(), which reads /proc each call.
    if (getHeapStatistics().external_memory > maxBuffers) collect({ type: 'minor' });
  });
}

/**
 * After page `page` (1, 2, …) of a long listing: a young-generation
 * collection (the page's parsed JSON is garbage once printed), and every
 * tenth page a full one, so what got promoted does not pile up until V8's
 * own threshold. The listing counts its pages (no count kept here).
 */
export function collectAfterPage(page: number): void {
  // gc() without options is a full collection (Node 20 reads {type: 'major'} as minor).
  if (page % 10 === 0) collect();
  else collect({ type: 'minor' });
}
