/**
 * Pacing of content-creating requests (POST, PATCH, PUT, DELETE): the hosting
 * service's secondary limit allows 80 a minute and 500 an hour per
 * credential, and a shell loop or a CI matrix is many short processes, so the
 * admissions — and the secondary limits' holds (`retry-after`) — are counted
 * in a store every process shares. `MemoryPacing` keeps them in this process
 * (a library user without a state directory); `FilePacing` keeps them in one
 * small JSON file beside the cross-process lock, changed only under it;
 * `RedisPacing` (redis-pacing.ts) in a server a fleet shares. All three key
 * them alike: the API origin and a one-way digest of the credential.
 *
 * The file holds those keys and times, nothing else:
 * `{"version": 1, "admitted": {"https://api.example.com:<digest>": [epoch ms, …]}, "hold": {"…:<digest>": epoch ms}}`.
 */
import { readFileSync } from 'node:fs';
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
   * Admits one request of the credential `identity` (see
   * {@link credentialIdentity}; none: `anonymous`) to the API origin `key`
   * at `now` when every window has room and no hold is in force (and records
   * it): resolves 0. Otherwise records nothing and resolves the ms until the
   * oldest admission that blocks leaves its window (or the hold ends).
   */
  reserve(key: string, now: number, windows: readonly PacingWindow[], identity?: string): Promise<number>;
  /**
   * Moves the admission `reserve` made at `admittedAt` to `answeredAt`, when
   * the answer came (or the exchange failed): the server counted the request
   * when it arrived, somewhere between the two, so the later time is the one
   * the windows count from. Optional; a failure loses only the move.
   */
  restamp?(key: string, admittedAt: number, answeredAt: number, identity?: string): Promise<void>;
}

/**
 * A store that also remembers secondary-limit holds (`retry-after`) for
 * everyone that shares it: `MemoryPacing` (this process), `FilePacing`
 * (every process of a config directory), `RedisPacing` (a fleet). A hold
 * delays admissions too: `reserve` waits it out.
 */
export interface HoldingPacingStore extends PacingStore {
  /**
   * Ms until any request of `scope` may be sent: a secondary-limit hold in
   * force, and (a shared store) with `resource`, that resource's budget seen
   * spent until its reset. 0: now.
   */
  held(scope: PacingScope, now: number, resource?: string): Promise<number>;
  /** Holds every request of `scope` until `untilMs` (a secondary limit's `retry-after`); a later hold in force stays. */
  hold(scope: PacingScope, untilMs: number, now: number): Promise<void>;
  /**
   * Optional, cheap and synchronous: false when no hold of any credential is
   * in force at `origin`, so a read need not name its credential (a digest)
   * to be let through.
   */
  mayHold?(origin: string, now: number): boolean;
}

/** Whether a pacing store remembers secondary-limit holds. */
export function holdsPacing(store: PacingStore): store is HoldingPacingStore {
  const s = store as Partial<HoldingPacingStore>;
  return typeof s.held === 'function' && typeof s.hold === 'function';
}

/**
 * Who is paced together, in every store: an API origin and a one-way
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
 * (`RedisPacing`): besides admissions and holds, the fleet shares the last
 * primary budget seen. The HTTP client uses these when its store has them.
 */
export interface SharedPacingStore extends HoldingPacingStore {
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
  return holdsPacing(store) && typeof (store as Partial<SharedPacingStore>).budgets === 'function';
}

/**
 * The name of a scope's record in every store — the file's and this
 * process's keys, and the Redis keys under their prefix: the API origin and
 * the credential's identity. An origin has no `:` after its port and an
 * identity none at all, so the last `:` parts them.
 */
export function pacingKey(scope: PacingScope): string {
  return `${scope.origin}:${scope.identity}`;
}

/** A record's name as `pacingKey` makes it (not a key of the per-origin files of earlier versions). */
const SCOPED_KEY = /:(?:[0-9a-f]{32}|anonymous)$/;

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

/** A hold's wait at `now`: ms until `until`, 0 when none or over. */
const holdWait = (until: number | undefined, now: number) => (until !== undefined && until > now ? until - now : 0);

/** Moves one admission at `from` to `to` in a key's sorted times (none there: unchanged). */
function moveTime(times: number[] | undefined, from: number, to: number): boolean {
  const i = times?.lastIndexOf(from) ?? -1;
  if (!times || i < 0 || to <= from) return false;
  times[i] = to;
  times.sort((a, b) => a - b);
  return true;
}

/** Admissions and holds counted in this process only. */
export class MemoryPacing implements HoldingPacingStore {
  readonly #times = new Map<string, number[]>();
  readonly #holds = new Map<string, number>();

  async reserve(key: string, now: number, windows: readonly PacingWindow[], identity = 'anonymous'): Promise<number> {
    const k = pacingKey({ origin: key, identity });
    const held = holdWait(this.#holds.get(k), now);
    const r = admit(this.#times.get(k) ?? [], now, windows);
    if (held > 0) return Math.max(held, r.waitMs);
    this.#times.set(k, r.times);
    return r.waitMs;
  }

  async restamp(key: string, admittedAt: number, answeredAt: number, identity = 'anonymous'): Promise<void> {
    moveTime(this.#times.get(pacingKey({ origin: key, identity })), admittedAt, answeredAt);
  }

  async held(scope: PacingScope, now: number): Promise<number> {
    return holdWait(this.#holds.get(pacingKey(scope)), now);
  }

  async hold(scope: PacingScope, untilMs: number, now: number): Promise<void> {
    const k = pacingKey(scope);
    if (untilMs > now && untilMs > (this.#holds.get(k) ?? 0)) this.#holds.set(k, Math.ceil(untilMs));
  }

  mayHold(origin: string, now: number): boolean {
    for (const [k, until] of this.#holds) if (until > now && k.startsWith(`${origin}:`)) return true;
    return false;
  }
}

export interface FilePacingOptions {
  /** Told once when the shared file cannot be used and pacing falls back to this process alone. */
  onFallback?: (reason: string) => void;
}

/** What `pacing.json` holds: admission times and hold ends (epoch ms), by `pacingKey`. */
interface PacingFile {
  admitted: Record<string, number[]>;
  hold: Record<string, number>;
}

/**
 * The file's records still of use at `now`: admissions within `spanMs` (the
 * longest window), holds not over. Others go at the next write — a rotated
 * token's, an earlier version's per-origin record once its times are old.
 */
function prune(state: PacingFile, now: number, spanMs: number): void {
  for (const [k, times] of Object.entries(state.admitted)) if (!times.some((t) => t > now - spanMs)) delete state.admitted[k];
  for (const [k, until] of Object.entries(state.hold)) if (!(until > now)) delete state.hold[k];
}

/** The file's text as records; a torn or foreign file is none (it only ever under-counts one window). */
function parsePacingFile(text: string): PacingFile {
  const out: PacingFile = { admitted: {}, hold: {} };
  try {
    const data = JSON.parse(text) as { version?: unknown; admitted?: unknown; hold?: unknown };
    if (data?.version !== 1) return out;
    const obj = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? Object.entries(v) : []);
    for (const [k, v] of obj(data.admitted)) if (Array.isArray(v)) out.admitted[k] = v.filter((t): t is number => typeof t === 'number');
    for (const [k, v] of obj(data.hold)) if (typeof v === 'number' && Number.isFinite(v)) out.hold[k] = v;
  } catch {
    // start afresh
  }
  return out;
}

/**
 * Admissions and holds shared by every process through one file, read and
 * rewritten (atomically, mode 0600) under the lock `pacing`; read without
 * the lock where only a hold is looked up (a rename never shows half a file).
 * Records are keyed as the shared store's are (`pacingKey`: the origin
 * and the credential's digest), so one credential's writes never pace
 * another's. Records of the per-origin files of earlier versions count for
 * no credential; they are kept, as every record is, until no window can see
 * them. A missing or unreadable file starts the count afresh; a file or lock
 * that cannot be used at all falls back to this process, said once through
 * `onFallback`.
 */
export class FilePacing implements HoldingPacingStore {
  #fallback: MemoryPacing | undefined;

  constructor(
    readonly path: string,
    private readonly lock: CredentialLock,
    private readonly o: FilePacingOptions = {},
  ) {}

  async reserve(key: string, now: number, windows: readonly PacingWindow[], identity = 'anonymous'): Promise<number> {
    if (this.#fallback) return this.#fallback.reserve(key, now, windows, identity);
    const k = pacingKey({ origin: key, identity });
    const span = Math.max(0, ...windows.map((w) => w.windowMs));
    try {
      return await this.#change(now, span, (state) => {
        const held = holdWait(state.hold[k], now);
        const r = admit(state.admitted[k] ?? [], now, windows);
        if (held > 0 || r.waitMs > 0) return Math.max(held, r.waitMs);
        state.admitted[k] = r.times;
        return 0;
      });
    } catch (err) {
      return this.#fallBack(err).reserve(key, now, windows, identity);
    }
  }

  async restamp(key: string, admittedAt: number, answeredAt: number, identity = 'anonymous'): Promise<void> {
    if (this.#fallback) return this.#fallback.restamp(key, admittedAt, answeredAt, identity);
    const k = pacingKey({ origin: key, identity });
    // Never pruned here: the windows are the reservation's business.
    await this.#change(answeredAt, Number.POSITIVE_INFINITY, (state) => (moveTime(state.admitted[k], admittedAt, answeredAt) ? 0 : -1)).catch(
      () => undefined, // the admission stays at its time, as it was counted
    );
  }

  async held(scope: PacingScope, now: number): Promise<number> {
    if (this.#fallback) return this.#fallback.held(scope, now);
    return holdWait(this.#peek()?.hold[pacingKey(scope)], now);
  }

  async hold(scope: PacingScope, untilMs: number, now: number): Promise<void> {
    if (this.#fallback) return this.#fallback.hold(scope, untilMs, now);
    const k = pacingKey(scope);
    const until = Math.ceil(untilMs);
    try {
      await this.#change(now, Number.POSITIVE_INFINITY, (state) => {
        if (!(until > now && until > (state.hold[k] ?? 0))) return -1;
        state.hold[k] = until;
        return 0;
      });
    } catch (err) {
      await this.#fallBack(err).hold(scope, untilMs, now);
    }
  }

  mayHold(origin: string, now: number): boolean {
    if (this.#fallback) return this.#fallback.mayHold(origin, now);
    const hold = this.#peek()?.hold;
    return !!hold && Object.entries(hold).some(([k, until]) => until > now && k.startsWith(`${origin}:`) && SCOPED_KEY.test(k));
  }

  /**
   * Reads the file under the lock, applies `f` (0: write the result back,
   * anything else: leave the file as it is) and resolves what `f` did.
   */
  #change(now: number, spanMs: number, f: (state: PacingFile) => number): Promise<number> {
    return this.lock.withLock('pacing', async () => {
      const state = this.#read();
      const result = f(state);
      if (result !== 0) return result;
      prune(state, now, spanMs);
      const { writeFileAtomic } = await import('../fs/atomic-file.js');
      const hold = Object.keys(state.hold).length > 0 ? { hold: state.hold } : {};
      await writeFileAtomic(this.path, `${JSON.stringify({ version: 1, admitted: state.admitted, ...hold })}\n`, 0o600);
      return 0;
    });
  }

  #fallBack(err: unknown): MemoryPacing {
    this.#fallback = new MemoryPacing();
    this.o.onFallback?.(`cannot use ${this.path} (${(err as Error).message}); pacing content-creating requests in this process only`);
    return this.#fallback;
  }

  /** The file as it is, without the lock; undefined when it cannot be read (a hold looked up: none). */
  #peek(): PacingFile | undefined {
    try {
      return this.#read();
    } catch {
      return undefined;
    }
  }

  /** The file's records (none when it is missing); a synchronous read: the file is small, and a read needs no promise API at start-up. */
  #read(): PacingFile {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { admitted: {}, hold: {} };
      throw err;
    }
    return parsePacingFile(text);
  }
}
