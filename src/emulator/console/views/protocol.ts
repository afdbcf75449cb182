/** The protocol's server and authorization server on the console: clients, tokens, sessions, authorization requests and device codes in progress. */
import { maskSecret } from '../../../shared/mask.js';
import type { ProtocolAuthServer } from '../../services/protocol/oauth.js';
import type { ProtocolState } from '../../services/protocol/state.js';
import type { ConsoleCredential, ConsolePending, ConsoleView } from '../types.js';

type TokenRecord = { clientId: string; scope: string; expiresAt: number; revoked: boolean };

export function protocolConsole(state: ProtocolState, as: ProtocolAuthServer): ConsoleView {
  const now = state.clock.now();
  return {
    apps: [...state.clients.values()].map((c) => ({
      name: c.client_id,
      note: `${c.token_endpoint_auth_method}${c.preRegistered ? '' : ', registered dynamically'}`,
    })),
    credentials: [...tokensOf('access token', state.accessTokens), ...tokensOf('refresh token', state.refreshTokens)],
    sessions: [...state.sessions.entries()].map(([id, s]) => ({
      key: id,
      masked: maskSecret(id),
      subject: s.clientId,
      note: `revision ${s.revision}`,
      end: () => state.sessions.delete(id),
    })),
    pending: [...authorizationsOf(state, as, now), ...devicesOf(state, now)],
  };
}

function tokensOf(kind: string, m: Map<string, TokenRecord>): ConsoleCredential[] {
  return [...m.entries()].map(([value, t]) => ({
    key: `${kind} ${value}`,
    masked: maskSecret(value),
    kind,
    subject: t.clientId,
    scopes: t.scope,
    expiresAt: t.expiresAt,
    revoked: t.revoked,
    revoke: () => {
      t.revoked = true;
    },
  }));
}

/** Authorization requests waiting on consent. */
function authorizationsOf(state: ProtocolState, as: ProtocolAuthServer, now: number): ConsolePending[] {
  return [...state.pending.values()]
    .filter((p) => p.expiresAt > now)
    .map((p) => ({
      key: `authorization ${p.id}`,
      kind: 'authorization request',
      code: state.clients.get(p.clientId)?.client_name ?? p.clientId,
      client: p.clientId,
      scopes: p.scope,
      expiresAt: p.expiresAt,
      users: [],
      decide: (approve) => {
        const redirect = as.answer(p.id, approve);
        if (redirect === undefined) throw new Error('that authorization request is no longer pending');
        return { redirect };
      },
    }));
}

/** Device codes waiting on a user. */
function devicesOf(state: ProtocolState, now: number): ConsolePending[] {
  return [...state.devices.values()]
    .filter((g) => g.status === 'pending' && g.expiresAt > now)
    .map((g) => ({
      key: `device ${g.deviceCode}`,
      kind: 'device code',
      code: g.userCode,
      client: g.clientId,
      scopes: g.scope,
      expiresAt: g.expiresAt,
      users: [],
      decide: (approve) => {
        if (g.status !== 'pending') throw new Error(`device code ${g.userCode} was already answered`);
        g.status = approve ? 'approved' : 'denied';
        state.stats.device.decisions.push(approve ? 'approved' : 'denied');
        return { status: g.status };
      },
    }));
}
