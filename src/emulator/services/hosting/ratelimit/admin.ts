/**
 * Admin verbs of the hosting rate limiter (`POST /_emulator/hosting/<verb>`):
 * budget, budgets, secondary, limits, rate-limit-token. Documented in the README.
 */
import type { HostingCallerSelector } from '../../../../shared/hosting-ratelimit.js';
import type { HostingState } from '../state.js';
import { view } from './buckets.js';
import { RESOURCES, resourceLimit, type Caller, type Resource } from './callers.js';
import type { RateLimiter } from './types.js';
import { describeSeededCallers, mintToken } from './seed.js';

type Verb = (body: Record<string, unknown>) => unknown;

function int(body: Record<string, unknown>, key: string, min = 0): number | undefined {
  const v = body[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) throw new Error(`${key} must be a whole number >= ${min}`);
  return v;
}

function resourceOf(body: Record<string, unknown>): Resource {
  const r = body.resource ?? 'core';
  if (typeof r !== 'string' || !(RESOURCES as readonly string[]).includes(r)) throw new Error(`resource must be one of ${RESOURCES.join(', ')}`);
  return r as Resource;
}

/** The caller a selector names; undefined when it names none (every caller). */
export function selectCaller(state: HostingState, sel: HostingCallerSelector): Caller | undefined {
  const ip = typeof sel.ip === 'string' && sel.ip ? sel.ip : '127.0.0.1';
  let key = sel.caller;
  if (!key && typeof sel.login === 'string') key = `user:${sel.login}`;
  if (!key && (sel.anonymous === true || typeof sel.ip === 'string')) key = `ip:${ip}`;
  if (!key) return undefined;
  const [kind, ...rest] = key.split(':');
  const id = rest.join(':');
  if (kind === 'ip') return { kind: 'anonymous', key, ip: id, badCredentials: false };
  if (kind === 'user') {
    const u = state.users.get(id);
    if (!u) throw new Error(`no user "${id}"`);
    return { kind: 'user', key, ip, login: u.login, userId: u.id, higherLimit: false };
  }
  if (kind === 'app') {
    const a = state.apps.get(id);
    if (!a) throw new Error(`no app with client id "${id}"`);
    return { kind: 'app', key, ip, clientId: a.clientId, enterprise: !!a.enterpriseCloud };
  }
  for (const t of state.tokens.values()) {
    if (kind === 'installation' && t.installation && String(t.installation.id) === id) {
      const i = t.installation;
      return { kind: 'installation', key, ip, id: i.id, repositories: i.repositories, users: i.users, enterprise: !!(i.enterpriseCloud || i.enterprise) };
    }
    if (kind === 'workflow' && t.kind === 'workflow' && t.repository === id) {
      return { kind: 'workflow', key, ip, repository: id, enterprise: !!t.enterpriseCloud };
    }
  }
  throw new Error(`unknown caller "${key}" (forms: ip:<addr>, user:<login>, app:<client id>, installation:<id>, workflow:<owner/repo>)`);
}

export function adminVerbs(rl: RateLimiter): Record<string, Verb> {
  const now = () => rl.env.clock.now();
  return {
    budget(body) {
      const resource = resourceOf(body);
      const remaining = int(body, 'remaining') ?? 0;
      const resetIn = int(body, 'resetInSeconds');
      const caller = selectCaller(rl.state, body);
      if (!caller) {
        const window = resourceLimit({ kind: 'anonymous', key: '', ip: '', badCredentials: false }, resource).windowSec;
        return { buckets: rl.buckets.overrideAll(resource, remaining, resetIn ?? window).map(view), appliesTo: 'every caller' };
      }
      const b = rl.bucket(caller, resource);
      rl.buckets.override(b, remaining, resetIn);
      return { buckets: [view(b)], appliesTo: caller.key };
    },
    budgets() {
      return {
        buckets: rl.buckets.list(),
        seeded: describeSeededCallers(rl.state),
        secondaryLimits: { ...rl.secondary.limits },
        secondaryUsage: rl.secondary.usage(),
      };
    },
    secondary(body) {
      const count = int(body, 'count', 1) ?? 1;
      const retryAfter = int(body, 'retryAfter');
      const status = int(body, 'status') ?? 403;
      if (status !== 403 && status !== 429) throw new Error('status must be 403 or 429');
      const caller = selectCaller(rl.state, body);
      const exhaust = body.exhaustBudget === true ? { resetInSeconds: int(body, 'resetInSeconds') ?? 60 } : undefined;
      rl.secondary.force({ caller: caller?.key, count, status, retryAfter, exhaustBudget: exhaust });
      return { armed: count, caller: caller?.key ?? 'any', status, retryAfter: retryAfter ?? null, exhaustBudget: !!exhaust };
    },
    limits(body) {
      return { secondaryLimits: rl.secondary.configure(body as Record<string, number>) };
    },
    /** {path, ms}: the modelled CPU time of requests under a path prefix (ms null: back to the default model). */
    'cpu-cost'(body) {
      if (typeof body.path !== 'string' || !body.path.startsWith('/')) throw new Error('path must be a path prefix starting with /');
      if (body.ms === null) rl.secondary.cpuCosts.delete(body.path);
      else rl.secondary.cpuCosts.set(body.path, int(body, 'ms') ?? 0);
      return {
        cpuCosts: Object.fromEntries(rl.secondary.cpuCosts),
        limits: { cpuMsPerMinute: rl.secondary.limits.cpuMsPerMinute, graphqlCpuMsPerMinute: rl.secondary.limits.graphqlCpuMsPerMinute },
      };
    },
    'rate-limit-token'(body) {
      return mintToken(rl.state, now(), body);
    },
  };
}
