/**
 * Device flow: POST /login/device/code issues a device code (40 characters)
 * and a user code (XXXX-XXXX); GET/POST /login/device is the page where the
 * user signs in, enters the code (50 submissions per hour per app) and
 * authorizes or cancels.
 */
import { Hosting } from '../../../../shared/constants.js';
import { HostingOAuthPath, OAuthErrorCode as E } from '../../../../shared/hosting-oauth.js';
import { escapeHtml as esc, type Router } from '../../../router.js';
import type { DeviceGrant, HostingState, HostingUser } from '../state.js';
import { credentialInputs, hiddenFields, layout, scopeList } from './pages.js';
import { checkPassword, sessionUser, startSession } from './session.js';
import { hex, newUserCode, normaliseUserCode, oauthError, oauthParams, oauthRespond, parseScopes } from './wire.js';

function codePage(user: HostingUser | undefined, error?: string, value = ''): string {
  return layout(
    'Device activation',
    `${error ? `<p class="error" id="error">${esc(error)}</p>` : ''}` +
      `<form method="post" action="${HostingOAuthPath.device}">` +
      (user
        ? `<p id="signed-in">Signed in as <strong>${esc(user.login)}</strong>.</p>`
        : `<p>Sign in, then enter the code shown on your device.</p>${credentialInputs(undefined)}`) +
      `<label for="user_code">Code</label><input type="text" id="user_code" name="user_code" autocomplete="off" placeholder="XXXX-XXXX" value="${esc(value)}">` +
      '<button type="submit" id="continue">Continue</button></form>',
  );
}

function confirmPage(state: HostingState, g: DeviceGrant, user: HostingUser): string {
  const app = state.apps.get(g.clientId)!;
  return layout(
    'Authorize application',
    `<p id="signed-in">Signed in as <strong>${esc(user.login)}</strong>.</p><p><strong>${esc(app.name)}</strong> (code <code>${esc(g.userCode)}</code>) wants to access your account.</p>` +
      scopeList(g.scopes) +
      `<form method="post" action="${HostingOAuthPath.device}/authorize">${hiddenFields({ user_code: g.userCode })}` +
      '<button type="submit" name="authorize" value="1" id="authorize">Authorize</button><button type="submit" name="authorize" value="0" id="cancel">Cancel</button></form>',
  );
}

/** Finds the pending grant of a user code, or says why not. */
function lookup(state: HostingState, code: string): { grant?: DeviceGrant; error?: string } {
  const dc = state.userCodes.get(code);
  const g = dc ? state.devices.get(dc) : undefined;
  if (!g) return { error: 'That code is not valid. Check it and try again.' };
  if (g.expiresAt <= state.now()) return { error: 'That code has expired. Request a new one on your device.' };
  if (g.status !== 'pending') return { error: 'That code has already been used.' };
  return { grant: g };
}

/** The device flow: the app's code request, then the pages where the user enters the code and authorizes. */
export function registerDeviceFlow(router: Router, state: HostingState, webBase: () => string): void {
  registerDeviceCodeRoute(router, state, webBase);
  registerDevicePages(router, state);
}

/** `POST /login/device/code`: an app asks for a device code and a user code. */
function registerDeviceCodeRoute(router: Router, state: HostingState, webBase: () => string): void {
  router.post(HostingOAuthPath.deviceCode, async (req, res) => {
    const p = await oauthParams(req);
    const app = p.client_id ? state.apps.get(p.client_id) : undefined;
    if (!app) return oauthError(req, res, 400, E.incorrectClientCredentials, 'The client_id passed is incorrect.');
    if (!app.deviceFlowEnabled) return oauthError(req, res, 400, E.deviceFlowDisabled, 'Device flow must be explicitly enabled for this app.');
    const now = state.now();
    let userCode = newUserCode();
    while (state.userCodes.has(userCode)) userCode = newUserCode();
    const grant: DeviceGrant = {
      deviceCode: hex(Hosting.deviceCodeLength / 2),
      userCode,
      clientId: app.clientId,
      scopes: parseScopes(p.scope),
      createdAt: now,
      expiresAt: now + state.devicePolicy.expiresIn * 1000,
      interval: state.devicePolicy.interval,
      polls: [],
      status: 'pending',
    };
    state.devices.set(grant.deviceCode, grant);
    state.userCodes.set(userCode, grant.deviceCode);
    oauthRespond(req, res, 200, {
      device_code: grant.deviceCode,
      user_code: userCode,
      verification_uri: `${webBase()}${HostingOAuthPath.device}`,
      expires_in: state.devicePolicy.expiresIn,
      interval: grant.interval,
    });
  });
  router.route('OPTIONS', HostingOAuthPath.deviceCode, (_req, res) => res.json(405, { message: 'CORS pre-flight requests are not supported' }));
}

/** `/login/device` and its `/authorize`: the user signs in, enters the code, then authorizes or cancels. */
function registerDevicePages(router: Router, state: HostingState): void {
  router.get(HostingOAuthPath.device, (req, res) => {
    res.html(200, codePage(sessionUser(state, req), undefined, normaliseUserCode(req.query.get('user_code') ?? '')));
  });

  router.post(HostingOAuthPath.device, async (req, res) => {
    const p = await oauthParams(req);
    let user = sessionUser(state, req);
    if (p.password) {
      const u = checkPassword(state, p.login, p.password);
      if (!u) return res.html(401, codePage(undefined, 'Incorrect username or password.', p.user_code));
      user = u;
      startSession(state, req, res, u.login);
    }
    if (!user) return res.html(401, codePage(undefined, 'Sign in to continue.', p.user_code));
    const code = normaliseUserCode(p.user_code);
    const dc = state.userCodes.get(code);
    const appKey = dc ? state.devices.get(dc)!.clientId : '(unknown)';
    if (state.hit(`device-submissions:${appKey}`) > Hosting.deviceSubmissionsPerHour) {
      return res.html(429, codePage(user, 'Too many codes were submitted for this application in the last hour. Try again later.'));
    }
    const { grant, error } = lookup(state, code);
    if (!grant) return res.html(400, codePage(user, error, p.user_code));
    res.html(200, confirmPage(state, grant, user));
  });

  router.post(`${HostingOAuthPath.device}/authorize`, async (req, res) => {
    const p = await oauthParams(req);
    const user = sessionUser(state, req);
    if (!user) return res.html(401, codePage(undefined, 'Sign in to continue.', p.user_code));
    const { grant, error } = lookup(state, normaliseUserCode(p.user_code));
    if (!grant) return res.html(400, codePage(user, error));
    decide(grant, user.login, p.authorize === '1');
    res.html(
      200,
      p.authorize === '1'
        ? layout("Congratulations, you're all set!", '<p id="done">Your device is now connected. You can close this window.</p>')
        : layout('Authorization cancelled', '<p id="done">The device was not given access. The code cannot be used again.</p>'),
    );
  });
}

/** The user's answer for a pending grant (page or admin verb). */
export function decide(g: DeviceGrant, login: string, approve: boolean): void {
  g.status = approve ? 'authorized' : 'denied';
  g.login = login;
}
