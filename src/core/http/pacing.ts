/**
 * Pacing of content-creating requests (POST, PATCH, PUT, DELETE): the hosting
 * service's secondary limit allows 80 a minute and 500 an hour, and a shell
 * loop or a CI matrix is many short processes, so the admissions are counted
 * in a store every process shares. `MemoryPacing` keeps them in this process
 * (a library user without a state directory); `FilePacing` keeps them in one
 * small JSON file beside the cross-process lock, changed only under it.
 *
 * The file holds origins and times, nothing else:
 * `{"version": 1, "admitted": {"https://api.example.com": [epoch ms, …]}}`.
 */
import type { CredentialLock } from '../credentials/lock.js';
import type { RateLimitState } from '../ratelimit/headers.js';

/** At most `limit` admissions in any window of `windowMs`. */
export interface PacingWindow {
  readonly limit: number;
  readonly windowMs: number;
}

/**
 * How much longer than the code host's windows Lanyard counts its admissions,
 * ms: the server counts a request when it arrives, Lanyard when it admits it,
 * and between the two lie the request's latency (a new connection, a TLS
 * handshake, a loaded machine) and, in a fleet, the machines' clock skew. An
 * admission a window after another may arrive less than a window after it,
 * by the difference of their latencies plus the skew; counting each window
 * this much longer keeps that difference from being refused. Costs 1/60 of
 * the minute's rate (80 in 61 s).
 */
export const DEFAULT_PACING_MARGIN_MS = 1000;

/** The spec's content-creating limits: 80 a minute, 500 an hour. */
export const CONTENT_CREATING_WINDOWS: readonly PacingWindow[] = [
  { limit: 80, windowMs: 60_000 },
  { limit: 500, windowMs: 3_600_000 },
];

/** `80 a minute, 500 an hour`, `20 in 10 s`: the windows in words. */
export function describeWindows(windows: readonly PacingWindow[]): string {
  const per = (ms: number) => (ms === 60_000 ? 'a minute' : ms === 3_600_000 ? 'an hour' : `in ${ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`}`);
  return windows.map((w) => `${w.limit} ${per(w.windowMs)}`).join(', ');
}

export interface PacingStore {
  /**
   * Admits one request for `key` at `now` when every window has room (and
   * records it): resolves 0. Otherwise records nothing and resolves the ms
   * until the oldest admission that blocks leaves its window.
   */
  reserve(key: string, now: number, windows: readonly PacingWindow[], identity?: string): Promise<number>;
}

/**
 * Who is paced together by a shared store: an API origin and a one-way
 * digest of the credential's identity (see {@link credentialIdentity}), never
 * the credential itself.
 */
export interface PacingScope {
  readonly origin: string;
  readonly identity: string;
}

/** A primary budget another process (or this one) saw, and how old that knowledge is. */
export interface SharedBudget {
  resource: string;
  limit: number;
  remaining: number;
  used: number;
  /** Window reset, UTC epoch seconds (the server's clock). */
  reset: number;
  /** When it was seen, epoch ms (the seeing process's clock). */
  seenAt: number;
  /** `now - seenAt` when read, ms. */
  ageMs: number;
}

/**
 * What a store shared by several machines adds to {@link PacingStore}
 * (`RedisPacing`): `reserve` receives the credential's identity as its
 * fourth argument, and the fleet also shares secondary-limit holds and the
 * last primary budget seen. The HTTP client uses these when its store has them.
 */
export interface SharedPacingStore extends PacingStore {
  /**
   * Ms until any request of `scope` may be sent: a secondary-limit hold in
   * force, and, with `resource`, that resource's budget seen spent until its
   * reset. 0: now.
   */
  held(scope: PacingScope, now: number, resource?: string): Promise<number>;
  /** Holds every request of `scope` until `untilMs` (a secondary-limit `retry-after`); a later hold in force stays. */
  hold(scope: PacingScope, untilMs: number, now: number): Promise<void>;
  /** Records a primary budget seen in a response's headers; `skewMs`: the server's clock minus this one's (its `Date` header). */
  recordBudget(scope: PacingScope, state: RateLimitState, now: number, skewMs?: number): Promise<void>;
  /** The budgets seen by the fleet for `scope`; undefined when the shared store cannot be used. */
  budgets(scope: PacingScope, now: number): Promise<SharedBudget[] | undefined>;
  /** A re-check interval for waits: another machine may change what this one waits for. */
  readonly recheckMs: number;
  /** Ends the connection (after the writes under way, within a bounded wait). */
  close(): Promise<void>;
}

/** Whether a pacing store is shared by a fleet (has holds and budgets). */
export function isSharedPacing(store: PacingStore): store is SharedPacingStore {
  return typeof (store as Partial<SharedPacingStore>).held === 'function';
}

/** The label of the keyed digest: a new label, new keys (never mixed with another scheme's). */
const IDENTITY_LABEL = 'lanyard pacing identity v1';

/**
 * A one-way digest naming a credential in a shared store: HMAC-SHA-256 keyed
 * with a fixed label over the origin and the credential's scheme and secret,
 * the first 128 bits in hex. The same token on every machine gives the same
 * identity; the identity gives nothing back of the token. A request without
 * a credential is `anonymous`.
 */
export async function credentialIdentity(origin: string, material: string | undefined): Promise<string> {
  if (!material) return 'anonymous';
  const { createHmac } = await import('node:crypto');
  return createHmac('sha256', IDENTITY_LABEL).update(`${origin}\n${material}`).digest('hex').slice(0, 32);
}

/**
 * The admission rule over one key's sorted times: the times to keep and the
 * wait (0: admitted, `now` appended). Times older than the longest window, and
 * times ahead of `now` by more than it (a clock set back), are dropped.
 */
export function admit(times: readonly number[], now: number, windows: readonly PacingWindow[]): { times: number[]; waitMs: number } {
  const span = Math.max(0, ...windows.map((w) => w.windowMs));
  const kept = times.filter((t) => Number.isFinite(t) && t > now - span && t <= now + span).sort((a, b) => a - b);
  let waitMs = 0;
  for (const w of windows) {
    const inWindow = kept.filter((t) => t > now - w.windowMs);
    if (inWindow.length >= w.limit) waitMs = Math.max(waitMs, inWindow[inWindow.length - w.limit]! + w.windowMs - now);
  }
  if (waitMs === 0) kept.push(now);
  // Only the most recent `limit` times of the longest window can ever block.
  const keep = Math.max(0, ...windows.map((w) => w.limit));
  return { times: kept.slice(-keep), waitMs };
}

/** Admissions counted in this process only. */
export class MemoryPacing implements PacingStore {
  readonly #times = new Map<string, number[]>();

  async reserve(key: string, now: number, windows: readonly PacingWindow[]): Promise<number> {
    const r = admit(this.#times.get(key) ?? [], now, windows);
    this.#times.set(key, r.times);
    return r.waitMs;
  }
}

export interface FilePacingOptions {
  /** Told once when the shared file cannot be used and pacing falls back to this process alone. */
  onFallback?: (reason: string) => void;
}

/**
 * Admissions shared by every process through one file, read and rewritten
 * (atomically, mode 0600) under the lock `pacing`. A missing or unreadable
 * file starts the count afresh; a file or lock that cannot be used at all
 * falls back to counting in this process, said once through `onFallback`.
 */
export class FilePacing implements PacingStore {
  #fallback: MemoryPacing | undefined;

  constructor(
    readonly path: string,
    private readonly lock: CredentialLock,
    private readonly o: FilePacingOptions = {},
  ) {}

  async reserve(key: string, now: number, windows: readonly PacingWindow[]): Promise<number> {
    if (this.#fallback) return this.#fallback.reserve(key, now, windows);
    try {
      return await this.lock.withLock('pacing', async () => {
        const state = await this.#read();
        const r = admit(state[key] ?? [], now, windows);
        if (r.waitMs > 0) return r.waitMs;
        state[key] = r.times;
        const { writeFileAtomic } = await import('../fs/atomic-file.js');
        await writeFileAtomic(this.path, `${JSON.stringify({ version: 1, admitted: state })}\n`, 0o600);
        return 0;
      });
    } catch (err) {
      this.#fallback = new MemoryPacing();
      this.o.onFallback?.(`cannot use ${this.path} (${(err as Error).message}); pacing content-creating requests in this process only`);
      return this.#fallback.reserve(key, now, windows);
    }
  }

  async #read(): Promise<Record<string, number[]>> {
    const { readFile } = await import('node:fs/promises');
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw err;
    }
    try {
      const data = JSON.parse(text) as { version?: unknown; admitted?: unknown };
      const admitted = data?.admitted;
      if (data?.version !== 1 || !admitted || typeof admitted !== 'object' || Array.isArray(admitted)) return {};
      const out: Record<string, number[]> = {};
      for (const [k, v] of Object.entries(admitted)) if (Array.isArray(v)) out[k] = v.filter((t): t is number => typeof t === 'number');
      return out;
    } catch {
      return {}; // a torn or foreign file: start the count afresh (it only ever under-counts one window)
    }
  }
}
