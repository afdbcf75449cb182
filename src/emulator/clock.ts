/**
 * The emulator's clock: real time plus an offset tests can advance, and can
 * stop (`freeze`: time stands still but for advances, so a test as slow as
 * its machine still lands every request in one emulated minute).
 */
export class EmulatorClock {
  #offsetMs = 0;
  #frozenAt: number | undefined;
  now(): number {
    return this.#frozenAt ?? Date.now() + this.#offsetMs;
  }
  nowSec(): number {
    return Math.floor(this.now() / 1000);
  }
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('advance takes a non-negative number of milliseconds');
    if (this.#frozenAt !== undefined) this.#frozenAt += ms;
    else this.#offsetMs += ms;
  }
  /** Stops the clock where it is (true), or lets it run on from there (false). */
  freeze(on: boolean): void {
    if (on) this.#frozenAt ??= this.now();
    else if (this.#frozenAt !== undefined) {
      this.#offsetMs = this.#frozenAt - Date.now();
      this.#frozenAt = undefined;
    }
  }
  get frozen(): boolean {
    return this.#frozenAt !== undefined;
  }
  get offsetMs(): number {
    return this.#frozenAt !== undefined ? this.#frozenAt - Date.now() : this.#offsetMs;
  }
  reset(): void {
    this.#offsetMs = 0;
    this.#frozenAt = undefined;
  }
}
