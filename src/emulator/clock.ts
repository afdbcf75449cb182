/** The emulator's clock: real time plus an offset tests can advance. */
export class EmulatorClock {
  #offsetMs = 0;
  now(): number {
    return Date.now() + this.#offsetMs;
  }
  nowSec(): number {
    return Math.floor(this.now() / 1000);
  }
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('advance takes a non-negative number of milliseconds');
    this.#offsetMs += ms;
  }
  get offsetMs(): number {
    return this.#offsetMs;
  }
  reset(): void {
    this.#offsetMs = 0;
  }
}
