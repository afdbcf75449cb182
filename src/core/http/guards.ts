/** Client-side guards: a concurrency gate and the pacing gate of content-creating requests. */
import type { Clock } from '../deps.js';
import { CancelledError } from '../errors.js';
import type { PacingStore, PacingWindow } from './pacing.js';

/** At most `max` holders at once; others queue in FIFO order. */
export class ConcurrencyGate {
  #active = 0;
  readonly #queue: Array<() => void> = [];
  constructor(readonly max: number) {}

  get active(): number {
    return this.#active;
  }

  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.#active >= this.max) {
      await new Promise<void>((resolve, reject) => {
        const entry = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          const i = this.#queue.indexOf(entry);
          if (i >= 0) this.#queue.splice(i, 1);
          reject(new CancelledError());
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        this.#queue.push(entry);
      });
    } else {
      this.#active++;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#queue.shift();
      if (next) next();
      else this.#active--;
    };
  }
}

/**
 * Paces acquisitions per key (an API origin) through a pacing store, which may
 * be shared with other processes; waits on the clock while every window is
 * full, telling `onWait` first.
 */
export class PacingGate {
  constructor(
    private readonly store: PacingStore,
    private readonly windows: readonly PacingWindow[],
    private readonly clock: Clock,
  ) {}

  async acquire(key: string, signal?: AbortSignal, onWait?: (waitMs: number) => void): Promise<void> {
    for (;;) {
      if (signal?.aborted) throw new CancelledError();
      const waitMs = await this.store.reserve(key, this.clock.now(), this.windows);
      if (waitMs <= 0) return;
      onWait?.(waitMs);
      await this.clock.sleep(waitMs, signal);
    }
  }
}
