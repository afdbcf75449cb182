/**
 * Injected faults on chosen routes: added latency, connection reset, a 5xx
 * status, or a truncated body. A fault matches `method` (or any) and a path
 * prefix, and applies `count` times (default: until cleared). Chaos: with a
 * `rate` (0 to 1) it applies to that share of the matching requests, drawn
 * from a generator seeded with `seed` (given, or chosen and reported), so a
 * run with the same seed and the same requests fails the same ones.
 */
import type { Middleware } from './router.js';

export type FaultType = 'latency' | 'reset' | 'status' | 'truncate';

export interface Fault {
  id: number;
  type: FaultType;
  method?: string;
  /** Path prefix, e.g. `/api/v3/user`. */
  path: string;
  /** latency: ms to add before answering. */
  latencyMs?: number;
  /** status: the status to answer (default 503). */
  status?: number;
  /** status: seconds for a `Retry-After` header (a 429 or 503 asking the client to come back later); absent: none. */
  retryAfter?: number;
  /** How many more requests it applies to; undefined = unlimited. */
  count?: number;
  /** Chaos: the share of matching requests it applies to (0 < rate <= 1); undefined = every one. */
  rate?: number;
  /** The seed of the chaos draws (with `rate`): the same seed, the same requests hit. */
  seed?: number;
}

/** mulberry32: a small seeded generator of numbers in [0, 1). */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class FaultTable {
  #faults: Fault[] = [];
  #next = 1;
  readonly #draws = new Map<number, () => number>();

  add(input: Record<string, unknown>): Fault {
    const type = input.type;
    if (type !== 'latency' && type !== 'reset' && type !== 'status' && type !== 'truncate') {
      throw new Error('type must be one of latency, reset, status, truncate');
    }
    if (typeof input.path !== 'string' || !input.path.startsWith('/')) throw new Error('path must be a path starting with /');
    const f: Fault = { id: this.#next++, type, path: input.path };
    if (typeof input.method === 'string' && input.method) f.method = input.method.toUpperCase();
    if (input.latencyMs !== undefined) f.latencyMs = Number(input.latencyMs);
    if (input.status !== undefined) f.status = Number(input.status);
    if (input.retryAfter !== undefined) {
      f.retryAfter = Number(input.retryAfter);
      if (!(Number.isInteger(f.retryAfter) && f.retryAfter >= 0)) throw new Error('retryAfter must be whole seconds >= 0');
    }
    if (input.count !== undefined) f.count = Number(input.count);
    if (input.rate !== undefined) {
      f.rate = Number(input.rate);
      if (!(f.rate > 0 && f.rate <= 1)) throw new Error('rate must be a share above 0 and at most 1 (e.g. 0.25)');
      f.seed = input.seed !== undefined ? Number(input.seed) : Math.floor(Math.random() * 2 ** 31);
      if (!Number.isSafeInteger(f.seed) || f.seed < 0) throw new Error('seed must be a whole number >= 0');
      this.#draws.set(f.id, seeded(f.seed));
    } else if (input.seed !== undefined) throw new Error('seed goes with rate');
    if (type === 'latency' && !(Number.isFinite(f.latencyMs) && f.latencyMs! >= 0)) throw new Error('latency needs latencyMs >= 0');
    if (type === 'status' && f.status !== undefined && !(f.status >= 400 && f.status <= 599)) throw new Error('status must be 400-599');
    this.#faults.push(f);
    return f;
  }

  list(): Fault[] {
    return [...this.#faults];
  }

  clear(): void {
    this.#faults = [];
    this.#draws.clear();
  }

  #take(method: string, path: string): Fault | undefined {
    // The first rule that applies wins; a chaos rule reached draws once (the same requests in the same order, the same draws).
    const f = this.#faults.find(
      (x) =>
        (!x.method || x.method === method) &&
        (path === x.path || path.startsWith(x.path.endsWith('/') ? x.path : x.path + '/') || (x.path.endsWith('*') && path.startsWith(x.path.slice(0, -1)))) &&
        (x.rate === undefined || this.#draws.get(x.id)!() < x.rate),
    );
    if (!f) return undefined;
    if (f.count !== undefined) {
      f.count--;
      if (f.count <= 0) this.#faults = this.#faults.filter((x) => x !== f);
    }
    return f;
  }

  middleware(): Middleware {
    return (req, res, next) => {
      const f = this.#take(req.method, req.path);
      if (!f) return next();
      req.locals.fault = { id: f.id, type: f.type, ...(f.rate !== undefined ? { chaos: true } : {}) };
      switch (f.type) {
        case 'latency':
          return new Promise((r) => setTimeout(r, f.latencyMs)).then(next);
        case 'reset':
          req.raw.socket.destroy();
          return;
        case 'status':
          res.json(
            f.status ?? 503,
            { message: `Injected fault: HTTP ${f.status ?? 503}` },
            f.retryAfter === undefined ? {} : { 'retry-after': String(f.retryAfter) },
          );
          return;
        case 'truncate': {
          // Let the handler answer, but cut the body after the headers and half of it.
          const raw = res.raw;
          const origEnd = raw.end.bind(raw);
          const origWrite = raw.write.bind(raw);
          let written = 0;
          const cut = (chunk: unknown) => {
            const buf = Buffer.isBuffer(chunk) ? chunk : typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.alloc(0);
            return buf.subarray(0, Math.max(1, Math.floor(buf.length / 2)));
          };
          raw.write = ((chunk: unknown) => {
            if (written++ === 0) origWrite(cut(chunk));
            raw.socket?.destroy();
            return true;
          }) as typeof raw.write;
          raw.end = ((chunk?: unknown) => {
            if (chunk !== undefined && typeof chunk !== 'function') origWrite(cut(chunk));
            setImmediate(() => raw.socket?.destroy());
            return raw;
          }) as typeof raw.end;
          void origEnd;
          return next();
        }
      }
    };
  }
}
