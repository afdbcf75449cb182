/**
 * The tools of a stateless server (2026-07-28) as far as a tool call needs
 * them: the input schema that says which `Mcp-Param-*` headers the call
 * carries. A `tools/list` answer (a client's own, or a lookup's) is kept for
 * the `ttlMs` it names — none without one, as the revision's caching rules say
 * — and forgotten when the server says its list changed. A call that finds no
 * fresh schema reads the list until it finds the tool; calls of the same tool
 * meanwhile share that lookup, which is abandoned once none waits any more.
 */
import type { Clock } from '../deps.js';

export type Tool = { inputSchema?: unknown };
/** The tools a lookup read, by name; undefined: the server needs the handshake. */
export type Listing = ReadonlyMap<string, Tool> | undefined;

/** At most this many schemas are kept (a server with more is read again when they are dropped). */
const MAX_KEPT = 10_000;

/** A lookup under way: its listing, how to abandon it, how many calls wait for it. */
type Lookup = { readonly promise: Promise<Listing>; readonly ac: AbortController; waiters: number; readonly key: string | undefined };

export class ToolCache {
  readonly #tools = new Map<string, { tool: Tool; until: number }>();
  /** The lookups under way, by tool name (bounded by the calls in flight). */
  readonly #lookups = new Map<string, Lookup>();

  constructor(private readonly clock: Clock) {}

  /** Keeps the tools of a `tools/list` answer (one page) for its `ttlMs`; returns them by name. */
  keep(result: unknown): Map<string, Tool> {
    const r = (result ?? {}) as { tools?: unknown; ttlMs?: unknown };
    const out = new Map<string, Tool>();
    if (!Array.isArray(r.tools)) return out;
    for (const t of r.tools as Array<{ name?: unknown; inputSchema?: unknown } | null>) {
      if (t && typeof t.name === 'string') out.set(t.name, { inputSchema: t.inputSchema });
    }
    const ttl = typeof r.ttlMs === 'number' && Number.isFinite(r.ttlMs) ? r.ttlMs : 0;
    if (ttl > 0) {
      if (this.#tools.size + out.size > MAX_KEPT) this.#tools.clear();
      const until = this.clock.now() + ttl;
      for (const [name, tool] of out) this.#tools.set(name, { tool, until });
    }
    return out;
  }

  /** Forgets every tool kept (`notifications/tools/list_changed`). */
  forget(): void {
    this.#tools.clear();
  }

  /** The schema of the tool named while it is fresh. */
  fresh(name: unknown): Tool | undefined {
    if (typeof name !== 'string') return undefined;
    const k = this.#tools.get(name);
    if (!k) return undefined;
    if (k.until > this.clock.now()) return k.tool;
    this.#tools.delete(name);
    return undefined;
  }

  /**
   * The tool named: fresh from the cache, else from the listing `read` makes
   * (with the lookup's own signal, reading until it finds `name`), one lookup
   * shared by the calls of that tool meanwhile. `{}`: not listed; undefined:
   * the server needs the handshake.
   */
  async find(name: unknown, read: (name: unknown, signal: AbortSignal) => Promise<Listing>, signal?: AbortSignal): Promise<{ tool?: Tool } | undefined> {
    const kept = this.fresh(name);
    if (kept) return { tool: kept };
    signal?.throwIfAborted();
    const key = typeof name === 'string' ? name : undefined;
    let lookup = key === undefined ? undefined : this.#lookups.get(key);
    if (!lookup) {
      const ac = new AbortController();
      const made: Lookup = { promise: read(name, ac.signal), ac, waiters: 0, key };
      void made.promise.then(
        () => this.#done(made),
        () => this.#done(made),
      );
      if (key !== undefined) this.#lookups.set(key, made);
      lookup = made;
    }
    const listing = await this.#join(lookup, signal);
    return listing && { tool: key === undefined ? undefined : listing.get(key) };
  }

  #done(lookup: Lookup): void {
    if (lookup.key !== undefined && this.#lookups.get(lookup.key) === lookup) this.#lookups.delete(lookup.key);
  }

  /** Waits for a lookup; a waiter whose signal fires leaves it, and the last to leave ends it. */
  #join(lookup: Lookup, signal: AbortSignal | undefined): Promise<Listing> {
    lookup.waiters++;
    if (!signal) return lookup.promise;
    return new Promise<Listing>((resolve, reject) => {
      const onAbort = () => {
        reject(signal.reason);
        if (--lookup.waiters === 0) {
          this.#done(lookup);
          lookup.ac.abort(signal.reason);
        }
      };
      signal.addEventListener('abort', onAbort, { once: true });
      lookup.promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }
}
