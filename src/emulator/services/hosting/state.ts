/**
 * The hosting emulator's data: users, OAuth/installable apps, tokens. Shared by
 * the OAuth endpoints, the REST API and the rate limiter of this service.
 */
import { randomBytes } from 'node:crypto';

export interface HostingUser {
  id: number;
  login: string;
  name: string;
  email: string;
  password: string;
  /** Member of an enterprise-cloud organization (15,000/h with its apps). */
  enterpriseCloud?: boolean;
}

export interface HostingApp {
  name: string;
  clientId: string;
  clientSecret: string;
  callbackUrl: string;
  deviceFlowEnabled: boolean;
  /** `oauth`: classic OAuth app; `installable`: short-lived user tokens with refresh. */
  kind: 'oauth' | 'installable';
  /** Owned by (or approved by) an enterprise-cloud organization. */
  enterpriseCloud?: boolean;
}

export type TokenKind = 'personal' | 'oauth' | 'installable-user' | 'installation' | 'workflow';

export interface HostingToken {
  value: string;
  kind: TokenKind;
  login?: string;
  clientId?: string;
  scopes: string[];
  createdAt: number;
  expiresAt?: number;
  revoked?: boolean;
  note?: string;
  /** Installation tokens: what the installation covers. */
  installation?: { id: number; repositories: number; users: number; enterpriseCloud?: boolean; enterprise?: boolean };
  /** Workflow tokens: the repository they belong to. */
  repository?: string;
  enterpriseCloud?: boolean;
}

export const SEED = {
  user: { id: 1, login: 'mona', name: 'Mona Lanyard', email: 'mona@example.com', password: 'lanyard-emulator-password' },
  personalToken: 'lyp_emulator_default_token_0000000000000001',
  app: {
    name: 'Lanyard CLI (emulator)',
    clientId: 'lanyard-cli-emulator',
    clientSecret: 'lanyard-cli-emulator-secret-0000000000000001',
    callbackUrl: 'http://127.0.0.1/callback',
    deviceFlowEnabled: true,
    kind: 'oauth' as const,
  },
} as const;

export class HostingState {
  users = new Map<string, HostingUser>();
  apps = new Map<string, HostingApp>();
  tokens = new Map<string, HostingToken>();
  #nextUserId = 2;

  constructor(private readonly now: () => number) {
    this.reset();
  }

  reset(): void {
    this.users.clear();
    this.apps.clear();
    this.tokens.clear();
    this.#nextUserId = 2;
    this.users.set(SEED.user.login, { ...SEED.user });
    this.apps.set(SEED.app.clientId, { ...SEED.app });
    this.tokens.set(SEED.personalToken, { value: SEED.personalToken, kind: 'personal', login: SEED.user.login, scopes: ['repo', 'read:org', 'gist'], createdAt: this.now(), note: 'seeded emulator token' });
  }

  addUser(u: Omit<HostingUser, 'id'>): HostingUser {
    const user = { ...u, id: this.#nextUserId++ };
    this.users.set(user.login, user);
    return user;
  }

  /** A new random token value with a kind prefix. */
  newTokenValue(kind: TokenKind): string {
    const prefix = { personal: 'lyp_', oauth: 'lyo_', 'installable-user': 'lyu_', installation: 'lys_', workflow: 'lyw_' }[kind];
    return prefix + randomBytes(18).toString('base64url');
  }

  /** The live token for a bearer value: not revoked, not expired. */
  activeToken(value: string | undefined): HostingToken | undefined {
    if (!value) return undefined;
    const t = this.tokens.get(value);
    if (!t || t.revoked) return undefined;
    if (t.expiresAt !== undefined && t.expiresAt <= this.now()) return undefined;
    return t;
  }
}
