/** The real clock (timers live in the CLI layer, never in core). */
import type { Clock } from '../core/deps.js';
import { CancelledError } from '../core/errors.js';

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
