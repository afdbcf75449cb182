/**
 * Web application flow, step 1: GET /login/oauth/authorize shows the sign-in
 * and consent page; the form posts back to the same URL. Redirect URL rules,
 * the scope rules, `login`, `allow_signup`, `prompt=select_account`, and
 * authorization codes (10 minutes, single use, bound to their redirect_uri).
 */
import { Hosting } from '../../../../shared/constants.js';
import { HostingOAuthPath } from '../../../../shared/hosting-oauth.js';
import type { EmuRequest, EmuResponse, Router } from '../../../router.js';
import type { HostingApp, HostingState, HostingUser } from '../state.js';
import { consentPage, errorPage, layout, credentialInputs, hiddenFields } from './pages.js';
import { isHttpUri, redirectAllowed } from './redirect.js';
import { checkPassword, sessionLogins, sessionUser, startSession } from './session.js';
import { hex, oauthParams, parseScopes } from './wire.js';

/** Parameters of the authorize request carried through the form. */
const CARRIED = ['client_id', 'redirect_uri', 'scope', 'state', 'login', 'allow_signup', 'prompt'] as const;

interface AuthorizeRequest {
  app: HostingApp;
  params: Record<string, string>;
  redirectUri: string;
  redirectUriGiven: boolean;
  scopeGiven: boolean;
  scopes: string[];
}

/** Validates the request; answers with an error page and returns undefined when it is not acceptable. */
function validate(state: HostingState, p: Record<string, string>, res: EmuResponse): AuthorizeRequest | undefined {
  const app = p.client_id ? state.apps.get(p.client_id) : undefined;
  if (!app) {
    res.html(404, errorPage('Unknown application', `No application has the client_id "${p.client_id ?? ''}".`));
    return undefined;
  }
  if (p.code_challenge !== undefined || p.code_challenge_method !== undefined) {
    res.html(400, errorPage('Unsupported parameter', 'PKCE parameters (code_challenge, code_challenge_method) are not supported by this service.'));
    return undefined;
  }
  if (p.response_type !== undefined && p.response_type !== 'code') {
    res.html(400, errorPage('Unsupported response type', 'Only the authorization code grant is supported; the implicit grant is not.'));
    return undefined;
  }
  const given = p.redirect_uri !== undefined && p.redirect_uri !== '';
  if (given && !redirectAllowed(app.callbackUrl, p.redirect_uri!)) {
    res.html(
      400,
      errorPage(
        'redirect_uri_mismatch',
        "The redirect_uri is not associated with this application: it must be on the callback URL's host (or a sub-domain) and port, at or below its path.",
      ),
    );
    return undefined;
  }
  const scopeGiven = p.scope !== undefined;
  return { app, params: p, redirectUri: given ? p.redirect_uri! : app.callbackUrl, redirectUriGiven: given, scopeGiven, scopes: parseScopes(p.scope) };
}

function redirectWith(res: EmuResponse, target: string, fields: Record<string, string | undefined>): void {
  const u = new URL(target);
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) u.searchParams.append(k, v);
  res.redirect(302, u.toString(), { 'cache-control': 'no-store' });
}

function issueCode(state: HostingState, a: AuthorizeRequest, user: HostingUser, scopes: string[], res: EmuResponse): void {
  const code = hex(10);
  state.codes.set(code, {
    code,
    clientId: a.app.clientId,
    login: user.login,
    scopes,
    redirectUri: a.redirectUri,
    redirectUriGiven: a.redirectUriGiven,
    expiresAt: state.now() + Hosting.authCodeLifetimeSec * 1000,
    used: false,
  });
  redirectWith(res, a.redirectUri, { code, state: a.params.state });
}

/** The scopes to grant: those requested, or (scope omitted) the union the user already authorized. */
function grantedScopes(state: HostingState, a: AuthorizeRequest, user: HostingUser | undefined): string[] {
  if (a.scopeGiven || !user) return a.scopes;
  return [...(state.authorizedScopes(user.login, a.app.clientId) ?? [])];
}

function showPage(
  state: HostingState,
  a: AuthorizeRequest,
  req: EmuRequest,
  user: HostingUser | undefined,
  res: EmuResponse,
  error?: string,
  status = 200,
): void {
  const p = a.params;
  const accounts = sessionLogins(state, req);
  const picker = !!user && (p.prompt === 'select_account' || !isHttpUri(a.redirectUri) || accounts.length > 1);
  const scopes = grantedScopes(state, a, user);
  const notes: string[] = [];
  if (user && state.createdLastHour(user.login, a.app.clientId, scopes) >= Hosting.tokensCreatedPerHour) {
    notes.push('This application has created many tokens for you in the last hour. Please re-authorize it to continue.');
  }
  const hidden = Object.fromEntries(CARRIED.map((k) => [k, p[k]]));
  res.html(
    status,
    consentPage({
      action: HostingOAuthPath.authorize,
      appName: a.app.name,
      scopes,
      hidden,
      current: user?.login,
      accounts: picker ? accounts : undefined,
      askCredentials: !user || picker,
      suggestedLogin: p.login,
      signupUrl:
        p.allow_signup === 'false'
          ? undefined
          : `${HostingOAuthPath.signup}?return_to=${encodeURIComponent(`${HostingOAuthPath.authorize}?${new URLSearchParams(Object.entries(hidden).filter((e): e is [string, string] => e[1] !== undefined)).toString()}`)}`,
      error,
      notes,
    }),
  );
}

export function registerAuthorize(router: Router, state: HostingState): void {
  router.get(HostingOAuthPath.authorize, async (req, res) => {
    const a = validate(state, await oauthParams(req), res);
    if (!a) return;
    const user = sessionUser(state, req);
    // Already authorized (or scope omitted with earlier grants): skip the page, unless
    // the account picker is due or the re-authorization prompt applies.
    if (user && a.params.prompt !== 'select_account' && isHttpUri(a.redirectUri) && sessionLogins(state, req).length === 1) {
      const authorized = state.authorizedScopes(user.login, a.app.clientId);
      const scopes = grantedScopes(state, a, user);
      const covered = !!authorized && authorized.size > 0 && scopes.every((s) => authorized.has(s));
      const prompt = state.createdLastHour(user.login, a.app.clientId, scopes) >= Hosting.tokensCreatedPerHour;
      if (covered && !prompt && (!a.params.login || a.params.login === user.login)) return issueCode(state, a, user, scopes, res);
    }
    showPage(state, a, req, user, res);
  });

  router.post(HostingOAuthPath.authorize, async (req, res) => {
    const a = validate(state, await oauthParams(req), res);
    if (!a) return;
    const p = a.params;
    let user = sessionUser(state, req);
    if (p.password) {
      const u = checkPassword(state, p.login, p.password);
      if (!u) return showPage(state, a, req, undefined, res, 'Incorrect username or password.', 401);
      user = u;
      startSession(state, req, res, u.login);
    } else if (p.account && sessionLogins(state, req).includes(p.account)) {
      user = state.users.get(p.account);
    }
    if (p.authorize === '0')
      return redirectWith(res, a.redirectUri, { error: 'access_denied', error_description: 'The user has denied your application access.', state: p.state });
    if (!user) return showPage(state, a, req, undefined, res, 'Sign in to continue.', 401);
    if (p.authorize !== '1') return showPage(state, a, req, user, res);
    issueCode(state, a, user, grantedScopes(state, a, user), res);
  });

  router.route('OPTIONS', HostingOAuthPath.authorize, (_req, res) => res.json(405, { message: 'CORS pre-flight requests are not supported' }));

  // Sign-up during the flow (offered unless allow_signup=false).
  router.get(HostingOAuthPath.signup, (req, res) => {
    res.html(200, signupPage(safeReturn(req.query.get('return_to'))));
  });
  router.post(HostingOAuthPath.signup, async (req, res) => {
    const p = await oauthParams(req);
    const back = safeReturn(p.return_to);
    if (!p.login || !/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/.test(p.login) || !p.password || p.password.length < 8) {
      return res.html(400, signupPage(back, 'Choose a username (letters, digits, hyphens) and a password of at least 8 characters.'));
    }
    if (state.users.has(p.login)) return res.html(409, signupPage(back, `The username ${p.login} is taken.`));
    state.addUser({ login: p.login, password: p.password, name: p.login, email: `${p.login}@example.com` });
    startSession(state, req, res, p.login);
    res.redirect(302, back);
  });
}

/**
 * A local path to go back to after sign-up: anything a browser could read as
 * another origin (`//x`, `/\\x`, a scheme, control characters) becomes `/`.
 */
export function safeReturn(v: string | null | undefined): string {
  if (!v?.startsWith('/') || /[\\\x00-\x20\x7f]/.test(v)) return '/';
  const base = 'http://emulator.invalid';
  try {
    const u = new URL(v, base);
    return u.origin === base ? u.pathname + u.search + u.hash : '/';
  } catch {
    return '/';
  }
}

function signupPage(returnTo: string, error?: string): string {
  return layout(
    'Create your account',
    `${error ? `<p class="error" id="error">${error.replace(/[<>&]/g, '')}</p>` : ''}<form method="post" action="${HostingOAuthPath.signup}">` +
      `${hiddenFields({ return_to: returnTo })}${credentialInputs(undefined)}<button type="submit" id="create">Create account</button></form>`,
  );
}
