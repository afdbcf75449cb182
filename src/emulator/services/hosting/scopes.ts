/**
 * The OAuth scope headers of the hosting REST API: `x-oauth-scopes` (what the
 * request's token was granted) and `x-accepted-oauth-scopes` (what the
 * endpoint accepts), on every response to a request made with a classic
 * token (personal or OAuth app). Installable-app and automation tokens carry
 * permissions, not scopes, and get neither header.
 */
import type { EmuRequest } from '../../router.js';
import type { HostingState, HostingToken } from './state.js';

/** The token a request carries: `Bearer`/`token` header, or Basic with a token as the password (git style). */
export function tokenOfRequest(state: HostingState, authorization: string | undefined): HostingToken | undefined {
  if (!authorization) return undefined;
  const bearer = /^(?:bearer|token)\s+(\S+)\s*$/i.exec(authorization);
  if (bearer) return state.activeToken(bearer[1]);
  const basic = /^basic\s+(\S+)\s*$/i.exec(authorization);
  if (!basic) return undefined;
  const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  return i < 0 ? undefined : state.activeToken(decoded.slice(i + 1));
}

const ISSUE_WRITES = /^\/api\/v3\/repos\/[^/]+\/[^/]+\/(?:issues|labels|milestones)(?:\/|$)/;

/** Scopes an endpoint accepts, by method and path pattern (first match); the rest accept any token. */
const ACCEPTED: Array<[method: string, pattern: RegExp, scopes: string]> = [
  ['GET', /^\/api\/v3\/repos\/[^/]+\/[^/]+\/?$/, 'repo'],
  // Writes to issues, comments, labels, milestones and reactions need one of them (public_repo for a public repository); reads need none.
  ['POST', ISSUE_WRITES, 'public_repo, repo'],
  ['PATCH', ISSUE_WRITES, 'public_repo, repo'],
  ['PUT', ISSUE_WRITES, 'public_repo, repo'],
  ['DELETE', ISSUE_WRITES, 'public_repo, repo'],
  ['PUT', /^\/api\/v3\/user\/starred\/[^/]+\/[^/]+\/?$/, 'public_repo, repo'],
  ['DELETE', /^\/api\/v3\/user\/starred\/[^/]+\/[^/]+\/?$/, 'public_repo, repo'],
  ['POST', /^\/api\/v3\/user\/repos\/?$/, 'public_repo, repo'],
  ['GET', /^\/api\/v3\/user\/repos\/?$/, ''],
  ['GET', /^\/api\/v3\/enterprises\/[^/]+\/audit-log\/?$/, 'read:audit_log'],
  ['GET', /^\/api\/v3\/user\/?$/, ''],
  ['GET', /^\/api\/v3\/user\/emails\/?$/, 'user, user:email'],
];

/**
 * Whether a classic token's scopes let it write to (or create) a repository: `repo` for any, `public_repo`
 * for a public one, as the service's scope rules say. `scopes` undefined: not a classic token (an
 * installable app's carries permissions), which scopes do not limit.
 */
export function scopesWrite(scopes: readonly string[] | undefined, privateRepo: boolean): boolean {
  return !scopes || scopes.includes('repo') || (!privateRepo && scopes.includes('public_repo'));
}

export function acceptedScopes(method: string, path: string): string {
  const m = method === 'HEAD' ? 'GET' : method;
  return ACCEPTED.find(([am, re]) => am === m && re.test(path))?.[2] ?? '';
}

export function scopeHeaders(state: HostingState, req: EmuRequest): Record<string, string> {
  const t = tokenOfRequest(state, req.header('authorization'));
  if (!t || (t.kind !== 'personal' && t.kind !== 'oauth')) return {};
  return { 'x-oauth-scopes': t.scopes.join(', '), 'x-accepted-oauth-scopes': acceptedScopes(req.method, req.path) };
}
