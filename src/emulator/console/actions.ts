/**
 * What the console's forms do: the admin verbs' own operations (clock,
 * faults and chaos, limits, budgets, reset) and the items' actions named by
 * handle (revoke, end, approve, deny). Nothing here repeats a verb's logic:
 * it reads the form, then calls the admin operation.
 */
import type { Fault } from '../faults.js';
import type { HandleAction } from './snapshot.js';

/** The admin operations the console calls (those of `POST /_emulator/...`). */
export interface ConsoleOps {
  reset(): Promise<void>;
  advance(ms: number, freeze?: boolean): { now: string };
  addFault(f: Record<string, unknown>): Fault;
  faults(): Fault[];
  clearFaults(): void;
  verb(service: string, verb: string, body?: Record<string, unknown>): Promise<unknown>;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90` (seconds), `90s`, `15m`, `1h30m`, `250ms`, `2d`. */
export function durationMs(text: string, name: string): number {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number(t) * 1000;
  const parts = [...t.matchAll(/(\d+)(ms|s|m|h|d)/g)];
  if (!parts.length || parts.map((p) => p[0]).join('') !== t) throw new Error(`${name}: "${t}" is not a duration (e.g. 90s, 15m, 1h30m)`);
  return parts.reduce((sum, p) => sum + Number(p[1]) * UNIT_MS[p[2]!]!, 0);
}

function wholeNumber(v: string, name: string): number {
  if (!/^\d+$/.test(v.trim())) throw new Error(`${name} must be a whole number`);
  return Number(v);
}

/** `0.25`, `25%`. */
function share(v: string): number {
  const t = v.trim();
  const n = t.endsWith('%') ? Number(t.slice(0, -1)) / 100 : Number(t);
  if (!(n > 0 && n <= 1)) throw new Error('rate must be a share above 0 and at most 1 (e.g. 10% or 0.1)');
  return n;
}

function faultBody(form: URLSearchParams, chaos: boolean): Record<string, unknown> {
  const get = (k: string) => (form.get(k) ?? '').trim();
  const b: Record<string, unknown> = { type: get('type'), path: get('path') };
  if (get('method')) b.method = get('method');
  if (get('status')) b.status = wholeNumber(get('status'), 'status');
  if (get('latency')) b.latencyMs = durationMs(get('latency'), 'latency');
  if (get('count')) b.count = wholeNumber(get('count'), 'count');
  if (chaos) {
    b.rate = share(get('rate') || '0');
    if (get('seed')) b.seed = wholeNumber(get('seed'), 'seed');
  }
  return b;
}

/** The secondary limits form: only the fields filled in. */
function limitsBody(form: URLSearchParams): Record<string, unknown> {
  const map = {
    concurrent: 'concurrent',
    pointsPerMinute: 'restPointsPerMinute',
    contentPerMinute: 'contentCreatingPerMinute',
    contentPerHour: 'contentCreatingPerHour',
  };
  const b: Record<string, unknown> = {};
  for (const [field, key] of Object.entries(map)) {
    const v = (form.get(field) ?? '').trim();
    if (v) b[key] = wholeNumber(v, field);
  }
  if (!Object.keys(b).length) throw new Error('fill in at least one limit');
  return b;
}

function budgetBody(form: URLSearchParams): Record<string, unknown> {
  const get = (k: string) => (form.get(k) ?? '').trim();
  const b: Record<string, unknown> = { resource: get('resource') || 'core', remaining: wholeNumber(get('remaining') || '0', 'remaining') };
  if (get('caller')) b.caller = get('caller');
  if (get('resetIn')) b.resetInSeconds = Math.ceil(durationMs(get('resetIn'), 'resets in') / 1000);
  return b;
}

export async function runAction(form: URLSearchParams, handles: Map<string, HandleAction>, ops: ConsoleOps): Promise<{ message: string; redirect?: string }> {
  const action = form.get('action') ?? '';
  switch (action) {
    case 'advance': {
      const r = ops.advance(durationMs(form.get('duration') ?? '', 'advance by'));
      return { message: `Clock now ${r.now}` };
    }
    case 'freeze':
    case 'unfreeze': {
      const r = ops.advance(0, action === 'freeze');
      return { message: `Clock ${action === 'freeze' ? 'frozen' : 'running'} at ${r.now}` };
    }
    case 'fault':
    case 'chaos': {
      const f = ops.addFault(faultBody(form, action === 'chaos'));
      return { message: `Fault ${f.id} added${f.rate !== undefined ? ` (rate ${f.rate}, seed ${f.seed})` : ''}` };
    }
    case 'clear-faults':
      ops.clearFaults();
      return { message: 'Faults cleared' };
    case 'limits':
      await ops.verb('hosting', 'limits', limitsBody(form));
      return { message: 'Secondary limits set' };
    case 'budget': {
      const r = (await ops.verb('hosting', 'budget', budgetBody(form))) as { appliesTo?: string };
      return { message: `Budget set for ${r.appliesTo ?? 'the caller'}` };
    }
    case 'reset':
      await ops.reset();
      return { message: 'Every service is back to its seed' };
    case 'revoke':
    case 'approve':
    case 'deny': {
      const h = handles.get(form.get('id') ?? '');
      if (!h) throw new Error('that item is gone (answered, revoked or expired): the console shows what is left');
      if (h.kind === 'revoke') {
        if (action !== 'revoke') throw new Error(`${action} does not apply to that item`);
        await h.run();
        return { message: 'Revoked' };
      }
      if (action === 'revoke') throw new Error('a sign-in in progress is approved or denied, not revoked');
      const login = form.get('login') || undefined;
      const r = (await h.run(action === 'approve', login)) as { redirect?: string; login?: string } | undefined;
      const message = `${action === 'approve' ? 'Approved' : 'Denied'}${r?.login ? ` as ${r.login}` : ''}`;
      return r?.redirect ? { message: `${message}: the browser goes on to the client`, redirect: r.redirect } : { message };
    }
    default:
      throw new Error(`unknown action "${action}"`);
  }
}
