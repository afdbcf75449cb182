/** The echo gateway, the service-health API and the mailbox on the console. */
import { maskSecret } from '../../../shared/mask.js';
import type { EchoState } from '../../services/echo/state.js';
import type { HealthState } from '../../services/health/state.js';
import type { MailStore } from '../../services/mailbox/mailstore.js';
import type { ConsoleView } from '../types.js';

export function echoConsole(state: EchoState): ConsoleView {
  return {
    users: [...state.users.values()].map((u) => ({ name: u.email, note: u.name })),
    apps: [...state.accounts.values()].map((a) => ({ name: a.email, note: `service account (${a.kind}), project ${a.projectId}` })),
    credentials: [...state.apiKeys.values()].map((k) => ({
      key: k.key,
      masked: maskSecret(k.key),
      kind: 'API key',
      subject: k.name,
      revoke: () => state.apiKeys.delete(k.key),
    })),
  };
}

export function healthConsole(state: HealthState): ConsoleView {
  const events = [...state.events.entries()].flatMap(([sub, evs]) =>
    evs.map((e) => ({ name: e.properties?.title ?? e.name ?? '', status: String(e.properties?.status ?? ''), note: `${e.name ?? ''} · ${sub}` })),
  );
  return {
    users: [...state.users.values()].map((u) => ({ name: u.login, note: `${u.name}${u.subscriptions.length ? '' : ' (no access)'}` })),
    credentials: [...state.tokens.entries()].map(([value, t]) => ({
      key: value,
      masked: maskSecret(value),
      kind: 'access token',
      subject: t.user,
      client: t.clientId,
      expiresAt: t.expiresAt,
      revoke: () => state.tokens.delete(value),
    })),
    counts: [...state.events.entries()].map(([sub, evs]) => ({ name: `events of ${sub}`, value: evs.length })),
    events: events.slice(-12),
  };
}

export function mailboxConsole(store: MailStore): ConsoleView {
  return {
    counts: [...store.state.mailboxes.entries()].flatMap(([mb, box]) => {
      let live = 0;
      for (const m of box.messages.values()) if (!m.deleted) live++;
      return [
        { name: `messages in ${mb}`, value: live },
        { name: `deleted, not purged, in ${mb}`, value: box.messages.size - live },
      ];
    }),
  };
}
