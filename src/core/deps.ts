/**
 * Ports of the core library. The core never touches process, console, timers
 * or the terminal: the CLI hands it these adapters, tests hand it fakes.
 */

export interface Clock {
  /** Wall-clock time, epoch milliseconds. */
  now(): number;
  /** Monotonic milliseconds, for measuring intervals (device-flow polling). */
  monotonic(): number;
  /** Resolves after `ms`, rejects with CancelledError when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** A secret store: the OS keychain, a 0600 file, or memory in tests. */
export interface CredentialStore {
  /** `keychain`, `file` or `memory`: shown by `auth status`. */
  readonly kind: string;
  get(account: string): Promise<string | undefined>;
  set(account: string, secret: string): Promise<void>;
  delete(account: string): Promise<boolean>;
  /** Accounts stored under Lanyard's service name. */
  list(): Promise<string[]>;
  /**
   * Every entry with its secret as read when the store was opened, if the
   * store keeps that (the keychain: one search instead of one read per
   * entry), until the store writes. For listings; a read that must see other
   * processes' latest writes uses get().
   */
  readonly opened?: ReadonlyMap<string, string>;
}

export interface Browser {
  /** Opens `url` for the user; resolves false when no browser could be started. */
  open(url: string): Promise<boolean>;
}

/** Receives `--debug` trace lines, already redacted. */
export type TraceSink = (line: string) => void;

/** Random bytes; a seam so tests can pin `state`, PKCE verifiers and so on. */
export type RandomBytes = (size: number) => Uint8Array;
