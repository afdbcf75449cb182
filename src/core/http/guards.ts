/** Client-side guards: a concurrency gate and a sliding-window rate gate. */
import type { Clock } from '../deps.js';
import { CancelledError } from '../errors.js';

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

/** At most `limit` acquisitions in any window of `windowMs`; waits on the clock. */
export class SlidingWindowGate {
  readonly #stamps: number[] = [];
  constructor(
    readonly limit: number,
    readonly windowMs: number,
    private readonly clock: Clock,
  ) {}

  async acquire(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      while (this.#stamps.length && this.#stamps[0]! <= now - this.windowMs) this.#stamps.shift();
      if (this.#stamps.length < this.limit) {
        this.#stamps.push(now);
        return;
      }
      await this.clock.sleep(this.#stamps[0]! + this.windowMs - now, signal);
    }
  }
}
