/**
 * The user review link: /settings/connections/applications/:client_id shows
 * what an app was granted and lets the user revoke it. Revoking deletes the
 * app's tokens and the SSH keys it generated for the user.
 */
import { HostingOAuthPath } from '../../../../shared/hosting-oauth.js';
import { escapeHtml as esc, type EmuRequest, type EmuResponse, type Router } from '../../../router.js';
import type { HostingApp, HostingState, HostingUser } from '../state.js';
import { credentialInputs, errorPage, layout } from './pages.js';
import { checkPassword, sessionUser, startSession } from './session.js';
import { oauthParams } from './wire.js';

function reviewPage(state: HostingState, app: HostingApp, user: HostingUser, action: string): string {
  const scopes = [...(state.authorizedScopes(user.login, app.clientId) ?? [])];
  const tokens = [...state.tokens.values()].filter((t) => t.login === user.login && t.clientId === app.clientId && !t.revoked).length;
  const keys = state.sshKeys.filter((k) => k.login === user.login && k.clientId === app.clientId);
  const granted = state.authorizedScopes(user.login, app.clientId) !== undefined || tokens > 0;
  return layout(
    app.name,
    `<p id="signed-in">Signed in as <strong>${esc(user.login)}</strong>.</p>` +
      (granted
        ? `<p id="status">This application is authorized with ${scopes.length ? `scopes: <code>${esc(scopes.join(', '))}</code>` : 'no scopes (public information)'}; ${tokens} active token(s).</p>` +
          `<p>SSH keys it generated: ${keys.length ? keys.map((k) => esc(k.title)).join(', ') : 'none'}. Revoking access deletes them.</p>` +
          `<form method="post" action="${esc(action)}"><button type="submit" name="revoke" value="1" id="revoke">Revoke access</button></form>`
        : '<p id="status">This application is not authorized for your account.</p>'),
  );
}

function signInPage(action: string, error?: string): string {
  return layout(
    'Sign in to review this application',
    `${error ? `<p class="error" id="error">${esc(error)}</p>` : ''}<form method="post" action="${esc(action)}">${credentialInputs(undefined)}<button type="submit" id="sign-in">Sign in</button></form>`,
  );
}

export function registerApplicationsPage(router: Router, state: HostingState): void {
  const path = `${HostingOAuthPath.applications}/:client_id`;
  const handle = async (req: EmuRequest, res: EmuResponse) => {
    const app = state.apps.get(req.params.client_id!);
    const action = `${HostingOAuthPath.applications}/${encodeURIComponent(req.params.client_id!)}`;
    if (!app) return res.html(404, errorPage('Unknown application', 'No application has this client id.'));
    let user = sessionUser(state, req);
    const p = req.method === 'POST' ? await oauthParams(req) : {};
    if (p.password) {
      const u = checkPassword(state, p.login, p.password);
      if (!u) return res.html(401, signInPage(action, 'Incorrect username or password.'));
      user = u;
      startSession(state, req, res, u.login);
    }
    if (!user) return res.html(200, signInPage(action));
    if (p.revoke === '1') {
      const r = state.revokeApp(user.login, app.clientId);
      return res.html(
        200,
        layout('Access revoked', `<p id="done">${esc(app.name)} no longer has access: ${r.tokens} token(s) revoked, ${r.sshKeys} SSH key(s) deleted.</p>`),
      );
    }
    res.html(200, reviewPage(state, app, user, action));
  };
  router.get(path, handle);
  router.post(path, handle);
}
