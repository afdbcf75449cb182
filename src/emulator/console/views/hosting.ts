/** The hosting service on the console: users, apps, tokens, browser sessions, pending device codes, rate limits. */
import { maskSecret } from '../../../shared/mask.js';
import type { AdminVerb } from '../../service.js';
import { decide } from '../../services/hosting/oauth/device.js';
import type { HostingState } from '../../services/hosting/state.js';
import type { ConsoleBucket, ConsoleView, ConsoleWindow } from '../types.js';

export function hostingConsole(state: HostingState, admin: Record<string, AdminVerb>, now: () => number): ConsoleView {
  const users = [...state.users.keys()];
  const budgets = (admin.budgets?.({}) ?? {}) as {
    buckets?: ConsoleBucket[];
    secondaryUsage?: ConsoleWindow[];
    secondaryLimits?: Record<string, number>;
  };
  return {
    users: [...state.users.values()].map((u) => ({ name: u.login, note: u.name })),
    apps: [...state.apps.values()].map((a) => ({ name: a.clientId, note: `${a.name}${a.kind === 'installable' ? ' (installable)' : ''}` })),
    credentials: [...state.tokens.values()].map((t) => ({
      key: t.value,
      masked: maskSecret(t.value),
      kind: t.kind,
      subject: t.login ?? t.repository ?? (t.installation ? `installation ${t.installation.id}` : ''),
      ...(t.clientId ? { client: t.clientId } : {}),
      scopes: t.scopes.join(' '),
      ...(t.expiresAt !== undefined ? { expiresAt: t.expiresAt } : {}),
      revoked: !!t.revoked,
      revoke: () => {
        t.revoked = true;
      },
    })),
    sessions: [...state.sessions.entries()].map(([cookie, logins]) => ({
      key: cookie,
      masked: maskSecret(cookie),
      subject: logins.join(', '),
      note: 'browser session',
      end: () => state.sessions.delete(cookie),
    })),
    pending: [...state.devices.values()]
      .filter((g) => g.status === 'pending' && g.expiresAt > now())
      .map((g) => ({
        key: g.deviceCode,
        kind: 'device code' as const,
        code: g.userCode,
        client: g.clientId,
        scopes: g.scopes.join(' '),
        expiresAt: g.expiresAt,
        users,
        decide: (approve: boolean, login: string | undefined) => {
          const who = login ?? users[0]!;
          if (!state.users.has(who)) throw new Error(`no user ${who}`);
          if (g.status !== 'pending') throw new Error(`device code ${g.userCode} was already answered`);
          decide(g, who, approve);
          return { status: g.status, login: who };
        },
      })),
    limits: { buckets: budgets.buckets ?? [], windows: budgets.secondaryUsage ?? [], secondaryLimits: budgets.secondaryLimits ?? {} },
  };
}
