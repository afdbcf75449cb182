/**
 * The bounds of an exchange once it is under way — its deadline, and the
 * silence of a body being received — on a clock: the process's timers
 * (unreferenced: a bound never keeps a program alive), or a test's.
 */

/** A timer of a {@link TimerClock}. */
export interface BoundTimer {
  /** Disarms it. */
  clear(): void;
  /** Starts its time again from now (armed again if it had fired). */
  refresh(): void;
}

/**
 * What a bound needs of a clock: a timer that is started again without a
 * new one and cleared without an AbortController (aborting one per exchange
 * filled Node 20's old generation on the bridge's hot path), and no reading
 * of the time (the first `performance.now()` of a process costs a
 * millisecond of start-up). The process's: `boundTimers` in system-clock.ts.
 */
export interface TimerClock {
  /** Calls `fire` after `ms`. */
  after(ms: number, fire: () => void): BoundTimer;
}

/**
 * Calls `over` once when `ms` pass without a touch(): a silence when it is
 * touched as data comes, a deadline when it never is. 0: never. clear()
 * disarms it. One timer, started again by each touch.
 */
export class Watch {
  #timer?: BoundTimer;

  constructor(clock: TimerClock, ms: number, over: () => void) {
    if (ms > 0)
      this.#timer = clock.after(ms, () => {
        this.#timer = undefined;
        over();
      });
  }

  touch(): void {
    this.#timer?.refresh();
  }

  clear(): void {
    this.#timer?.clear();
    this.#timer = undefined;
  }
}
