/**
 * One look at the whole emulator for the console: every service's view with
 * its actions replaced by opaque handles (an HMAC of the item under a secret
 * of this emulator, so the page names a token without holding it), the clock,
 * the faults and the hosting limits.
 */
import { createHmac } from 'node:crypto';
import type { EmulatorClock } from '../clock.js';
import type { Fault } from '../faults.js';
import type { EmulatorService } from '../service.js';
import type { ConsoleAction, ConsoleBucket, ConsoleCredential, ConsoleWindow } from './types.js';

/** A credential as the page shows it: masked, its status on the emulator clock, named by handle. */
export type ShownCredential = Omit<ConsoleCredential, 'key' | 'revoke' | 'revoked'> & {
  id: string;
  status: 'active' | 'expired' | 'revoked';
  revocable: boolean;
};

export interface ShownPending {
  id: string;
  service: string;
  kind: string;
  code: string;
  client: string;
  scopes: string;
  expiresAt: number;
  users: string[];
}

export interface ShownService {
  name: string;
  users: Array<{ name: string; note?: string }>;
  apps: Array<{ name: string; note?: string }>;
  credentials: ShownCredential[];
  sessions: Array<{ id: string; masked: string; subject: string; note?: string }>;
  counts: Array<{ name: string; value: number }>;
  events: Array<{ name: string; status: string; note?: string }>;
}

export interface Snapshot {
  now: number;
  frozen: boolean;
  clockOffsetMs: number;
  services: ShownService[];
  pending: ShownPending[];
  limits: { buckets: ConsoleBucket[]; windows: ConsoleWindow[]; secondaryLimits: Record<string, number> };
  faults: Fault[];
}

/** What a handle does: revoke/end (no argument) or decide (approve, login). */
export type HandleAction = { kind: 'revoke'; run: ConsoleAction } | { kind: 'decide'; run: (approve: boolean, login: string | undefined) => unknown };

export function takeSnapshot(
  services: readonly EmulatorService[],
  clock: EmulatorClock,
  faults: Fault[],
  secret: Buffer,
): { snapshot: Snapshot; actions: Map<string, HandleAction> } {
  const now = clock.now();
  const actions = new Map<string, HandleAction>();
  const handle = (service: string, what: string, key: string) =>
    createHmac('sha256', secret).update(`${service}\0${what}\0${key}`).digest('base64url').slice(0, 22);
  const snapshot: Snapshot = {
    now,
    frozen: clock.frozen,
    clockOffsetMs: clock.offsetMs,
    services: [],
    pending: [],
    limits: { buckets: [], windows: [], secondaryLimits: {} },
    faults,
  };
  for (const s of services) {
    const v = s.console?.();
    if (!v) continue;
    snapshot.services.push({
      name: s.name,
      users: v.users ?? [],
      apps: v.apps ?? [],
      credentials: (v.credentials ?? []).map((c) => {
        const id = handle(s.name, 'credential', c.key);
        const status = c.revoked ? 'revoked' : c.expiresAt !== undefined && c.expiresAt <= now ? 'expired' : 'active';
        if (c.revoke && status === 'active') actions.set(id, { kind: 'revoke', run: c.revoke });
        const { key: _key, revoke: _revoke, revoked: _revoked, ...shown } = c;
        return { id, ...shown, status, revocable: !!c.revoke && status === 'active' };
      }),
      sessions: (v.sessions ?? []).map((x) => {
        const id = handle(s.name, 'session', x.key);
        if (x.end) actions.set(id, { kind: 'revoke', run: x.end });
        return { id, masked: x.masked, subject: x.subject, ...(x.note ? { note: x.note } : {}) };
      }),
      counts: v.counts ?? [],
      events: v.events ?? [],
    });
    for (const p of v.pending ?? []) {
      const id = handle(s.name, 'pending', p.key);
      actions.set(id, { kind: 'decide', run: p.decide });
      snapshot.pending.push({ id, service: s.name, kind: p.kind, code: p.code, client: p.client, scopes: p.scopes, expiresAt: p.expiresAt, users: p.users });
    }
    if (v.limits) snapshot.limits = v.limits;
  }
  return { snapshot, actions };
}
