/**
 * The real clock: the adapter a program hands to the core as its {@link Clock}.
 * The core's logic never reads the time or sets a timer itself; it asks the
 * clock it was given (tests give a fake one).
 */
import type { Clock } from './deps.js';
import type { TimerClock } from './http/watch.js';
import { CancelledError } from './errors.js';

/** Wall clock `Date.now()`, monotonic `performance.now()`, `sleep` with `setTimeout` (cancelled by an `AbortSignal`). */
export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(new CancelledError());
      const t = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      const onAbort = () => {
        clearTimeout(t);
        reject(new CancelledError());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

/**
 * The timers of the bounds of an HTTP exchange (its deadline, a body's
 * silence): one never keeps the process alive.
 */
export const boundTimers: TimerClock = {
  after: (ms, fire) => {
    const t = setTimeout(fire, Math.max(0, ms));
    t.unref();
    return { clear: () => clearTimeout(t), refresh: () => void t.refresh() };
  },
};
