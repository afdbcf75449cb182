/**
 * The emulator's in-process API (`lanyard-cli/emulator`): every emulated
 * service on one loopback port inside your own program (tests, examples),
 * steered through its admin API (`/_emulator/...`), closed when done.
 *
 * @packageDocumentation
 */
import type { EmulatorClock } from './clock.js';
import { startEmulator as start, type EmulatorOptions } from './server.js';

export type { EmulatorClock, EmulatorOptions };

/** A running emulator. */
export interface Emulator {
  /** Base URL of every service, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  readonly port: number;
  /** Where persistent state (the mail store) lives. */
  readonly dataDir: string;
  /** The emulator's clock: real time plus an offset that `advance()` moves. */
  readonly clock: EmulatorClock;
  /** Stops listening and flushes state. */
  close(): Promise<void>;
}

/** Starts the emulator on 127.0.0.1 (a free port unless `port` is given). */
export function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  return start(options);
}
