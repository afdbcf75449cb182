/** Client-side guards: a concurrency gate and the pacing gate of content-creating requests. */
import type { Clock } from '../deps.js';
import { CancelledError } from '../errors.js';
import { isSharedPacing, type PacingScope, type PacingStore, type PacingWindow } from './pacing.js';

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
 * full, telling `onWait` first (and again when the wait grows). A store shared
 * by a fleet is asked again every `recheckMs`: another machine may hold every
 * request back meanwhile, or its admissions may leave the window sooner.
 */
export class PacingGate {
  constructor(
    private readonly store: PacingStore,
    private readonly windows: readonly PacingWindow[],
    private readonly clock: Clock,
  ) {}

  /** One content-creating admission for `key` (of the credential `identity`, for a shared store). */
  acquire(key: string, signal?: AbortSignal, onWait?: (waitMs: number) => void, identity?: string): Promise<void> {
    return this.#wait((now) => this.store.reserve(key, now, this.windows, identity), signal, onWait);
  }

  /** Waits while a shared store holds `scope` back (a secondary limit; with `resource`, its budget spent). */
  held(scope: PacingScope, resource: string | undefined, signal?: AbortSignal, onWait?: (waitMs: number) => void): Promise<void> {
    const store = this.store;
    if (!isSharedPacing(store)) return Promise.resolve();
    return this.#wait((now) => store.held(scope, now, resource), signal, onWait);
  }

  async #wait(ask: (now: number) => Promise<number>, signal?: AbortSignal, onWait?: (waitMs: number) => void): Promise<void> {
    const recheckMs = isSharedPacing(this.store) ? this.store.recheckMs : Number.POSITIVE_INFINITY;
    let told = 0;
    for (;;) {
      if (signal?.aborted) throw new CancelledError();
      const now = this.clock.now();
      const waitMs = await ask(now);
      if (waitMs <= 0) return;
      if (now + waitMs > told + 1000) onWait?.(waitMs);
      told = Math.max(told, now + waitMs);
      await this.clock.sleep(Math.min(waitMs, recheckMs), signal);
    }
  }
}
