/**
 * Pacing shared by a fleet through a Redis-protocol server (Redis, Valkey):
 * every process on every machine that names the same server and sends with
 * the same credential counts its content-creating admissions in one place,
 * holds back while a secondary limit's `retry-after` runs, and sees the last
 * primary budget another one saw.
 *
 * Each update is one server-side Lua script (EVALSHA, EVAL when the server
 * has not seen it yet), so two machines never admit the same last slot. The
 * keys name the API origin and a one-way digest of the credential
 * (`credentialIdentity`); the values are times and budget numbers:
 *
 * - `lanyard:pacing:v1:<origin>:<identity>:admitted`: a sorted set of
 *   admission times (epoch ms; members are random ids);
 * - `…:hold`: the epoch ms until which every request waits;
 * - `…:budget`: a hash from resource (`core`, `search`…) to
 *   `{"limit","remaining","used","reset","seenAt"}`.
 *
 * Every call waits a bounded time (`timeoutMs`) for the server. A server
 * down, slow or refusing the password makes the store fall back to its
 * `fallback` store (pacing on this machine), told once through `onFallback`;
 * with `required`, the call fails instead (a `network_error`), before the
 * request is sent. The client library (ioredis) is loaded on first use only.
 */
import type { Clock } from '../deps.js';
import { ConfigError, LanyardError } from '../errors.js';
import type { RateLimitState } from '../ratelimit/headers.js';
import { BUDGET, HELD, HOLD, RESERVE, RESTAMP } from './redis-scripts.js';
import {
  holdsPacing,
  MemoryPacing,
  pacingKey,
  type PacingScope,
  type PacingStore,
  type PacingWindow,
  type SharedBudget,
  type SharedPacingStore,
} from './pacing.js';

export interface RedisPacingOptions {
  /** `redis://[user[:password]@]host[:port][/db]` or `rediss://…` (TLS). */
  url: string;
  /** The password when the URL has none (`LANYARD_PACING_PASSWORD`). Never shown in a message. */
  password?: string;
  /** The clock that bounds each call to the server. */
  clock: Clock;
  /** The longest wait for the server in one call (connecting included), ms; default 2000. */
  timeoutMs?: number;
  /** Where pacing goes when the server cannot be used (default: this process's memory). */
  fallback?: PacingStore;
  /** Told once, in one line without any secret, when pacing falls back to `fallback`. */
  onFallback?: (reason: string) => void;
  /** Fail (a `network_error`) instead of falling back: the request is then not sent. */
  required?: boolean;
  /** The hint of that error (how to turn the requirement off, say). */
  requiredHint?: string;
  /** Key prefix; default `lanyard:pacing:v1:`. */
  keyPrefix?: string;
  /** How often a waiting request asks the server again, ms; default 2000. */
  recheckMs?: number;
}

/** The 'redis:'/'rediss:' URL, checked; a one-line error otherwise (no secret in it). */
export function parsePacingUrl(url: string): URL {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ConfigError('the shared pacing URL is not a URL (expected redis://host:port or rediss://host:port)');
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:')
    throw new ConfigError(`the shared pacing URL must start with redis:// or rediss://, not ${u.protocol}//`);
  if (!u.hostname) throw new ConfigError('the shared pacing URL has no host');
  try {
    decodeURIComponent(u.username);
    decodeURIComponent(u.password);
  } catch {
    throw new ConfigError('the shared pacing URL has a bad percent-escape in its user name or password (write % as %25)');
  }
  if (u.pathname && u.pathname !== '/' && !/^\/\d{1,2}$/.test(u.pathname))
    throw new ConfigError('the shared pacing URL path must be a database number (redis://host:port/0)');
  return u;
}

/** The server as it may be shown: scheme, host, port and database, no user or password. */
export function describePacingUrl(u: URL): string {
  return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
}

/** The commands the scripts add to the client (ioredis defineCommand: EVALSHA, then EVAL once). */
interface PacingClient {
  lanyardReserve(admitted: string, hold: string, ...args: Array<string | number>): Promise<number>;
  lanyardRestamp(admitted: string, admittedAt: number, answeredAt: number): Promise<number>;
  lanyardHeld(hold: string, budget: string, now: number, resource: string): Promise<number>;
  lanyardHold(hold: string, untilMs: number, now: number): Promise<number>;
  lanyardBudget(budget: string, resource: string, entry: string, reset: number, remaining: number, ttlMs: number): Promise<number>;
  hgetall(key: string): Promise<Record<string, string>>;
  quit(): Promise<unknown>;
  disconnect(): void;
  /** The connection (ioredis exposes it); destroyed when the client hangs up. */
  stream?: { destroy(): void };
  connect(): Promise<void>;
}

/** Ends the connection at once, whether or not the server closes its side. */
function hangUp(c: PacingClient): void {
  c.disconnect();
  c.stream?.destroy();
}

/** What a reply is when shown: its type, never its content. */
const typeOfReply = (v: unknown) => (v === null ? 'nil' : Array.isArray(v) ? 'an array' : typeof v === 'number' ? `the number ${v}` : `a ${typeof v}`);

/** The scripts' integer reply (a wait in ms, or a flag): a finite number ≥ 0, else the store is not a pacing store. */
function waitReply(v: unknown): number {
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > MAX_WAIT_REPLY_MS)
    throw new Error(`the server answered ${typeOfReply(v)} where a wait in ms was expected`);
  return v;
}

/** HGETALL's reply: a map of strings. */
function hashReply(v: unknown): Record<string, string> {
  if (!v || typeof v !== 'object' || Array.isArray(v) || Object.values(v).some((x) => typeof x !== 'string'))
    throw new Error(`the server answered ${typeOfReply(v)} where a hash was expected`);
  return v as Record<string, string>;
}

/** The longest wait a script may answer: a day (a secondary limit's hold is minutes). */
const MAX_WAIT_REPLY_MS = 86_400_000;

/** The client library, loaded on first use (never at start-up). */
const loadIoredis = () => import('ioredis');
let ioredis: ReturnType<typeof loadIoredis> | undefined;

/** How long a budget is kept after its reset: an hour, then the window is surely over. */
const BUDGET_KEEP_MS = 3_600_000;

/**
 * Pacing, secondary-limit holds and primary budgets shared by every process
 * that names the same Redis-protocol server (Redis ≥ 6, Valkey) and sends
 * with the same credential. See the module comment for the keys and the
 * fallback.
 *
 * ```ts
 * const pacing = new RedisPacing({ url: 'redis://ci-cache:6379', password: process.env.LANYARD_PACING_PASSWORD, clock, fallback: new MemoryPacing() });
 * const http = new HttpClient({ clock, userAgent: 'my-tool', pacing });
 * // …
 * await http.close(); // closes the store's connection too
 * ```
 */
export class RedisPacing implements SharedPacingStore {
  readonly url: URL;
  /** The server without user or password, for messages. */
  readonly where: string;
  readonly recheckMs: number;
  readonly #o: RedisPacingOptions;
  readonly #timeoutMs: number;
  readonly #prefix: string;
  readonly #fallback: PacingStore;
  #client: Promise<PacingClient> | undefined;
  #down: string | undefined;
  /** The client's last 'error' event: why a connection closed (a refused password says so only there). */
  #lastError: Error | undefined;
  readonly #pending = new Set<Promise<unknown>>();
  #seq = 0;

  constructor(o: RedisPacingOptions) {
    this.#o = o;
    this.url = parsePacingUrl(o.url);
    this.where = describePacingUrl(this.url);
    this.#timeoutMs = o.timeoutMs ?? 2000;
    this.recheckMs = o.recheckMs ?? 2000;
    this.#prefix = o.keyPrefix ?? 'lanyard:pacing:v1:';
    this.#fallback = o.fallback ?? new MemoryPacing();
  }

  /** Whether the server could not be used and pacing went to the fallback store; why. */
  get fallenBack(): string | undefined {
    return this.#down;
  }

  async reserve(key: string, now: number, windows: readonly PacingWindow[], identity = 'anonymous'): Promise<number> {
    const k = this.#keys({ origin: key, identity });
    const args = windows.flatMap((w) => [w.limit, w.windowMs]);
    const member = `${now.toString(36)}-${(this.#seq++).toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
    return this.#use(
      (c) => c.lanyardReserve(k.admitted, k.hold, now, member, ...args).then(waitReply),
      () => this.#fallback.reserve(key, now, windows, identity),
    );
  }

  /** Moves this machine's admission at `admittedAt` to `answeredAt` (see PacingStore.restamp); a failure loses only the move. */
  async restamp(key: string, admittedAt: number, answeredAt: number, identity = 'anonymous'): Promise<void> {
    const k = this.#keys({ origin: key, identity });
    await this.#use(
      (c) => c.lanyardRestamp(k.admitted, admittedAt, answeredAt).then(waitReply),
      async () => this.#fallback.restamp?.(key, admittedAt, answeredAt, identity),
    ).catch(() => undefined);
  }

  held(scope: PacingScope, now: number, resource?: string): Promise<number> {
    const k = this.#keys(scope);
    const local = this.#fallback;
    return this.#use(
      (c) => c.lanyardHeld(k.hold, k.budget, now, resource ?? '').then(waitReply),
      async () => (holdsPacing(local) ? local.held(scope, now) : 0),
    );
  }

  async hold(scope: PacingScope, untilMs: number, now: number): Promise<void> {
    const k = this.#keys(scope);
    const local = this.#fallback;
    await this.#use(
      (c) => c.lanyardHold(k.hold, Math.ceil(untilMs), now).then(waitReply),
      async () => (holdsPacing(local) ? local.hold(scope, untilMs, now) : 0),
    );
  }

  recordBudget(scope: PacingScope, state: RateLimitState, now: number, skewMs = 0): Promise<void> {
    if (state.limit === undefined || state.remaining === undefined || state.reset === undefined) return Promise.resolve();
    const k = this.#keys(scope);
    const resource = state.resource ?? 'core';
    const entry = JSON.stringify({
      limit: state.limit,
      remaining: state.remaining,
      used: state.used ?? state.limit - state.remaining,
      reset: state.reset,
      seenAt: now,
      // The server's clock minus the seeing machine's: the hold until the reset is counted on the local clock.
      ...(skewMs ? { skewMs: Math.round(skewMs) } : {}),
    });
    const p = this.#use(
      (c) =>
        c
          .lanyardBudget(k.budget, resource, entry, state.reset!, state.remaining!, Math.max(0, state.reset! * 1000 - skewMs - now) + BUDGET_KEEP_MS)
          .then(waitReply),
      async () => 0,
    ).then(
      () => undefined,
      () => undefined, // a write after the answer: a failure here fails no request
    );
    this.#pending.add(p);
    void p.finally(() => this.#pending.delete(p));
    return p;
  }

  async budgets(scope: PacingScope, now: number): Promise<SharedBudget[] | undefined> {
    const k = this.#keys(scope);
    const raw = await this.#use(
      (c) => c.hgetall(k.budget).then(hashReply),
      async () => undefined,
    );
    if (!raw) return undefined;
    const out: SharedBudget[] = [];
    for (const [resource, text] of Object.entries(raw)) {
      if (!/^[a-z][a-z0-9_]{0,63}$/.test(resource)) continue;
      let b: Record<string, unknown>;
      try {
        b = JSON.parse(text) as Record<string, unknown>;
      } catch {
        continue;
      }
      const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);
      const [limit, remaining, used, reset, seenAt] = [n(b.limit), n(b.remaining), n(b.used), n(b.reset), n(b.seenAt)];
      if (limit === undefined || remaining === undefined || reset === undefined || seenAt === undefined) continue;
      out.push({ resource, limit, remaining, used: used ?? limit - remaining, reset, seenAt, ageMs: Math.max(0, now - seenAt) });
    }
    return out.sort((a, b) => a.resource.localeCompare(b.resource));
  }

  /** Waits (bounded) for the budget writes under way, then ends the connection. */
  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    if (!client) return;
    await this.#bounded(Promise.allSettled([...this.#pending])).catch(() => undefined);
    const c = await client.catch(() => undefined);
    if (!c) return;
    // A server that answers QUIT and keeps the connection would keep this process alive: the socket is ended here.
    await this.#bounded(c.quit()).catch(() => undefined);
    hangUp(c);
  }

  #keys(scope: PacingScope): { admitted: string; hold: string; budget: string } {
    const base = `${this.#prefix}${pacingKey(scope)}:`;
    return { admitted: `${base}admitted`, hold: `${base}hold`, budget: `${base}budget` };
  }

  /** Runs `op` on the server within the bound; else falls back (or, required, fails). */
  async #use<T>(op: (c: PacingClient) => Promise<T>, local: () => Promise<T>): Promise<T> {
    if (this.#down !== undefined && !this.#o.required) return local();
    try {
      // Loading the client library is this machine's work, not the server's: outside the bound.
      const lib = await (ioredis ??= loadIoredis());
      const c = await this.#bounded((this.#client ??= this.#connect(lib.Redis)));
      return await this.#bounded(op(c));
    } catch (err) {
      const why = this.#reason(/Connection is closed/.test((err as Error)?.message ?? '') && this.#lastError ? this.#lastError : err);
      const client = this.#client;
      this.#client = undefined;
      void client?.then(hangUp).catch(() => undefined);
      if (this.#o.required) {
        throw new LanyardError('network_error', `shared pacing at ${this.where} cannot be used (${why}); it is required, so the request is not sent`, {
          hint: this.#o.requiredHint,
        });
      }
      if (this.#down === undefined) {
        this.#down = why;
        this.#o.onFallback?.(`shared pacing at ${this.where} cannot be used (${why}); pacing on this machine only`);
      }
      return local();
    }
  }

  /** One line, never the password. */
  #reason(err: unknown): string {
    let text = (err as Error)?.message ?? String(err);
    for (const secret of [this.#o.password, decodeURIComponent(this.url.password)]) if (secret) text = text.split(secret).join('***');
    text = text.replace(/[\r\n\u0000]+/g, ' ').trim();
    return text.length > 200 ? `${text.slice(0, 200)}…` : text || 'no answer';
  }

  /** `p`, or an error after timeoutMs on the clock. */
  async #bounded<T>(p: Promise<T>): Promise<T> {
    const stop = new AbortController();
    const late = this.#o.clock.sleep(this.#timeoutMs, stop.signal).then(
      () => {
        throw new Error(`no answer within ${this.#timeoutMs} ms`);
      },
      () => undefined as never,
    );
    try {
      return await Promise.race([p, late]);
    } finally {
      stop.abort();
    }
  }

  async #connect(Redis: Awaited<ReturnType<typeof loadIoredis>>['Redis']): Promise<PacingClient> {
    const u = this.url;
    const host = u.hostname.replace(/^\[|\]$/g, '');
    const client = new Redis({
      host,
      port: u.port ? Number(u.port) : 6379,
      db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
      ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
      ...(u.password ? { password: decodeURIComponent(u.password) } : this.#o.password ? { password: this.#o.password } : {}),
      // The name checked against the certificate is the host; it goes out as
      // the TLS server name (SNI) only when it is a name: RFC 6066 forbids an
      // IP address there (Node 20 and 24 warn on stderr, DEP0123; 26 refuses).
      // (node:net is loaded here, not by an import: the settings import this module at start-up.)
      ...(u.protocol === 'rediss:' ? { tls: (await import('node:net')).isIP(host) ? {} : { servername: host } } : {}),
      lazyConnect: true,
      connectTimeout: this.#timeoutMs,
      commandTimeout: this.#timeoutMs,
      maxRetriesPerRequest: 0,
      // Reconnecting is the next process's business: this one falls back.
      retryStrategy: () => null,
      // hangUp destroys the socket itself. ioredis's own wait for it to close (2 s by default) is armed on a
      // socket that may have closed already (a refused connection), and kept the process alive 2 s after its output.
      disconnectTimeout: 0,
      // The ready check (INFO) is where a server wanting a password says NOAUTH.
      enableReadyCheck: true,
      connectionName: 'lanyard-pacing',
    });
    // Errors are answered through the commands that fail; an 'error' event without a listener would be printed.
    this.#lastError = undefined;
    client.on('error', (err: Error) => (this.#lastError = err));
    client.defineCommand('lanyardReserve', { numberOfKeys: 2, lua: RESERVE });
    client.defineCommand('lanyardRestamp', { numberOfKeys: 1, lua: RESTAMP });
    client.defineCommand('lanyardHeld', { numberOfKeys: 2, lua: HELD });
    client.defineCommand('lanyardHold', { numberOfKeys: 1, lua: HOLD });
    client.defineCommand('lanyardBudget', { numberOfKeys: 1, lua: BUDGET });
    try {
      await client.connect();
    } catch (err) {
      client.disconnect();
      throw err;
    }
    return client as unknown as PacingClient;
  }
}
