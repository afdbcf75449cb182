/** What every emulated service provides to the host. */
import type { EmulatorClock } from './clock.js';
import type { Router } from './router.js';
import type { ConsoleView } from './console/types.js';

export interface EmulatorEnv {
  readonly clock: EmulatorClock;
  /** The emulator's own base URL (http://127.0.0.1:<port>), known once listening. */
  baseUrl(): string;
  /** Directory for persistent state (mailbox object store, ...). */
  readonly dataDir: string;
  /** Log line (stderr of `lanyard emulator start`, silent in tests unless asked). */
  log(line: string): void;
}

/** An admin verb: `POST /_emulator/<service>/<verb>` with a JSON body. */
export type AdminVerb = (body: Record<string, unknown>) => unknown | Promise<unknown>;

export interface EmulatorService {
  readonly name: string;
  /** Adds routes and middleware. */
  register(router: Router): void;
  /** Back to the seeded state (`POST /_emulator/reset`). */
  reset?(): void | Promise<void>;
  /** Seeded fixtures and endpoints, listed by `GET /_emulator/info`. */
  info?(): Record<string, unknown>;
  /** Admin verbs under `/_emulator/<name>/<verb>`. */
  admin?: Record<string, AdminVerb>;
  /** What the console (`/_emulator/console`) shows of it: accounts, masked credentials, sign-ins in progress, limits. */
  console?(): ConsoleView;
  /** Called on shutdown (flush state). */
  close?(): void | Promise<void>;
}

export type ServiceFactory = (env: EmulatorEnv) => EmulatorService | Promise<EmulatorService>;
