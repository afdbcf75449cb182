/**
 * Injected faults on chosen routes: added latency, connection reset, a 5xx
 * status, or a truncated body. A fault matches `method` (or any) and a path
 * prefix, and applies `count` times (default: until cleared).
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
  /** How many more requests it applies to; undefined = unlimited. */
  count?: number;
}

export class FaultTable {
  #faults: Fault[] = [];
  #next = 1;

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
    if (input.count !== undefined) f.count = Number(input.count);
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
  }

  #take(method: string, path: string): Fault | undefined {
    const f = this.#faults.find(
      (x) =>
        (!x.method || x.method === method) &&
        (path === x.path || path.startsWith(x.path.endsWith('/') ? x.path : x.path + '/') || (x.path.endsWith('*') && path.startsWith(x.path.slice(0, -1)))),
    );
    if (!f) return undefined;
    if (f.count !== undefined) {
      f.count--;
      if (f.count <= 0) this.#faults = this.#faults.filter((x) => x !== f);
    }
    return f;
  }

  middleware(): Middleware {
    return async (req, res, next) => {
      const f = this.#take(req.method, req.path);
      if (!f) return next();
      req.locals.fault = { id: f.id, type: f.type };
      switch (f.type) {
        case 'latency':
          await new Promise((r) => setTimeout(r, f.latencyMs));
          return next();
        case 'reset':
          req.raw.socket.destroy();
          return;
        case 'status':
          res.json(f.status ?? 503, { message: `Injected fault: HTTP ${f.status ?? 503}` });
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
