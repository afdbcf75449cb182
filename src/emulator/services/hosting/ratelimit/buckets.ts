/**
 * Fixed-window buckets keyed by caller and resource, on the emulator clock.
 * A window opens on first use and closes `windowSec` later; admin overrides
 * can set what is left and when the window resets.
 */
import type { HostingBucketView } from '../../../../shared/hosting-ratelimit.js';

export interface Bucket {
  caller: string;
  resource: string;
  limit: number;
  windowSec: number;
  used: number;
  /** Window reset, epoch seconds. */
  resetAt: number;
  /** Set by an admin override: remaining stays this low until the reset, whatever the limit. */
  pinned?: boolean;
}

interface PendingOverride {
  remaining: number;
  resetAt: number;
}

export class BucketStore {
  readonly #buckets = new Map<string, Bucket>();
  /** Overrides for buckets that do not exist yet (no caller named), per resource. */
  readonly #defaults = new Map<string, PendingOverride>();

  constructor(private readonly nowSec: () => number) {}

  clear(): void {
    this.#buckets.clear();
    this.#defaults.clear();
  }

  /** The caller's bucket, renewed when its window has passed. */
  get(caller: string, resource: string, limit: number, windowSec: number): Bucket {
    const id = `${resource}|${caller}`;
    const now = this.nowSec();
    let b = this.#buckets.get(id);
    if (b && now >= b.resetAt) b = undefined;
    if (!b) {
      b = { caller, resource, limit, windowSec, used: 0, resetAt: now + windowSec };
      const d = this.#defaults.get(resource);
      if (d && now < d.resetAt) Object.assign(b, { used: Math.max(0, limit - d.remaining), resetAt: d.resetAt, pinned: true });
      this.#buckets.set(id, b);
    }
    // The caller's credential decides the limit (a higher-limit app shares the user's used count).
    if (!b.pinned) b.limit = limit;
    return b;
  }

  /** Remaining without counting (0 when the limit is 0). */
  static remaining(b: Bucket): number {
    return Math.max(0, b.limit - b.used);
  }

  /** Sets what is left and when it resets, for one bucket. */
  override(b: Bucket, remaining: number | undefined, resetInSeconds: number | undefined): void {
    if (remaining !== undefined) b.used = Math.max(0, b.limit - remaining);
    if (resetInSeconds !== undefined) b.resetAt = this.nowSec() + resetInSeconds;
    b.pinned = true;
  }

  /** Applies an override to every bucket of a resource, and to buckets created before its reset. */
  overrideAll(resource: string, remaining: number, resetInSeconds: number): Bucket[] {
    const resetAt = this.nowSec() + resetInSeconds;
    this.#defaults.set(resource, { remaining, resetAt });
    const hit: Bucket[] = [];
    for (const b of this.#buckets.values()) {
      if (b.resource !== resource) continue;
      b.used = Math.max(0, b.limit - remaining);
      b.resetAt = resetAt;
      b.pinned = true;
      hit.push(b);
    }
    return hit;
  }

  list(): HostingBucketView[] {
    const now = this.nowSec();
    return [...this.#buckets.values()].filter((b) => now < b.resetAt && b.limit > 0).map((b) => view(b));
  }
}

export function view(b: Bucket): HostingBucketView {
  return { caller: b.caller, resource: b.resource, limit: b.limit, used: b.used, remaining: BucketStore.remaining(b), reset: b.resetAt };
}

/** A counter over a fixed window (secondary limits). */
export class WindowCounter {
  #start = 0;
  #count = 0;
  constructor(private readonly windowMs: number) {}

  /** Adds `n` if that stays within `limit`; returns false (and adds nothing) otherwise. */
  take(now: number, n: number, limit: number): boolean {
    if (now - this.#start >= this.windowMs) {
      this.#start = now;
      this.#count = 0;
    }
    if (this.#count + n > limit) return false;
    this.#count += n;
    return true;
  }

  /** Whether `n` more would stay within `limit` (counts nothing). */
  fits(now: number, n: number, limit: number): boolean {
    if (now - this.#start >= this.windowMs) return n <= limit;
    return this.#count + n <= limit;
  }

  /** What the current window holds (0 once it has closed). */
  used(now: number): number {
    return now - this.#start >= this.windowMs ? 0 : this.#count;
  }

  /** Seconds until the current window closes (at least 1). */
  secondsLeft(now: number): number {
    return Math.max(1, Math.ceil((this.#start + this.windowMs - now) / 1000));
  }
}
