/**
 * The cross-process lock of the credential and config stores: a lock
 * directory per name in `<config dir>/locks`, taken with proper-lockfile
 * (mkdir is atomic on every file system; a lock whose holder died goes stale
 * and is taken over). Writers read, change and write under it; a refresh
 * re-reads the store after taking it, so a token another process refreshed
 * meanwhile is used instead of spending the refresh token twice.
 */
import { join } from 'node:path';
import { makeDir, makeDirProblem } from '../../shared/make-dir.js';
import { CredentialStoreError } from '../errors.js';

export interface CredentialLock {
  /** Runs `f` while holding the lock `name` (waits for another holder, in this or another process; `o.waitMs`: this long at most, else the lock's own wait). */
  withLock<T>(name: string, f: () => Promise<T>, o?: { readonly waitMs?: number }): Promise<T>;
}

/** No lock: for in-memory stores (tests) and read-only use. */
export const noLock: CredentialLock = { withLock: (_name, f) => f() };

/**
 * This process's callers one at a time per name, and no other process: the
 * lock of a context with no config directory (profiles and stores handed in).
 */
export class ProcessLock implements CredentialLock {
  readonly #queues = new Map<string, Promise<unknown>>();

  withLock<T>(name: string, f: () => Promise<T>): Promise<T> {
    const prev = this.#queues.get(name) ?? Promise.resolve();
    const run = prev.then(f, f);
    const tail = run.catch(() => undefined);
    this.#queues.set(name, tail);
    void tail.then(() => {
      if (this.#queues.get(name) === tail) this.#queues.delete(name);
    });
    return run;
  }
}

export interface FileLockOptions {
  /** A lock not touched for this long belongs to a dead process and is taken over. */
  staleMs?: number;
  /** How long to wait for the lock before failing. */
  waitMs?: number;
}

export class FileLock implements CredentialLock {
  readonly #dir: string;
  readonly #o: Required<FileLockOptions>;
  /** In-process queue per name: proper-lockfile's mkdir lock is not re-entrant across this process's own callers. */
  readonly #local = new ProcessLock();

  constructor(configDir: string, o: FileLockOptions = {}) {
    this.#dir = join(configDir, 'locks');
    this.#o = { staleMs: o.staleMs ?? 20_000, waitMs: o.waitMs ?? 60_000 };
  }

  withLock<T>(name: string, f: () => Promise<T>, o: { readonly waitMs?: number } = {}): Promise<T> {
    const waitMs = o.waitMs ?? this.#o.waitMs;
    return this.#local.withLock(name, () => this.#locked(name, f, waitMs));
  }

  async #locked<T>(name: string, f: () => Promise<T>, waitMs: number): Promise<T> {
    const lockfile = await import('proper-lockfile');
    try {
      makeDir(this.#dir, 0o700);
    } catch (err) {
      // A file where the directory (or one of its parents) should be, a place with no room for one (/proc): the store's error, naming the path.
      throw new CredentialStoreError(`cannot create the lock directory ${this.#dir}: ${makeDirProblem(err)}`, { cause: err });
    }
    const target = join(this.#dir, name.replace(/[^A-Za-z0-9._-]/g, '_'));
    // Retries with a capped backoff up to about waitMs in all.
    const maxTimeout = 200;
    let release: () => Promise<void>;
    try {
      release = await lockfile.lock(target, {
        realpath: false,
        lockfilePath: `${target}.lock`,
        stale: this.#o.staleMs,
        update: Math.max(1000, Math.floor(this.#o.staleMs / 4)),
        retries: { retries: Math.ceil(waitMs / maxTimeout), minTimeout: 10, maxTimeout, factor: 1.5, randomize: true },
        onCompromised: () => undefined,
      });
    } catch (err) {
      throw new CredentialStoreError(`cannot take the lock ${target}.lock: ${(err as Error).message}`, { cause: err });
    }
    try {
      return await f();
    } finally {
      await release().catch(() => undefined);
    }
  }
}
