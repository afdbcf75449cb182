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

  /**
   * A request's watch: `promise` resolves to OVERDUE once one refresh or authorization has lasted `ms` while
   * the request waited; `cancel` (the request answered or cancelled) ends it, and the promise then never
   * settles (nothing holds it). No AbortController per request: on Node 20 aborting one at the end of each
   * call left its objects for the next full collection (docs/bridge.md, Memory); one is made only for the
   * sleep of a request that meets a sign-in.
   */
  overdue(ms: number): { readonly promise: Promise<typeof OVERDUE>; cancel(): void } {
    const w: Watcher = { cancelled: false };
    return {
      promise: this.#overdue(ms, w),
      cancel: () => {
        w.cancelled = true;
        if (w.started) this.#waiting.delete(w.started);
        w.sleep?.abort();
      },
    };
  }

  async #overdue(ms: number, w: Watcher): Promise<typeof OVERDUE> {
    for (;;) {
      // Until a refresh or authorization starts (begin() calls the waiters), or the request is over.
      if (!this.busy) await new Promise<void>((started) => this.#waiting.add((w.started = started)));
      w.started = undefined;
      if (w.cancelled) return never();
      const sleep = (w.sleep = new AbortController());
      try {
        await this.deps.clock.sleep(ms, AbortSignal.any([this.#ended.signal, sleep.signal]));
        return OVERDUE;
      } catch {
        if (w.cancelled) return never();
      } finally {
        w.sleep = undefined;
      }
    }
  }
}

/** One request's watch (AuthWatch.overdue): cancelled, its place among the waiters, the sleep under way. */
interface Watcher {
  cancelled: boolean;
  started?: () => void;
  sleep?: AbortController;
}

/** A promise that never settles: what a cancelled watch gives its caller, who raced it and has moved on. */
function never(): Promise<never> {
  return new Promise<never>(() => undefined);
}

function deferred(): { promise: Promise<void>; resolve(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
