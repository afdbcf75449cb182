/**
 * A FakeClock linked to an in-process emulator's clock: it starts at the
 * emulator's time (plus `offsetMs`, a skew between the two) and every advance
 * — every sleep of the command, when `autoAdvance` — moves the emulator's
 * clock as far, so intervals, expiries and retry-after pass at once on both
 * sides. `coupled = false` leaves the emulator's clock standing (the client's
 * own clock alone decides); `onSleep` runs before each sleep.
 */
import type { RunningEmulator } from '../../src/emulator/index.js';
import { FakeClock } from './clock.js';

export class LinkedClock extends FakeClock {
  onSleep: ((ms: number) => unknown) | undefined;
  coupled = true;

  constructor(
    readonly emu: RunningEmulator,
    o: { autoAdvance?: boolean; offsetMs?: number } = {},
  ) {
    super(emu.now() + (o.offsetMs ?? 0), { autoAdvance: o.autoAdvance });
  }

  override advance(ms: number): void {
    super.advance(ms);
    if (this.coupled && ms > 0) this.emu.advance(ms);
  }

  override async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    await this.onSleep?.(ms);
    return super.sleep(ms, signal);
  }
}
