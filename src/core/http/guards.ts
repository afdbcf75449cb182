/** Client-side guards: a concurrency gate and the pacing gate of content-creating requests. */
import type { Clock } from '../deps.js';
import { CancelledError, RateLimitError } from '../errors.js';
import { beyondWaitBound, type RateLimitPolicy, waitWords } from '../ratelimit/policy.js';
import { describeWindows, holdsPacing, isSharedPacing, type PacingScope, type PacingStore, type PacingWindow } from './pacing.js';

/**
 * The bound of a pacing wait: undefined to wait `waitMs` for `origin`, or the
 * error to fail with instead (`held`: a secondary limit's hold rather than the windows).
 */
export type PacingBound = (waitMs: number, origin: string, held: boolean) => Error | undefined;

/**
 * Pacing waits under the rate-limit policy's bound (`wait`, `maxWaitMs`,
 * `serverWaitMs`), as a server's `Retry-After` is: a longer one fails at once
 * with a RateLimitError of kind `pacing` (exit 3 in the CLI) naming the wait,
 * with the remedy `longer-wait`. `windows` are the stated ones (for the
 * words); `marginMs`, counted on top of them, is not held against the bound.
 */
export function pacingBound(policy: RateLimitPolicy, windows: readonly PacingWindow[], marginMs: number, clock: Clock): PacingBound {
  return (waitMs, origin, held) => {
    const beyond = beyondWaitBound(waitMs, policy, marginMs);
    if (!beyond) return undefined;
    const what = held
      ? `requests to ${origin} are held by the Lanyard processes pacing with this credential (a secondary limit's retry-after, or a budget seen spent)`
      : `content-creating requests to ${origin} are paced (${describeWindows(windows)})`;
    const err = new RateLimitError(
      `${what}: the wait (${waitWords(waitMs)}) exceeds the longest wait allowed (${waitWords(beyond.boundMs)})`,
      'pacing',
      clock.now() + waitMs,
    );
    err.remedy = { kind: 'longer-wait', waitMs, waitingAllowsMs: beyond.waitingAllowsMs };
    return err;
  };
}

/** At most `max` holders at once; others queue in FIFO order. */
export class ConcurrencyGate {
  #active = 0;
  readonly #queue: Array<() => void> = [];
  constructor(readonly max: number) {}

  get active(): number {
    return this.#active;
  }

  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.#active >= this.max) {
      await new Promise<void>((resolve, reject) => {
        const entry = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          const i = this.#queue.indexOf(entry);
          if (i >= 0) this.#queue.splice(i, 1);
          reject(new CancelledError());
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        this.#queue.push(entry);
      });
    } else {
      this.#active++;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#queue.shift();
      if (next) next();
      else this.#active--;
    };
  }
}

/**
 * Paces acquisitions per key (an API origin) through a pacing store, which may
 * be shared with other processes; waits on the clock while every window is
 * full, telling `onWait` first (and again when the wait grows); a wait
 * beyond `bound` throws its error instead, admitting nothing. A store shared
 * by a fleet is asked again every `recheckMs`: another machine may hold every
 * request back meanwhile, or its admissions may leave the window sooner.
 */
export class PacingGate {
  constructor(
    private readonly store: PacingStore,
    private readonly windows: readonly PacingWindow[],
    private readonly clock: Clock,
    private readonly bound?: PacingBound,
  ) {}

  /** One content-creating admission for `key` (of the credential `identity`); resolves the time it was admitted at. */
  acquire(key: string, signal?: AbortSignal, onWait?: (waitMs: number) => void, identity?: string): Promise<number> {
    return this.#wait(key, false, (now) => this.store.reserve(key, now, this.windows, identity), signal, onWait);
  }

  /**
   * The admission of `acquire` at `admittedAt` counts from `answeredAt`
   * instead: the answer came then, so the server had the request by then.
   * Never fails.
   */
  async answered(key: string, admittedAt: number, answeredAt: number, identity?: string): Promise<void> {
    await this.store.restamp?.(key, admittedAt, answeredAt, identity).catch(() => undefined);
  }

  /** Waits while the store holds `scope` back (a secondary limit; a shared store, with `resource`: its budget spent). */
  async held(scope: PacingScope, resource: string | undefined, signal?: AbortSignal, onWait?: (waitMs: number) => void): Promise<void> {
    const store = this.store;
    if (!holdsPacing(store)) return;
    await this.#wait(scope.origin, true, (now) => store.held(scope, now, resource), signal, onWait);
  }

  /** Asks until `ask` answers 0 (resolves the time it did), waiting between within the bound. */
  async #wait(key: string, held: boolean, ask: (now: number) => Promise<number>, signal?: AbortSignal, onWait?: (waitMs: number) => void): Promise<number> {
    const recheckMs = isSharedPacing(this.store) ? this.store.recheckMs : Number.POSITIVE_INFINITY;
    let told = 0;
    for (;;) {
      if (signal?.aborted) throw new CancelledError();
      const now = this.clock.now();
      const waitMs = await ask(now);
      if (waitMs <= 0) return now;
      const tooLong = this.bound?.(waitMs, key, held);
      if (tooLong) throw tooLong;
      if (now + waitMs > told + 1000) onWait?.(waitMs);
      told = Math.max(told, now + waitMs);
      await this.clock.sleep(Math.min(waitMs, recheckMs), signal);
    }
  }
}
