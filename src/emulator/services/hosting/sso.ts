/**
 * Organisations, their single sign-on enforcement, and expiring personal
 * tokens — as the code host answers them:
 * - a request with a token (personal or an OAuth app's) that is not
 *   authorised for an organisation enforcing single sign-on gets, for that
 *   organisation's resources (`GET /orgs/{org}`), a 403 with
 *   `X-GitHub-SSO: required; url=<base>/orgs/{org}/sso?authorization_request=…`;
 * - a listing (`GET /user/orgs`) leaves those organisations out and says so:
 *   `X-GitHub-SSO: partial-results; organizations=<id>,<id>`;
 * - every response to a request authenticated by a personal token that
 *   expires carries `GitHub-Authentication-Token-Expiration: YYYY-MM-DD HH:MM:SS UTC`.
 * Admin verbs: `sso {org, required}`, `sso-authorize {org, token}`,
 * `issue-personal-token {login, scopes?, expiresIn? (seconds), note?}`.
 */
import { randomBytes } from 'node:crypto';
import { Hosting } from '../../../shared/constants.js';
import type { AdminVerb, EmulatorEnv } from '../../service.js';
import { escapeHtml as esc, type EmuRequest, type Router } from '../../router.js';
import { layout } from './oauth/pages.js';
import { nodeIdOf } from './repository.js';
import type { HostingState, HostingToken } from './state.js';
import { apiError } from './errors.js';

interface Org {
  login: string;
  id: number;
  members: string[];
  /** Single sign-on enforced for tokens. */
  sso: boolean;
  /** Token values authorised for the organisation's single sign-on. */
  authorized: Set<string>;
}

/** The seeded organisations (ids as in the code host's documentation of the header). */
const SEED_ORGS = [
  { login: 'ent-corp', id: 21955855, members: ['mona', 'hubot'] },
  { login: 'octo-org', id: 20582480, members: ['mona'] },
];

const orgsOf = new WeakMap<HostingState, Map<string, Org>>();

function orgs(state: HostingState): Map<string, Org> {
  let m = orgsOf.get(state);
  if (!m) orgsOf.set(state, (m = new Map()));
  if (!m.size) for (const o of SEED_ORGS) m.set(o.login, { ...o, members: [...o.members], sso: false, authorized: new Set() });
  return m;
}

export function resetSso(state: HostingState): void {
  orgsOf.get(state)?.clear();
}

/** The token a request carries (Bearer, or a token as the Basic password), when it is a live one. */
function tokenOf(state: HostingState, req: EmuRequest): HostingToken | undefined {
  const a = req.header('authorization') ?? '';
  const bearer = /^(?:bearer|token)\s+(\S+)\s*$/i.exec(a);
  if (bearer) return state.activeToken(bearer[1]);
  const basic = /^basic\s+(\S+)\s*$/i.exec(a);
  if (!basic) return undefined;
  const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
  return state.activeToken(decoded.slice(decoded.indexOf(':') + 1));
}

/** `2026-12-31 23:59:59 UTC` */
const expirationText = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/** Held back by single sign-on: the org enforces it and the request's token is not authorised (password requests are not). */
function blocked(state: HostingState, req: EmuRequest, o: Org): boolean {
  if (!o.sso) return false;
  const t = tokenOf(state, req);
  return !!t && (t.kind === 'personal' || t.kind === 'oauth') && !o.authorized.has(t.value);
}

/** The expiration header of expiring personal tokens and the organisations' routes; returns the admin verbs of single sign-on. */
export function registerSso(router: Router, state: HostingState, env: EmulatorEnv): Record<string, AdminVerb> {
  const api = Hosting.apiPathPrefix;
  router.use(api, (req, res, next) => {
    const t = tokenOf(state, req);
    if (t?.kind === 'personal' && t.expiresAt !== undefined) res.extraHeaders['github-authentication-token-expiration'] = expirationText(t.expiresAt);
    return next();
  });
  registerOrgRoutes(router, state, env);
  return ssoAdmin(state);
}

/** The signed-in user's organisations, one organisation, and the single sign-on page a 403 names. */
function registerOrgRoutes(router: Router, state: HostingState, env: EmulatorEnv): void {
  const api = Hosting.apiPathPrefix;
  const orgJson = (o: Org) => ({
    login: o.login,
    id: o.id,
    node_id: nodeIdOf('Organization', o.id),
    url: `${env.baseUrl()}${api}/orgs/${o.login}`,
    description: null,
  });

  router.get(`${api}/user/orgs`, (req, res) => {
    const who = tokenOf(state, req)?.login;
    if (!who) return res.json(401, apiError(401, 'Requires authentication'));
    const mine = [...orgs(state).values()].filter((o) => o.members.includes(who));
    const left = mine.filter((o) => blocked(state, req, o));
    res.json(
      200,
      mine.filter((o) => !left.includes(o)).map(orgJson),
      left.length ? { 'x-github-sso': `partial-results; organizations=${left.map((o) => o.id).join(',')}` } : {},
    );
  });

  router.get(`${api}/orgs/:org`, (req, res) => {
    const o = orgs(state).get(req.params.org!);
    if (!o) return res.json(404, apiError(404, 'Not Found'));
    if (blocked(state, req, o)) {
      const url = `${env.baseUrl()}/orgs/${o.login}/sso?authorization_request=${randomBytes(12).toString('hex')}`;
      return res.json(
        403,
        {
          message: `Resource protected by organization SAML enforcement. You must grant your Personal Access token access to this organization.`,
          documentation_url: 'https://docs.example.com/articles/authenticating-to-a-github-organization-with-saml-single-sign-on/',
          status: '403',
        },
        { 'x-github-sso': `required; url=${url}` },
      );
    }
    res.json(200, orgJson(o));
  });

  // The page the 403 names: what the person would see before signing in with the organisation's identity provider.
  router.get('/orgs/:org/sso', (req, res) => {
    const o = orgs(state).get(req.params.org!);
    if (!o) return res.html(404, layout('Single sign-on', '<p id="error">No such organisation.</p>'));
    res.html(200, layout('Single sign-on', `<p id="sso">Authorise your token for <strong>${esc(o.login)}</strong> with its identity provider.</p>`));
  });
}

/** Admin verbs: single sign-on of an organisation, authorising a token for it, an (expiring) personal token. */
function ssoAdmin(state: HostingState): Record<string, AdminVerb> {
  const org = (v: unknown) => {
    const o = orgs(state).get(String(v));
    if (!o) throw new Error(`no organisation ${String(v)} (seeded: ${SEED_ORGS.map((x) => x.login).join(', ')})`);
    return o;
  };
  return {
    /** {org, required?}: the organisation enforces single sign-on for tokens (default true). */
    sso: (b) => {
      const o = org(b.org);
      o.sso = b.required !== false;
      return { org: o.login, id: o.id, required: o.sso };
    },
    /** {org, token}: authorises a token for the organisation's single sign-on. */
    'sso-authorize': (b) => {
      const o = org(b.org);
      if (typeof b.token !== 'string' || !state.tokens.has(b.token)) throw new Error('no such token');
      o.authorized.add(b.token);
      return { org: o.login, authorized: true };
    },
    /** {login, scopes?, expiresIn? (seconds; none: no expiry), note?}: a personal token as the settings page would create it. */
    'issue-personal-token': (b) => {
      const who = String(b.login ?? '');
      if (!state.users.has(who)) throw new Error(`no user ${who}`);
      const now = state.now();
      const t: HostingToken = {
        value: state.newTokenValue('personal'),
        kind: 'personal',
        login: who,
        scopes: Array.isArray(b.scopes) ? b.scopes.map(String) : typeof b.scopes === 'string' ? b.scopes.split(/[ ,]+/).filter(Boolean) : ['repo'],
        createdAt: now,
        note: typeof b.note === 'string' ? b.note : 'issued by the admin API',
        ...(b.expiresIn !== undefined ? { expiresAt: now + Number(b.expiresIn) * 1000 } : {}),
      };
      state.tokens.set(t.value, t);
      return { token: t.value, scopes: t.scopes, expires_at: t.expiresAt ?? null };
    },
  };
}
