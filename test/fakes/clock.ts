/** A clock that moves only when told: sleeps resolve as time is advanced. */
import type { Clock } from '../../src/core/deps.js';
import { CancelledError } from '../../src/core/errors.js';

export class FakeClock implements Clock {
  #now: number;
  #mono = 0;
  readonly #sleepers: Array<{ until: number; resolve: () => void }> = [];
  /** Every sleep requested, in ms (to assert waits). */
  readonly sleeps: number[] = [];
  /** When true, every sleep advances the clock by itself at once. */
  autoAdvance: boolean;

  constructor(startMs = Date.UTC(2026, 10, 22, 12, 0, 0), options: { autoAdvance?: boolean } = {}) {
    this.#now = startMs;
    this.autoAdvance = options.autoAdvance ?? true;
  }

  now(): number {
    return this.#now;
  }

  monotonic(): number {
    return this.#mono;
  }

  advance(ms: number): void {
    this.#now += ms;
    this.#mono += ms;
    for (const s of [...this.#sleepers]) {
      if (s.until <= this.#mono) {
        this.#sleepers.splice(this.#sleepers.indexOf(s), 1);
        s.resolve();
      }
    }
  }

  /** A timer on this clock (the HTTP transport's bounds: TimerClock): `fire` runs once the clock is advanced past `ms` from its start. */
  after(ms: number, fire: () => void): { clear(): void; refresh(): void } {
    const entry = { until: this.#mono + ms, resolve: fire };
    this.#sleepers.push(entry);
    const clear = () => {
      const i = this.#sleepers.indexOf(entry);
      if (i >= 0) this.#sleepers.splice(i, 1);
    };
    return {
      clear,
      refresh: () => {
        clear();
        entry.until = this.#mono + ms;
        this.#sleepers.push(entry);
      },
    };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    if (signal?.aborted) return Promise.reject(new CancelledError());
    if (this.autoAdvance) {
      this.advance(ms);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const entry = { until: this.#mono + ms, resolve };
      this.#sleepers.push(entry);
      signal?.addEventListener(
        'abort',
        () => {
          const i = this.#sleepers.indexOf(entry);
          if (i >= 0) this.#sleepers.splice(i, 1);
          reject(new CancelledError());
        },
        { once: true },
      );
    });
  }
}
