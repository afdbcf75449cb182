/**
 * The hosting emulator's data: users, OAuth/installable apps, tokens, and the
 * OAuth grants in flight (authorization codes, device codes, refresh tokens).
 * Shared by the OAuth endpoints, the REST API and the rate limiter of this
 * service. All time comes from the injected `now()` (the emulator clock).
 */
import { randomBytes } from 'node:crypto';
import { Hosting } from '../../../shared/constants.js';
import { InstallableTokens } from '../../../shared/hosting-oauth.js';

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
  /** Personal tokens: id of the authorization record. */
  id?: number;
}

export interface AuthorizationCode {
  code: string;
  clientId: string;
  login: string;
  scopes: string[];
  /** The redirect_uri the code was issued for (the app's callback when none was given). */
  redirectUri: string;
  /** Whether the authorize request named a redirect_uri. */
  redirectUriGiven: boolean;
  expiresAt: number;
  used: boolean;
}

export type DeviceStatus = 'pending' | 'authorized' | 'denied' | 'consumed';

export interface DeviceGrant {
  deviceCode: string;
  userCode: string;
  clientId: string;
  scopes: string[];
  createdAt: number;
  expiresAt: number;
  /** Current required interval, seconds (grows by 5 on each slow_down). */
  interval: number;
  lastPollAt?: number;
  /** Emulator times of every poll, for tests. */
  polls: Array<{ at: number; answer: string }>;
  status: DeviceStatus;
  login?: string;
}

export interface RefreshGrant {
  value: string;
  clientId: string;
  login: string;
  scopes: string[];
  expiresAt: number;
  used: boolean;
}

export interface SshKey {
  id: number;
  login: string;
  /** The app that generated the key (deleted when the user revokes the app). */
  clientId?: string;
  title: string;
  key: string;
  deploy?: boolean;
}

export const SEED = {
  user: { id: 1, login: 'mona', name: 'Mona Lanyard', email: 'mona@example.com', password: 'lanyard-emulator-password' },
  secondUser: { id: 2, login: 'hubot', name: 'Hubot Lanyard', email: 'hubot@example.com', password: 'hubot-emulator-password' },
  personalToken: 'lyp_emulator_default_token_0000000000000001',
  app: {
    name: 'Lanyard CLI (emulator)',
    clientId: 'lanyard-cli-emulator',
    clientSecret: 'lanyard-cli-emulator-secret-0000000000000001',
    callbackUrl: 'http://127.0.0.1/callback',
    deviceFlowEnabled: true,
    kind: 'oauth' as const,
  },
  noDeviceApp: {
    name: 'Web-only app (emulator)',
    clientId: 'lanyard-web-only',
    clientSecret: 'lanyard-web-only-secret-0000000000000002',
    callbackUrl: 'http://127.0.0.1/callback',
    deviceFlowEnabled: false,
    kind: 'oauth' as const,
  },
  installableApp: {
    name: 'Lanyard installable app (emulator)',
    clientId: 'Iv1.lanyardinstallable',
    clientSecret: 'lanyard-installable-secret-0000000000000003',
    callbackUrl: 'http://127.0.0.1/callback',
    deviceFlowEnabled: true,
    kind: 'installable' as const,
  },
} as const;

/** Default device-flow polling interval, seconds (admin verb `device-policy` changes it). */
export const DEFAULT_DEVICE_INTERVAL = 5;

export class HostingState {
  users = new Map<string, HostingUser>();
  apps = new Map<string, HostingApp>();
  tokens = new Map<string, HostingToken>();
  /** `<login>|<client_id>` → scopes the user has authorized for the app. */
  authorizations = new Map<string, Set<string>>();
  codes = new Map<string, AuthorizationCode>();
  devices = new Map<string, DeviceGrant>();
  userCodes = new Map<string, string>();
  refreshTokens = new Map<string, RefreshGrant>();
  sshKeys: SshKey[] = [];
  /** Browser sessions: cookie value → the logins signed in on that browser (current last). */
  sessions = new Map<string, string[]>();
  /** Timestamps of events inside sliding one-hour windows, by key. */
  windows = new Map<string, number[]>();
  devicePolicy: { interval: number; expiresIn: number; forceSlowDown: number } = {
    interval: DEFAULT_DEVICE_INTERVAL,
    expiresIn: Hosting.deviceCodeLifetimeSec,
    forceSlowDown: 0,
  };
  #nextUserId = 3;
  #nextId = 1;

  constructor(readonly now: () => number) {
    this.reset();
  }

  /** The login as its user has it (`MONA` → `mona`: the service matches logins whatever their case), or undefined. */
  login(name: string): string | undefined {
    if (this.users.has(name)) return name;
    const lower = name.toLowerCase();
    return [...this.users.keys()].find((l) => l.toLowerCase() === lower);
  }

  reset(): void {
    for (const m of [
      this.users,
      this.apps,
      this.tokens,
      this.authorizations,
      this.codes,
      this.devices,
      this.userCodes,
      this.refreshTokens,
      this.sessions,
      this.windows,
    ])
      m.clear();
    this.sshKeys = [];
    this.devicePolicy = { interval: DEFAULT_DEVICE_INTERVAL, expiresIn: Hosting.deviceCodeLifetimeSec, forceSlowDown: 0 };
    this.#nextUserId = 3;
    this.#nextId = 1;
    this.users.set(SEED.user.login, { ...SEED.user });
    this.users.set(SEED.secondUser.login, { ...SEED.secondUser });
    for (const a of [SEED.app, SEED.noDeviceApp, SEED.installableApp]) this.apps.set(a.clientId, { ...a });
    this.tokens.set(SEED.personalToken, {
      value: SEED.personalToken,
      kind: 'personal',
      login: SEED.user.login,
      scopes: ['repo', 'read:org', 'gist'],
      createdAt: this.now(),
      note: 'seeded emulator token',
    });
    this.sshKeys.push({
      id: this.nextId(),
      login: SEED.user.login,
      clientId: SEED.app.clientId,
      title: 'key generated by the Lanyard CLI app',
      key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEmulatorKeyOfMonaMadeByTheApp mona@emulator',
    });
    this.sshKeys.push({
      id: this.nextId(),
      login: SEED.user.login,
      title: 'key added by mona herself',
      key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEmulatorKeyOfMonaAddedByHand mona@laptop',
    });
  }

  nextId(): number {
    return this.#nextId++;
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

  /** The id of a token's authorization record (given on first use). */
  idOf(t: HostingToken): number {
    t.id ??= this.nextId();
    return t.id;
  }

  /**
   * A new value for an app token: same user, app and scopes. A reset keeps the
   * authorization id and the old value stops working; a scoped copy
   * (`reset` false) is a new authorization beside the old token.
   */
  newValueFor(old: HostingToken, reset: boolean): HostingToken {
    if (reset) old.revoked = true;
    const now = this.now();
    const t: HostingToken = {
      ...old,
      value: this.newTokenValue(old.kind),
      revoked: false,
      createdAt: now,
      ...(old.expiresAt !== undefined ? { expiresAt: now + InstallableTokens.accessTokenLifetimeSec * 1000 } : {}),
      id: reset ? old.id : undefined,
    };
    this.tokens.set(t.value, t);
    return t;
  }

  /** Records an event in a one-hour sliding window; returns how many are in it now (including this one). */
  hit(key: string, windowMs = 3_600_000): number {
    const now = this.now();
    const list = (this.windows.get(key) ?? []).filter((t) => t > now - windowMs);
    list.push(now);
    this.windows.set(key, list);
    return list.length;
  }

  /** Events of a window without recording one. */
  count(key: string, windowMs = 3_600_000): number {
    const now = this.now();
    return (this.windows.get(key) ?? []).filter((t) => t > now - windowMs).length;
  }

  authorizedScopes(login: string, clientId: string): Set<string> | undefined {
    return this.authorizations.get(`${login}|${clientId}`);
  }

  /**
   * Issues an access token for a user/app/scope combination: records the
   * authorization, keeps at most ten live tokens per combination (oldest
   * revoked), and for installable apps adds an expiry and a refresh token.
   */
  issueAppToken(app: HostingApp, login: string, scopes: string[]): { token: HostingToken; refresh?: RefreshGrant } {
    const now = this.now();
    const key = `${login}|${app.clientId}`;
    const granted = this.authorizations.get(key) ?? new Set<string>();
    for (const s of scopes) granted.add(s);
    this.authorizations.set(key, granted);
    this.hit(`created:${combination(login, app.clientId, scopes)}`);
    const installable = app.kind === 'installable';
    const token: HostingToken = {
      value: this.newTokenValue(installable ? 'installable-user' : 'oauth'),
      kind: installable ? 'installable-user' : 'oauth',
      login,
      clientId: app.clientId,
      scopes: [...scopes],
      createdAt: now,
      enterpriseCloud: app.enterpriseCloud,
      ...(installable ? { expiresAt: now + InstallableTokens.accessTokenLifetimeSec * 1000 } : {}),
    };
    this.tokens.set(token.value, token);
    this.#enforceCombinationLimit(login, app.clientId, scopes);
    if (!installable) return { token };
    const refresh: RefreshGrant = {
      value: 'lyr_' + randomBytes(30).toString('base64url'),
      clientId: app.clientId,
      login,
      scopes: [...scopes],
      expiresAt: now + InstallableTokens.refreshTokenLifetimeSec * 1000,
      used: false,
    };
    this.refreshTokens.set(refresh.value, refresh);
    return { token, refresh };
  }

  /** Tokens created for a combination within the last hour. */
  createdLastHour(login: string, clientId: string, scopes: string[]): number {
    return this.count(`created:${combination(login, clientId, scopes)}`);
  }

  #enforceCombinationLimit(login: string, clientId: string, scopes: string[]): void {
    const key = combination(login, clientId, scopes);
    const live = [...this.tokens.values()]
      .filter((t) => !t.revoked && t.login === login && t.clientId === clientId && combination(login, clientId, t.scopes) === key)
      .sort((a, b) => a.createdAt - b.createdAt);
    for (const t of live.slice(0, Math.max(0, live.length - Hosting.tokensPerCombination))) t.revoked = true;
  }

  /** The user revokes every grant of an app: tokens, refresh tokens, the authorization and the SSH keys it generated. */
  revokeApp(login: string, clientId: string): { tokens: number; sshKeys: number } {
    let tokens = 0;
    for (const t of this.tokens.values()) {
      if (t.login === login && t.clientId === clientId && !t.revoked) {
        t.revoked = true;
        tokens++;
      }
    }
    for (const r of this.refreshTokens.values()) if (r.login === login && r.clientId === clientId) r.used = true;
    this.authorizations.delete(`${login}|${clientId}`);
    const before = this.sshKeys.length;
    this.sshKeys = this.sshKeys.filter((k) => !(k.login === login && k.clientId === clientId));
    return { tokens, sshKeys: before - this.sshKeys.length };
  }
}

/** The identity of a user/application/scope combination (scope order does not matter). */
export function combination(login: string, clientId: string, scopes: readonly string[]): string {
  return `${login}|${clientId}|${[...new Set(scopes)].sort().join(',')}`;
}
