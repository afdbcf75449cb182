/** Every check of a service runs under a time limit, so a dead endpoint cannot hang the report. */
import type { Clock } from '../deps.js';
import { CancelledError } from '../errors.js';

export const DEFAULT_LIMIT_MS = 10_000;
/** Thrown when the limit is reached. */
export class LimitReached extends Error {}

/** Runs `f` with an abort signal of its own, for at most `ms` on `clock` (LimitReached after). */
export async function withinLimit<T>(clock: Clock, ms: number, outer: AbortSignal | undefined, f: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ac = new AbortController();
  const timer = new AbortController();
  const onOuter = () => ac.abort();
  outer?.addEventListener('abort', onOuter, { once: true });
  const limit = clock.sleep(ms, timer.signal).then(
    () => {
      ac.abort();
      throw new LimitReached();
    },
    () => new Promise<never>(() => {}),
  );
  try {
    return await Promise.race([f(ac.signal), limit]);
  } catch (err) {
    if (outer?.aborted) throw new CancelledError();
    if (ac.signal.aborted && !(err instanceof LimitReached)) throw new LimitReached();
    throw err;
  } finally {
    timer.abort();
    outer?.removeEventListener('abort', onOuter);
  }
}
