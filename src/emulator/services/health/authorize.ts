/**
 * `{authUrl}/common/oauth2/authorize`: the implicit-flow sign-in page. GET shows
 * the form; POST checks the credentials and redirects to the registered-style
 * redirect URI with the token in the fragment.
 */
import { Health } from '../../../shared/constants.js';
import { escapeHtml, type EmuRequest, type EmuResponse, type Router } from '../../router.js';
import type { HealthState } from './state.js';

interface AuthorizeParams {
  response_type: string;
  client_id: string;
  redirect_uri: string;
  scope: string;
  state: string;
  nonce: string;
  login_hint: string;
}

const FIELDS: Array<keyof AuthorizeParams> = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'nonce', 'login_hint'];

function readParams(p: Record<string, string>): AuthorizeParams {
  const out = {} as AuthorizeParams;
  for (const f of FIELDS) out[f] = p[f] ?? '';
  return out;
}

/** Loopback on any port, or HTTPS: anything else is refused (no redirect to an unchecked URI). */
function redirectUriProblem(uri: string): string | undefined {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return 'redirect_uri is missing or not an absolute URL';
  }
  if (u.hash) return 'redirect_uri must not contain a fragment';
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
  if (u.protocol === 'https:' || (u.protocol === 'http:' && loopback)) return undefined;
  return 'redirect_uri must be HTTPS or an http://127.0.0.1 / localhost address';
}

const page = (title: string, body: string) =>
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">' +
  `<title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:26rem;margin:4rem auto;padding:0 1rem;color:#1b1b1b}` +
  'label{display:block;margin:.8rem 0 .2rem}input[type=email],input[type=password]{width:100%;padding:.4rem;box-sizing:border-box}' +
  'button{margin:1rem .5rem 0 0;padding:.45rem 1.2rem}.err{color:#a4262c}.scope{color:#555;font-size:.9rem}</style></head>' +
  `<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;

function errorPage(res: EmuResponse, message: string): void {
  res.html(
    400,
    page(
      'Sign-in error',
      `<p class="err" id="error">${escapeHtml(message)}</p><p>The application sent an invalid sign-in request; nothing was sent back to it.</p>`,
    ),
  );
}

function form(p: AuthorizeParams, error?: string): string {
  const hidden = FIELDS.filter((f) => f !== 'login_hint')
    .map((f) => `<input type="hidden" name="${f}" value="${escapeHtml(p[f])}">`)
    .join('');
  return page(
    'Sign in',
    `<p>Sign in to continue to the service-health API.</p>` +
      `<p class="scope">The application <code>${escapeHtml(p.client_id)}</code> asks to <strong>access the API as you</strong> (<code>${escapeHtml(p.scope)}</code>).</p>` +
      (error ? `<p class="err" id="error">${escapeHtml(error)}</p>` : '') +
      `<form method="post" action="${Health.authorizePath}">${hidden}` +
      `<label for="login">Email</label><input type="email" id="login" name="login" autocomplete="username" value="${escapeHtml(p.login_hint)}" required>` +
      '<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password">' +
      '<button type="submit" name="action" value="signin" id="signin">Sign in</button>' +
      '<button type="submit" name="action" value="cancel" id="cancel" formnovalidate>Cancel</button></form>',
  );
}

function fragmentRedirect(res: EmuResponse, redirectUri: string, fields: Record<string, string>): void {
  const frag = new URLSearchParams(fields).toString();
  res.redirect(302, `${redirectUri}#${frag}`, { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
}

/** Checks everything that decides whether we may redirect at all, then what we redirect with. */
function validate(p: AuthorizeParams, state: HealthState): { fatal?: string; oauthError?: [string, string] } {
  if (!p.client_id) return { fatal: 'client_id is missing' };
  if (!state.clients.has(p.client_id)) return { fatal: `unknown client_id '${p.client_id}'` };
  const bad = redirectUriProblem(p.redirect_uri);
  if (bad) return { fatal: bad };
  if (p.response_type !== 'token') return { oauthError: ['unsupported_response_type', `response_type '${p.response_type}' is not supported; use 'token'`] };
  const scopes = p.scope.split(/\s+/).filter(Boolean);
  if (!scopes.some((s) => s === Health.scope || s.endsWith('/' + Health.scope)))
    return { oauthError: ['invalid_scope', `the scope must include ${Health.scope}`] };
  return {};
}

export function registerAuthorize(router: Router, state: HealthState): void {
  const handle = async (req: EmuRequest, res: EmuResponse) => {
    const raw = await req.params_();
    const p = readParams(raw);
    const v = validate(p, state);
    if (v.fatal) return errorPage(res, v.fatal);
    const withState = (f: Record<string, string>) => (p.state ? { ...f, state: p.state } : f);
    if (v.oauthError) return fragmentRedirect(res, p.redirect_uri, withState({ error: v.oauthError[0], error_description: v.oauthError[1] }));
    if (req.method === 'GET') return res.html(200, form(p));
    if (raw.action === 'cancel')
      return fragmentRedirect(res, p.redirect_uri, withState({ error: 'access_denied', error_description: 'the user cancelled the sign-in' }));
    const user = state.users.get((raw.login ?? '').toLowerCase());
    if (!user || user.password !== raw.password) return res.html(401, form({ ...p, login_hint: raw.login ?? '' }, 'Your account or password is incorrect.'));
    const { token, expiresIn } = state.issueToken(user.login, p.client_id);
    fragmentRedirect(
      res,
      p.redirect_uri,
      withState({ access_token: token, token_type: 'Bearer', expires_in: String(expiresIn), scope: Health.scope, session_state: 'emulated' }),
    );
  };
  router.get(Health.authorizePath, handle);
  router.post(Health.authorizePath, handle);
}
