/**
 * The bridge's view of the session's sign-ins (bridge.ts): whether a refresh
 * or authorization is under way, and for how long a host request waiting on
 * it has seen it last, so the request is answered before the host times out.
 */
import type { Clock } from '../deps.js';

export const OVERDUE = Symbol('overdue');

/** Whether the session is refreshing or authorizing, and for how long a waiting request has seen it do so. */
export class AuthWatch {
  busy = 0;
  /** Requests waiting for a refresh or authorization to start; each leaves the set when it starts or the request ends. */
  readonly #waiting = new Set<() => void>();
  #ended = new AbortController();
  #idle = deferred();

  constructor(private readonly deps: { readonly clock: Clock }) {}

  begin(): () => void {
    if (this.busy++ === 0) {
      this.#ended = new AbortController();
      this.#idle = deferred();
      for (const started of this.#waiting) started();
      this.#waiting.clear();
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      if (--this.busy === 0) {
        this.#ended.abort();
        this.#idle.resolve();
      }
    };
  }

  idle(): Promise<void> {
    return this.busy ? this.#idle.promise : Promise.resolve();
  }

  /** Resolves to OVERDUE once one refresh or authorization has lasted `ms` while the caller waited; rejects when `stop` aborts. */
  async overdue(ms: number, stop: AbortSignal): Promise<typeof OVERDUE> {
    for (;;) {
      if (!this.busy) await this.#started(stop);
      stop.throwIfAborted();
      const ended = this.#ended.signal;
      try {
        await this.deps.clock.sleep(ms, AbortSignal.any([ended, stop]));
        return OVERDUE;
      } catch (err) {
        if (stop.aborted) throw err;
      }
    }
  }

  /**
   * Until a refresh or authorization starts, or `stop` aborts. Not a callback on one long-lived promise per
   * request: an agent's thousand calls would each leave theirs there (and the request with it) until a sign-in.
   */
  #started(stop: AbortSignal): Promise<void> {
    if (stop.aborted) return Promise.reject(stop.reason);
    return new Promise<void>((resolve, reject) => {
      const started = () => {
        stop.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        this.#waiting.delete(started);
        reject(stop.reason);
      };
      stop.addEventListener('abort', onAbort, { once: true });
      this.#waiting.add(started);
    });
  }
}

function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
