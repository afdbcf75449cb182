/**
 * Who is calling, and how big each of their buckets is: the rows of the
 * spec's "Primary REST limits" table. Pure functions over the hosting state.
 */
import { PrimaryLimits } from '../../../../shared/constants.js';
import { RATE_LIMIT_RESOURCES } from '../../../../shared/rate-limit-resources.js';
import type { HostingState, HostingToken } from '../state.js';

export type Caller =
  | { kind: 'anonymous'; key: string; ip: string; badCredentials: boolean }
  | { kind: 'user'; key: string; ip: string; login: string; userId: number; higherLimit: boolean }
  | { kind: 'installation'; key: string; ip: string; id: number; repositories: number; users: number; enterprise: boolean }
  | { kind: 'workflow'; key: string; ip: string; repository: string; enterprise: boolean }
  | { kind: 'app'; key: string; ip: string; clientId: string; enterprise: boolean };

export function normaliseIp(ip: string): string {
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}

/** Identifies the caller of a request from its Authorization header. */
export function identifyCaller(state: HostingState, authorization: string | undefined, rawIp: string): Caller {
  const ip = normaliseIp(rawIp);
  const anonymous = (bad: boolean): Caller => ({ kind: 'anonymous', key: `ip:${ip}`, ip, badCredentials: bad });
  if (!authorization?.trim()) return anonymous(false);
  const bearer = /^(?:bearer|token)\s+(\S+)\s*$/i.exec(authorization);
  if (bearer) {
    const t = state.activeToken(bearer[1]);
    return t ? (callerOfToken(state, t, ip) ?? anonymous(true)) : anonymous(true);
  }
  const basic = /^basic\s+(\S+)\s*$/i.exec(authorization);
  if (basic) {
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    const user = i < 0 ? decoded : decoded.slice(0, i);
    const pass = i < 0 ? '' : decoded.slice(i + 1);
    const app = state.apps.get(user);
    if (app && app.clientSecret === pass) {
      return { kind: 'app', key: `app:${app.clientId}`, ip, clientId: app.clientId, enterprise: !!app.enterpriseCloud };
    }
    const u = state.users.get(user);
    if (u && u.password === pass) return { kind: 'user', key: `user:${u.login}`, ip, login: u.login, userId: u.id, higherLimit: false };
    // git-style Basic with a token as the password.
    const t = state.activeToken(pass);
    if (t) return callerOfToken(state, t, ip) ?? anonymous(true);
  }
  return anonymous(true);
}

function callerOfToken(state: HostingState, t: HostingToken, ip: string): Caller | undefined {
  switch (t.kind) {
    case 'installation': {
      const inst = t.installation ?? { id: 0, repositories: 0, users: 0 };
      return {
        kind: 'installation',
        key: `installation:${inst.id}`,
        ip,
        id: inst.id,
        repositories: inst.repositories,
        users: inst.users,
        enterprise: !!(inst.enterpriseCloud || inst.enterprise),
      };
    }
    case 'workflow':
      return { kind: 'workflow', key: `workflow:${t.repository ?? 'unknown'}`, ip, repository: t.repository ?? 'unknown', enterprise: !!t.enterpriseCloud };
    default: {
      const u = t.login ? state.users.get(t.login) : undefined;
      if (!u) return undefined;
      const app = t.clientId ? state.apps.get(t.clientId) : undefined;
      // An enterprise-cloud app (or installable app) acting for a member gets 15,000.
      const higherLimit = !!(t.enterpriseCloud || (app?.enterpriseCloud && u.enterpriseCloud));
      return { kind: 'user', key: `user:${u.login}`, ip, login: u.login, userId: u.id, higherLimit };
    }
  }
}

/** 5,000 + 50 per repository above 20 + 50 per user above 20, never above 12,500. */
export function installationLimit(repositories: number, users: number): number {
  const L = PrimaryLimits;
  const extra = L.installationPerRepoAbove20 * Math.max(0, repositories - 20) + L.installationPerUserAbove20 * Math.max(0, users - 20);
  return Math.min(L.installationCap, L.installationBasic + extra);
}

/** The core (per hour) limit of a caller. */
export function coreLimit(c: Caller): number {
  const L = PrimaryLimits;
  switch (c.kind) {
    case 'anonymous':
      return L.unauthenticated;
    case 'user':
      return c.higherLimit ? L.enterpriseCloud : L.authenticatedUser;
    case 'installation':
      return c.enterprise ? L.enterpriseCloud : installationLimit(c.repositories, c.users);
    case 'workflow':
      return c.enterprise ? L.workflowTokenEnterprisePerRepo : L.workflowTokenPerRepo;
    case 'app':
      return c.enterprise ? L.enterpriseCloud : L.oauthAppBasic;
  }
}

export interface ResourceLimit {
  limit: number;
  windowSec: number;
}

/**
 * Every bucket the emulator keeps: the families `GET /rate_limit` reports, in
 * its order (a spec constant shared with the client), plus `lfs`, named only in
 * `x-ratelimit-resource` headers.
 */
export const RESOURCES = [...RATE_LIMIT_RESOURCES, 'lfs'] as const;
export type Resource = (typeof RESOURCES)[number];

/** The size and window of one of a caller's buckets. */
export function resourceLimit(c: Caller, resource: Resource): ResourceLimit {
  const L = PrimaryLimits;
  const anon = c.kind === 'anonymous';
  const hour = (limit: number) => ({ limit, windowSec: 3600 });
  const minute = (limit: number) => ({ limit, windowSec: 60 });
  switch (resource) {
    case 'core':
      return hour(coreLimit(c));
    case 'search':
      return minute(anon ? L.searchUnauthenticatedPerMinute : L.searchAuthenticatedPerMinute);
    case 'code_search':
      return minute(L.codeSearchPerMinute);
    case 'graphql':
      return hour(anon ? 0 : c.kind === 'user' && !c.higherLimit ? L.graphqlPerHour : coreLimit(c));
    case 'lfs':
      return minute(anon ? L.lfsUnauthenticatedPerMinute : L.lfsAuthenticatedPerMinute);
    case 'audit_log':
      return hour(anon ? 0 : L.auditLog);
    case 'integration_manifest':
      return hour(5000);
    case 'source_import':
      return minute(anon ? 5 : 100);
    case 'code_scanning_upload':
      return hour(anon ? 60 : coreLimit(c));
    case 'code_scanning_autofix':
      return minute(anon ? 0 : 10);
    case 'actions_runner_registration':
      return hour(anon ? 0 : 10_000);
    case 'scim':
      return hour(anon ? 0 : 15_000);
    case 'dependency_snapshots':
      return minute(anon ? 0 : 100);
    case 'dependency_sbom':
      return hour(anon ? 0 : 100);
    case 'audit_log_streaming':
      return minute(anon ? 0 : 15);
  }
}

/** The bucket key of a caller for a resource: per user (or IP); audit log per user and IP. */
export function bucketKey(c: Caller, resource: Resource): string {
  return resource === 'audit_log' && c.kind !== 'anonymous' ? `${c.key}|ip:${c.ip}` : c.key;
}

/** The primary-limit message real clients detect ("API rate limit exceeded for …"). */
export function primaryMessage(c: Caller): string {
  switch (c.kind) {
    case 'anonymous':
      return `API rate limit exceeded for ${c.ip}. (But here's the good news: Authenticated requests get a higher rate limit. Check out the documentation for more details.)`;
    case 'user':
      return `API rate limit exceeded for user ID ${c.userId}.`;
    case 'installation':
      return `API rate limit exceeded for installation ID ${c.id}.`;
    case 'workflow':
      return `API rate limit exceeded for the workflow token of ${c.repository}.`;
    case 'app':
      return `API rate limit exceeded for ${c.clientId}.`;
  }
}
