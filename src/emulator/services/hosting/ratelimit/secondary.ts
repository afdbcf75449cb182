/**
 * Secondary limits: concurrent requests, points per minute per endpoint,
 * content-creating requests per minute and per hour, plus refusals forced by
 * the admin API. The secondary status cannot be queried (spec), so nothing
 * here shows in headers.
 */
import { SecondaryLimits } from '../../../../shared/constants.js';
import type { HostingSecondaryLimits } from '../../../../shared/hosting-ratelimit.js';
import { WindowCounter } from './buckets.js';

export const SECONDARY_MESSAGE =
  'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to support for help, please include the request ID ';

export interface SecondaryRefusal {
  status: 403 | 429;
  /** Seconds for `retry-after`, when sent. */
  retryAfter?: number;
  reason: string;
  exhaustBudget?: { resetInSeconds: number };
}

interface Forced {
  /** Caller key it applies to; undefined = any caller. */
  caller?: string;
  count: number;
  status: 403 | 429;
  retryAfter?: number;
  exhaustBudget?: { resetInSeconds: number };
}

export interface RequestCost {
  caller: string;
  /** `GET /api/v3/repos/x/y` style key of the endpoint. */
  endpoint: string;
  points: number;
  /** Modelled CPU time of the request, ms (see cpuCostOf). */
  cpuMs: number;
  graphql: boolean;
  contentCreating: boolean;
}

const defaults = (): Required<HostingSecondaryLimits> => ({
  concurrent: SecondaryLimits.concurrent,
  restPointsPerMinute: SecondaryLimits.restPointsPerMinute,
  graphqlPointsPerMinute: SecondaryLimits.graphqlPointsPerMinute,
  contentCreatingPerMinute: SecondaryLimits.contentCreatingPerMinute,
  contentCreatingPerHour: SecondaryLimits.contentCreatingPerHour,
  contentCreatingWindowSeconds: SecondaryLimits.contentCreatingWindowSeconds,
  cpuMsPerMinute: SecondaryLimits.cpuMsPerMinute,
  graphqlCpuMsPerMinute: SecondaryLimits.graphqlCpuMsPerMinute,
});

export class SecondaryLimiter {
  limits = defaults();
  readonly #inFlight = new Map<string, number>();
  readonly #points = new Map<string, WindowCounter>();
  readonly #contentMinute = new Map<string, WindowCounter>();
  readonly #contentHour = new Map<string, WindowCounter>();
  readonly #cpu = new Map<string, WindowCounter>();
  readonly #graphqlCpu = new Map<string, WindowCounter>();
  /** Per path prefix, the modelled CPU cost (ms) of a request (admin verb `cpu-cost`). */
  readonly cpuCosts = new Map<string, number>();
  #forced: Forced[] = [];

  constructor(private readonly now: () => number) {}

  reset(): void {
    this.limits = defaults();
    this.#points.clear();
    this.#contentMinute.clear();
    this.#contentHour.clear();
    this.#cpu.clear();
    this.#graphqlCpu.clear();
    this.cpuCosts.clear();
    this.#forced = [];
    // in-flight counts belong to live connections; they drain by themselves.
  }

  configure(l: HostingSecondaryLimits): Required<HostingSecondaryLimits> {
    for (const [k, v] of Object.entries(l)) {
      if (!(k in this.limits)) throw new Error(`unknown limit "${k}" (known: ${Object.keys(this.limits).join(', ')})`);
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new Error(`${k} must be a whole number >= 0`);
      if (k === 'contentCreatingWindowSeconds' && v < 1) throw new Error(`${k} must be a whole number >= 1`);
      (this.limits as Record<string, number>)[k] = v;
    }
    // A window of another length starts afresh.
    if (l.contentCreatingWindowSeconds !== undefined) this.#contentMinute.clear();
    return { ...this.limits };
  }

  force(f: Forced): void {
    this.#forced.push(f);
  }

  /** Marks a request in flight; returns the release function. */
  enter(caller: string): () => void {
    this.#inFlight.set(caller, (this.#inFlight.get(caller) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const n = (this.#inFlight.get(caller) ?? 1) - 1;
      if (n <= 0) this.#inFlight.delete(caller);
      else this.#inFlight.set(caller, n);
    };
  }

  /** Each caller's secondary windows now in use (read-only; the console shows them): name, used, limit. */
  usage(): Array<{ caller: string; name: string; used: number; limit: number }> {
    const now = this.now();
    const out: Array<{ caller: string; name: string; used: number; limit: number }> = [];
    for (const [caller, n] of this.#inFlight) out.push({ caller, name: 'concurrent requests', used: n, limit: this.limits.concurrent });
    const windows = (m: Map<string, WindowCounter>, name: (key: string) => [string, string], limit: (key: string) => number) => {
      for (const [key, c] of m) {
        const used = c.used(now);
        if (used > 0) {
          const [caller, label] = name(key);
          out.push({ caller, name: label, used, limit: limit(key) });
        }
      }
    };
    const split = (key: string): [string, string] => {
      const i = key.indexOf(' ');
      return [key.slice(0, i), `points per minute (${key.slice(i + 1)})`];
    };
    windows(this.#points, split, (key) => (key.includes('graphql') ? this.limits.graphqlPointsPerMinute : this.limits.restPointsPerMinute));
    windows(
      this.#cpu,
      (k) => [k, 'CPU ms per minute'],
      () => this.limits.cpuMsPerMinute,
    );
    windows(
      this.#contentMinute,
      (k) => [k, 'content-creating per minute'],
      () => this.limits.contentCreatingPerMinute,
    );
    windows(
      this.#contentHour,
      (k) => [k, 'content-creating per hour'],
      () => this.limits.contentCreatingPerHour,
    );
    return out;
  }

  /** Checks (and on success counts) a request; a refusal when a secondary limit is hit. */
  check(c: RequestCost): SecondaryRefusal | undefined {
    const i = this.#forced.findIndex((f) => !f.caller || f.caller === c.caller);
    if (i >= 0) {
      const f = this.#forced[i]!;
      if (--f.count <= 0) this.#forced.splice(i, 1);
      return { status: f.status, retryAfter: f.retryAfter, reason: 'forced', exhaustBudget: f.exhaustBudget };
    }
    if ((this.#inFlight.get(c.caller) ?? 0) > this.limits.concurrent) return { status: 429, reason: 'concurrent requests' };
    const now = this.now();
    const points = counter(this.#points, `${c.caller} ${c.endpoint}`, 60_000);
    const pointLimit = c.graphql ? this.limits.graphqlPointsPerMinute : this.limits.restPointsPerMinute;
    if (!points.take(now, c.points, pointLimit)) return { status: 403, retryAfter: points.secondsLeft(now), reason: 'points per minute' };
    // CPU time: 90 s per 60 s in all, at most 60 s of it for the query API (modelled costs, emulator clock).
    const cpu = counter(this.#cpu, c.caller, 60_000);
    const gqlCpu = c.graphql ? counter(this.#graphqlCpu, c.caller, 60_000) : undefined;
    if (gqlCpu && !gqlCpu.fits(now, c.cpuMs, this.limits.graphqlCpuMsPerMinute))
      return { status: 403, retryAfter: gqlCpu.secondsLeft(now), reason: 'query API CPU time' };
    if (!cpu.fits(now, c.cpuMs, this.limits.cpuMsPerMinute)) return { status: 403, retryAfter: cpu.secondsLeft(now), reason: 'CPU time' };
    if (c.contentCreating) {
      const minute = counter(this.#contentMinute, c.caller, this.limits.contentCreatingWindowSeconds * 1000);
      const hour = counter(this.#contentHour, c.caller, 3_600_000);
      if (!minute.take(now, 1, this.limits.contentCreatingPerMinute)) {
        return { status: 403, retryAfter: minute.secondsLeft(now), reason: 'content-creating requests per minute' };
      }
      if (!hour.take(now, 1, this.limits.contentCreatingPerHour)) return { status: 403, reason: 'content-creating requests per hour' };
    }
    cpu.take(now, c.cpuMs, Number.POSITIVE_INFINITY);
    gqlCpu?.take(now, c.cpuMs, Number.POSITIVE_INFINITY);
    return undefined;
  }
}

function counter(m: Map<string, WindowCounter>, key: string, windowMs: number): WindowCounter {
  let c = m.get(key);
  if (!c) m.set(key, (c = new WindowCounter(windowMs)));
  return c;
}
