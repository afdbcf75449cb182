/**
 * Token management of the hosting REST API:
 * - an OAuth app checks, resets, scopes and deletes its users' tokens and
 *   deletes a grant (`/applications/{client_id}/token`, `/token/scoped`,
 *   `/grant`, Basic authentication with the app's client id and secret);
 * - a user lists, reads and revokes their personal tokens
 *   (`/authorizations`, Basic authentication with login and password), and
 *   on the settings page `/settings/tokens`.
 */
import { createHash } from 'node:crypto';
import { Hosting } from '../../../shared/constants.js';
import { escapeHtml as esc, type EmuRequest, type EmuResponse, type Router } from '../../router.js';
import { readJsonObject } from './body.js';
import { checkPassword, sessionUser, startSession } from './oauth/session.js';
import { credentialInputs, layout } from './oauth/pages.js';
import { oauthParams } from './oauth/wire.js';
import type { Caller } from './ratelimit/callers.js';
import { apiTime } from './repository.js';
import { simpleUserJson } from './rest.js';
import type { HostingState, HostingToken } from './state.js';
import { apiError, REST_DOCS } from './errors.js';

const DOCS = `${REST_DOCS}/apps/oauth-applications`;
export const TokensPagePath = '/settings/tokens';

/** The authorization object the API returns for a token (its value only when `withToken`). */
export function authorizationJson(state: HostingState, base: string, t: HostingToken, withToken = true): Record<string, unknown> {
  const api = base + Hosting.apiPathPrefix;
  const id = state.idOf(t);
  const app = t.clientId ? state.apps.get(t.clientId) : undefined;
  const user = t.login ? state.users.get(t.login) : undefined;
  return {
    id,
    url: `${api}/authorizations/${id}`,
    scopes: [...t.scopes],
    token: withToken ? t.value : '',
    token_last_eight: t.value.slice(-8),
    hashed_token: createHash('sha256').update(t.value).digest('base64'),
    app: app
      ? { name: app.name, url: app.callbackUrl, client_id: app.clientId }
      : { name: t.note ?? 'personal token', url: `${base}${TokensPagePath}`, client_id: '00000000000000000000' },
    note: t.note ?? null,
    note_url: null,
    fingerprint: null,
    created_at: apiTime(t.createdAt),
    updated_at: apiTime(t.createdAt),
    expires_at: t.expiresAt === undefined ? null : apiTime(t.expiresAt),
    user: user ? simpleUserJson(base, user) : null,
    installation: null,
  };
}

const notFound = (res: EmuResponse) => res.json(404, apiError(404, 'Not Found', undefined, DOCS));
const caller = (req: EmuRequest) => req.locals.rateLimitCaller as Caller | undefined;

/** The app named in the path, authenticated with its own client id and secret; else answered. */
function appOf(state: HostingState, req: EmuRequest, res: EmuResponse) {
  const c = caller(req);
  if (!c || c.kind === 'anonymous') {
    res.json(401, apiError(401, 'Requires authentication', undefined, DOCS));
    return undefined;
  }
  if (c.kind !== 'app' || c.clientId !== req.params.client_id) {
    notFound(res);
    return undefined;
  }
  return state.apps.get(c.clientId);
}

/** The app's live token named by `access_token` in the body; else answered. */
async function tokenOf(state: HostingState, req: EmuRequest, res: EmuResponse) {
  const app = appOf(state, req, res);
  if (!app) return undefined;
  const b = await readJsonObject(req);
  if (typeof b.access_token !== 'string' || !b.access_token) {
    res.json(422, apiError(422, 'Invalid request.\n\n"access_token" wasn\'t supplied.', undefined, DOCS));
    return undefined;
  }
  const t = state.activeToken(b.access_token);
  if (!t || t.clientId !== app.clientId) {
    notFound(res);
    return undefined;
  }
  return { app, t, body: b };
}

/** Tokens as an app sees them, as their user sees them (Basic authentication), and the settings page. */
export function registerTokenApi(router: Router, state: HostingState, base: () => string): void {
  registerAppTokenRoutes(router, state, base);
  registerAuthorizationRoutes(router, state, base);
  registerTokensPage(router, state);
}

/** An OAuth app's view of its users' tokens: check, reset, delete, delete the grant, scope (Basic: client id and secret). */
function registerAppTokenRoutes(router: Router, state: HostingState, base: () => string): void {
  const apps = `${Hosting.apiPathPrefix}/applications/:client_id`;

  router.post(`${apps}/token`, async (req, res) => {
    const r = await tokenOf(state, req, res);
    if (r) res.json(200, authorizationJson(state, base(), r.t));
  });
  router.route('PATCH', `${apps}/token`, async (req, res) => {
    const r = await tokenOf(state, req, res);
    if (r) res.json(200, authorizationJson(state, base(), state.newValueFor(r.t, true)));
  });
  router.delete(`${apps}/token`, async (req, res) => {
    const r = await tokenOf(state, req, res);
    if (!r) return;
    r.t.revoked = true;
    res.empty(204);
  });
  router.delete(`${apps}/grant`, async (req, res) => {
    const r = await tokenOf(state, req, res);
    if (!r) return;
    state.revokeApp(r.t.login!, r.app.clientId);
    res.empty(204);
  });
  router.post(`${apps}/token/scoped`, async (req, res) => {
    const r = await tokenOf(state, req, res);
    if (!r) return;
    if (r.app.kind !== 'installable') {
      return res.json(422, apiError(422, 'Only user access tokens of installable apps can be scoped.', undefined, DOCS));
    }
    const scoped = state.newValueFor(r.t, false);
    const json = authorizationJson(state, base(), scoped);
    const perms = r.body.permissions;
    res.json(200, { ...json, ...(perms && typeof perms === 'object' ? { permissions: perms } : {}) });
  });
}

/** A user's personal tokens, with Basic authentication (login and password): list, read, revoke. */
function registerAuthorizationRoutes(router: Router, state: HostingState, base: () => string): void {
  const auths = `${Hosting.apiPathPrefix}/authorizations`;
  const userOf = (req: EmuRequest, res: EmuResponse) => {
    const c = caller(req);
    const basic = /^basic\s/i.test(req.header('authorization') ?? '');
    if (c?.kind !== 'user' || !basic) {
      res.json(401, apiError(401, 'Requires authentication', undefined, `${REST_DOCS}/oauth-authorizations`));
      return undefined;
    }
    return c.login;
  };
  const personal = (login: string) => [...state.tokens.values()].filter((t) => t.kind === 'personal' && t.login === login && state.activeToken(t.value));
  router.get(auths, (req, res) => {
    const login = userOf(req, res);
    if (login)
      res.json(
        200,
        personal(login).map((t) => authorizationJson(state, base(), t, false)),
      );
  });
  router.get(`${auths}/:id`, (req, res) => {
    const login = userOf(req, res);
    if (!login) return;
    const t = personal(login).find((x) => String(state.idOf(x)) === req.params.id);
    if (!t) return notFound(res);
    res.json(200, authorizationJson(state, base(), t, false));
  });
  router.delete(`${auths}/:id`, (req, res) => {
    const login = userOf(req, res);
    if (!login) return;
    const t = personal(login).find((x) => String(state.idOf(x)) === req.params.id);
    if (!t) return notFound(res);
    t.revoked = true;
    res.empty(204);
  });
}

/** `/settings/tokens`: the signed-in user's personal tokens, each with a Delete button. */
function registerTokensPage(router: Router, state: HostingState): void {
  const handle = async (req: EmuRequest, res: EmuResponse) => {
    let user = sessionUser(state, req);
    const p = req.method === 'POST' ? await oauthParams(req) : {};
    if (p.password) {
      const u = checkPassword(state, p.login, p.password);
      if (!u) return res.html(401, signIn('Incorrect username or password.'));
      user = u;
      startSession(state, req, res, u.login);
    }
    if (!user) return res.html(200, signIn());
    let notice = '';
    if (p.revoke) {
      const t = [...state.tokens.values()].find((x) => x.kind === 'personal' && x.login === user.login && String(state.idOf(x)) === p.revoke);
      if (!t || t.revoked) return res.html(404, layout('Personal tokens', '<p class="error" id="error">No such token.</p>'));
      t.revoked = true;
      notice = `<p id="done">Token “${esc(t.note ?? '')}” (…${esc(t.value.slice(-4))}) deleted. Anything using it can no longer access your account.</p>`;
    }
    const live = [...state.tokens.values()].filter((t) => t.kind === 'personal' && t.login === user.login && state.activeToken(t.value));
    const rows = live
      .map(
        (t) =>
          `<li data-token-id="${state.idOf(t)}"><strong>${esc(t.note ?? '(no note)')}</strong> — <code>${esc(t.scopes.join(', ') || 'no scopes')}</code> — ends in <code>${esc(t.value.slice(-4))}</code>` +
          `<form method="post" action="${TokensPagePath}" style="display:inline"><button type="submit" name="revoke" value="${state.idOf(t)}" id="revoke-${state.idOf(t)}">Delete</button></form></li>`,
      )
      .join('');
    res.html(
      200,
      layout(
        'Personal tokens',
        `${notice}<p id="signed-in">Signed in as <strong>${esc(user.login)}</strong>.</p>` +
          (live.length ? `<ul id="tokens">${rows}</ul>` : '<p id="tokens">You have no personal tokens.</p>'),
      ),
    );
  };
  router.get(TokensPagePath, handle);
  router.post(TokensPagePath, handle);
}

function signIn(error?: string): string {
  return layout(
    'Sign in to manage your tokens',
    `${error ? `<p class="error" id="error">${esc(error)}</p>` : ''}<form method="post" action="${TokensPagePath}">${credentialInputs(undefined)}<button type="submit" id="sign-in">Sign in</button></form>`,
  );
}
