/** Admin verbs of the hosting service: POST /_emulator/hosting/<verb>. */
import type { AdminVerb } from '../../service.js';
import { decide } from './oauth/device.js';
import { normaliseUserCode, parseScopes } from './oauth/wire.js';
import type { HostingState } from './state.js';

const str = (v: unknown, name: string): string => {
  if (typeof v !== 'string' || !v) throw new Error(`${name} is required`);
  return v;
};

function scopesOf(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  return parseScopes(typeof v === 'string' ? v : undefined);
}

export function hostingAdmin(state: HostingState): Record<string, AdminVerb> {
  return { ...deviceVerbs(state), ...tokenVerbs(state), ...accountVerbs(state) };
}

/** The device flow: its policy, answering a code as the user, the grants and their polls. */
function deviceVerbs(state: HostingState): Record<string, AdminVerb> {
  return {
    /** {interval?, expiresIn?, slowDownNext?}: device-flow policy for new codes / the next polls. */
    'device-policy': (b) => {
      if (b.interval !== undefined) state.devicePolicy.interval = Number(b.interval);
      if (b.expiresIn !== undefined) state.devicePolicy.expiresIn = Number(b.expiresIn);
      if (b.slowDownNext !== undefined) state.devicePolicy.forceSlowDown = Number(b.slowDownNext);
      return { ...state.devicePolicy };
    },
    /** {user_code, login?, deny?}: answers a pending device code as the user would on /login/device. */
    'device-approve': (b) => {
      const code = normaliseUserCode(str(b.user_code, 'user_code'));
      const g = state.devices.get(state.userCodes.get(code) ?? '');
      if (g?.status !== 'pending') throw new Error(`no pending device code ${code}`);
      const login = typeof b.login === 'string' ? b.login : 'mona';
      if (!state.users.has(login)) throw new Error(`no user ${login}`);
      decide(g, login, b.deny !== true);
      return { user_code: code, status: g.status, login };
    },
    /** Device grants with their poll history (emulator times, epoch ms). */
    devices: () => ({
      devices: [...state.devices.values()].map((g) => ({
        user_code: g.userCode,
        client_id: g.clientId,
        scopes: g.scopes,
        status: g.status,
        interval: g.interval,
        created_at: g.createdAt,
        expires_at: g.expiresAt,
        login: g.login ?? null,
        polls: g.polls,
      })),
    }),
  };
}

/** Tokens: listed (with their values), issued as a completed flow would, revoked. */
function tokenVerbs(state: HostingState): Record<string, AdminVerb> {
  return {
    /** {login?, clientId?}: tokens (values included: this is a test oracle). */
    tokens: (b) => ({
      tokens: [...state.tokens.values()]
        .filter((t) => (b.login === undefined || t.login === b.login) && (b.clientId === undefined || t.clientId === b.clientId))
        .map((t) => ({
          value: t.value,
          kind: t.kind,
          login: t.login ?? null,
          client_id: t.clientId ?? null,
          scopes: t.scopes,
          created_at: t.createdAt,
          expires_at: t.expiresAt ?? null,
          revoked: !!t.revoked,
          note: t.note ?? null,
        })),
    }),
    /** {login, clientId, scopes}: issues an app token as a completed flow would (token-limit tests). */
    'issue-token': (b) => {
      const app = state.apps.get(str(b.clientId, 'clientId'));
      if (!app) throw new Error(`no app ${String(b.clientId)}`);
      const login = str(b.login, 'login');
      if (!state.users.has(login)) throw new Error(`no user ${login}`);
      const { token, refresh } = state.issueAppToken(app, login, scopesOf(b.scopes));
      return { access_token: token.value, refresh_token: refresh?.value ?? null, scopes: token.scopes };
    },
    /** {token}: revokes one token. */
    'revoke-token': (b) => {
      const t = state.tokens.get(str(b.token, 'token'));
      if (!t) throw new Error('no such token');
      t.revoked = true;
      return { revoked: true };
    },
  };
}

/** Accounts: users, apps and SSH keys added at run time. */
function accountVerbs(state: HostingState): Record<string, AdminVerb> {
  return {
    /** {login, password, name?, email?} */
    'add-user': (b) => {
      const login = str(b.login, 'login');
      if (state.users.has(login)) throw new Error(`user ${login} exists`);
      const u = state.addUser({
        login,
        password: str(b.password, 'password'),
        name: typeof b.name === 'string' ? b.name : login,
        email: typeof b.email === 'string' ? b.email : `${login}@example.com`,
      });
      return { login: u.login, id: u.id };
    },
    /** {name?, clientId, clientSecret, callbackUrl, deviceFlowEnabled?, kind?} */
    'add-app': (b) => {
      const clientId = str(b.clientId, 'clientId');
      new URL(str(b.callbackUrl, 'callbackUrl'));
      const app = {
        name: typeof b.name === 'string' ? b.name : clientId,
        clientId,
        clientSecret: str(b.clientSecret, 'clientSecret'),
        callbackUrl: b.callbackUrl as string,
        deviceFlowEnabled: b.deviceFlowEnabled !== false,
        kind: b.kind === 'installable' ? ('installable' as const) : ('oauth' as const),
      };
      state.apps.set(clientId, app);
      return app;
    },
    /** {login, clientId?, title}: an SSH key (generated by an app when clientId is given). */
    'add-ssh-key': (b) => {
      const key = {
        id: state.nextId(),
        login: str(b.login, 'login'),
        clientId: typeof b.clientId === 'string' ? b.clientId : undefined,
        title: str(b.title, 'title'),
        key: `ssh-ed25519 AAAA${state.newTokenValue('personal')}`,
      };
      state.sshKeys.push(key);
      return key;
    },
    'ssh-keys': () => ({ keys: state.sshKeys.map((k) => ({ ...k })) }),
  };
}
