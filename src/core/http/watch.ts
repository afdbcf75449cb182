/**
 * The bounds of an exchange once it is under way — its deadline, and the
 * silence of a body being received — on a clock: the process's timers
 * (unreferenced: a bound never keeps a program alive), or a test's.
 */

/**
 * What a bound needs of a clock: its monotonic time, and a timer that is
 * cleared without an AbortController (aborting one per exchange filled
 * Node 20's old generation on the bridge's hot path). The process's:
 * `boundTimers` in system-clock.ts.
 */
export interface TimerClock {
  /** Monotonic milliseconds. */
  monotonic(): number;
  /** Calls `fire` after `ms`, unless the function it returns is called first. */
  after(ms: number, fire: () => void): () => void;
}

/**
 * Calls `over` once when `ms` pass without a touch(): a silence when it is
 * touched as data comes, a deadline when it never is. 0: never. clear()
 * disarms it. One timer at a time, armed again only when it fires early (a
 * touch per chunk costs a reading of the clock, no timer).
 */
export class Watch {
  #last: number;
  #cancel?: () => void;

  constructor(
    private readonly clock: TimerClock,
    private readonly ms: number,
    private readonly over: () => void,
  ) {
    this.#last = clock.monotonic();
    if (ms > 0) this.#cancel = clock.after(ms, this.#check);
  }

  touch(): void {
    this.#last = this.clock.monotonic();
  }

  clear(): void {
    this.#cancel?.();
    this.#cancel = undefined;
  }

  readonly #check = (): void => {
    const quiet = this.clock.monotonic() - this.#last;
    if (quiet < this.ms) {
      this.#cancel = this.clock.after(this.ms - quiet, this.#check);
      return;
    }
    this.#cancel = undefined;
    this.over();
  };
}
