/**
 * Seeded callers for every row of the Primary REST limits table: an
 * enterprise-cloud user and app, installation tokens of several sizes and
 * workflow tokens. Values are fixed so tests and the README can name them.
 */
import type { HostingState, HostingToken } from '../state.js';
import { coreLimit, identifyCaller } from './callers.js';

export const RATE_LIMIT_SEED = {
  enterpriseUser: {
    id: 100,
    login: 'ent-octo',
    name: 'Enterprise Octo',
    email: 'ent-octo@example.com',
    password: 'lanyard-emulator-enterprise-password',
    enterpriseCloud: true,
  },
  enterpriseApp: {
    name: 'Enterprise Cloud App (emulator)',
    clientId: 'lanyard-enterprise-app',
    clientSecret: 'lanyard-enterprise-app-secret-0000000000000001',
    callbackUrl: 'http://127.0.0.1/callback',
    deviceFlowEnabled: true,
    kind: 'oauth' as const,
    enterpriseCloud: true,
  },
  tokens: [
    {
      value: 'lyp_emulator_enterprise_user_token_000000001',
      kind: 'personal',
      login: 'ent-octo',
      note: 'enterprise user, personal token: 5,000/h shared with the app token',
    },
    {
      value: 'lyo_emulator_enterprise_app_token_0000000001',
      kind: 'oauth',
      login: 'ent-octo',
      clientId: 'lanyard-enterprise-app',
      note: 'enterprise-cloud app acting for a member: 15,000/h',
    },
    {
      value: 'lys_emulator_installation_basic_00000000001',
      kind: 'installation',
      installation: { id: 1001, repositories: 5, users: 3 },
      note: 'installation, basic: 5,000/h',
    },
    {
      value: 'lys_emulator_installation_large_00000000001',
      kind: 'installation',
      installation: { id: 1002, repositories: 120, users: 50 },
      note: 'installation, 120 repos + 50 users: 5,000 + 5,000 + 1,500 = 11,500/h',
    },
    {
      value: 'lys_emulator_installation_capped_0000000001',
      kind: 'installation',
      installation: { id: 1003, repositories: 300, users: 200 },
      note: 'installation, 300 repos + 200 users: capped at 12,500/h',
    },
    {
      value: 'lys_emulator_installation_enterprise_000001',
      kind: 'installation',
      installation: { id: 1004, repositories: 5, users: 3, enterpriseCloud: true },
      note: 'installation on an enterprise-cloud organization: 15,000/h',
    },
    {
      value: 'lyw_emulator_workflow_token_00000000000001',
      kind: 'workflow',
      repository: 'mona/hello-world',
      note: 'workflow token of mona/hello-world: 1,000/h per repository',
    },
    {
      value: 'lyw_emulator_workflow_enterprise_00000000001',
      kind: 'workflow',
      repository: 'ent-corp/platform',
      enterpriseCloud: true,
      note: 'workflow token, enterprise-cloud repository: 15,000/h',
    },
  ] satisfies Array<Omit<HostingToken, 'scopes' | 'createdAt'>>,
};

/** Adds the seeded enterprise user, app and tokens to the hosting state. */
export function seedRateLimitCallers(state: HostingState, now: number): void {
  const s = RATE_LIMIT_SEED;
  if (!state.users.has(s.enterpriseUser.login)) state.users.set(s.enterpriseUser.login, { ...s.enterpriseUser });
  if (!state.apps.has(s.enterpriseApp.clientId)) state.apps.set(s.enterpriseApp.clientId, { ...s.enterpriseApp });
  for (const t of s.tokens) {
    if (!state.tokens.has(t.value))
      state.tokens.set(t.value, { ...t, scopes: t.kind === 'installation' || t.kind === 'workflow' ? [] : ['repo'], createdAt: now });
  }
}

/** The seeded callers with their core limit, for the `budgets` verb and the README. */
export function describeSeededCallers(state: HostingState): Array<{ token: string; kind: string; caller: string; coreLimit: number; note?: string }> {
  return RATE_LIMIT_SEED.tokens.map((t) => {
    const c = identifyCaller(state, `Bearer ${t.value}`, '127.0.0.1');
    return { token: t.value, kind: t.kind, caller: c.key, coreLimit: coreLimit(c), note: t.note };
  });
}

/** `POST /_emulator/hosting/rate-limit-token`: a new installation or workflow token. */
export function mintToken(state: HostingState, now: number, body: Record<string, unknown>): { token: string; caller: string; coreLimit: number } {
  const kind = body.kind;
  const num = (k: string, d: number) => {
    const v = body[k] ?? d;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new Error(`${k} must be a whole number >= 0`);
    return v;
  };
  let t: HostingToken;
  if (kind === 'installation') {
    const ids = [...state.tokens.values()].map((x) => x.installation?.id ?? 0);
    const id = Math.max(2000, ...ids) + 1;
    t = {
      value: state.newTokenValue('installation'),
      kind,
      scopes: [],
      createdAt: now,
      installation: { id, repositories: num('repositories', 1), users: num('users', 1), enterpriseCloud: body.enterpriseCloud === true },
    };
  } else if (kind === 'workflow') {
    if (typeof body.repository !== 'string' || !/^[\w.-]+\/[\w.-]+$/.test(body.repository)) throw new Error('repository must be owner/name');
    t = {
      value: state.newTokenValue('workflow'),
      kind,
      scopes: [],
      createdAt: now,
      repository: body.repository,
      enterpriseCloud: body.enterpriseCloud === true,
    };
  } else if (kind === 'personal') {
    const login = String(body.login ?? '');
    if (!state.users.has(login)) throw new Error(`no user "${login}"`);
    t = { value: state.newTokenValue('personal'), kind, login, scopes: ['repo'], createdAt: now };
  } else {
    throw new Error('kind must be installation, workflow or personal');
  }
  state.tokens.set(t.value, t);
  const c = identifyCaller(state, `Bearer ${t.value}`, '127.0.0.1');
  return { token: t.value, caller: c.key, coreLimit: coreLimit(c) };
}
