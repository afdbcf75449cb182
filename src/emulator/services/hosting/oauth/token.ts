/**
 * POST /login/oauth/access_token: the authorization code, device code and
 * refresh token grants. Errors arrive with HTTP 200 (as the real service
 * sends them); the 2,000 token requests per hour per app are a secondary limit.
 */
import { Hosting } from '../../../../shared/constants.js';
import { HostingOAuthPath, InstallableTokens, OAuthErrorCode as E } from '../../../../shared/hosting-oauth.js';
import type { EmuRequest, EmuResponse, Router } from '../../../router.js';
import type { HostingApp, HostingState, HostingToken, RefreshGrant } from '../state.js';
import { oauthError, oauthParams, oauthRespond } from './wire.js';

type Params = Record<string, string>;

function tokenFields(token: HostingToken, refresh: RefreshGrant | undefined): Record<string, string | number | undefined> {
  return {
    access_token: token.value,
    token_type: 'bearer',
    scope: token.scopes.join(','),
    ...(refresh
      ? {
          expires_in: InstallableTokens.accessTokenLifetimeSec,
          refresh_token: refresh.value,
          refresh_token_expires_in: InstallableTokens.refreshTokenLifetimeSec,
        }
      : {}),
  };
}

function codeGrant(state: HostingState, app: HostingApp, p: Params, req: EmuRequest, res: EmuResponse): void {
  if (p.client_secret !== app.clientSecret)
    return oauthError(req, res, 200, E.incorrectClientCredentials, 'The client_id and/or client_secret passed are incorrect.');
  if (p.code_verifier !== undefined) return oauthError(req, res, 200, E.unsupportedParameter, 'PKCE (code_verifier) is not supported by this service.');
  const code = p.code ? state.codes.get(p.code) : undefined;
  if (!code || code.used || code.clientId !== app.clientId || code.expiresAt <= state.now()) {
    return oauthError(req, res, 200, E.badVerificationCode, 'The code passed is incorrect or expired.');
  }
  if (p.redirect_uri !== undefined && p.redirect_uri !== '' && p.redirect_uri !== code.redirectUri) {
    return oauthError(req, res, 200, E.redirectUriMismatch, 'The redirect_uri MUST match the registered callback URL for this application.');
  }
  code.used = true;
  const { token, refresh } = state.issueAppToken(app, code.login, code.scopes);
  oauthRespond(req, res, 200, tokenFields(token, refresh));
}

function deviceGrant(state: HostingState, app: HostingApp, p: Params, req: EmuRequest, res: EmuResponse): void {
  if (!app.deviceFlowEnabled) return oauthError(req, res, 200, E.deviceFlowDisabled, 'Device flow must be explicitly enabled for this app.');
  const g = p.device_code ? state.devices.get(p.device_code) : undefined;
  if (!g || g.clientId !== app.clientId || g.status === 'consumed') {
    return oauthError(req, res, 200, E.incorrectDeviceCode, 'The device_code provided is not valid.');
  }
  const now = state.now();
  const answer = (a: string) => g.polls.push({ at: now, answer: a });
  if (g.expiresAt <= now) {
    answer(E.expiredToken);
    return oauthError(req, res, 200, E.expiredToken, 'The device_code has expired.');
  }
  if (g.status === 'denied') {
    answer(E.accessDenied);
    return oauthError(req, res, 200, E.accessDenied, 'The authorization request was denied.');
  }
  const tooSoon = g.lastPollAt !== undefined && now - g.lastPollAt < g.interval * 1000;
  g.lastPollAt = now;
  if (tooSoon || state.devicePolicy.forceSlowDown > 0) {
    if (!tooSoon) state.devicePolicy.forceSlowDown--;
    g.interval += Hosting.slowDownIncrementSec;
    answer(E.slowDown);
    return oauthError(req, res, 200, E.slowDown, `Too many requests have been made in the same timeframe.`, { interval: g.interval });
  }
  if (g.status === 'pending') {
    answer(E.authorizationPending);
    return oauthError(req, res, 200, E.authorizationPending, 'The authorization request is still pending.');
  }
  g.status = 'consumed';
  answer('token');
  const { token, refresh } = state.issueAppToken(app, g.login!, g.scopes);
  oauthRespond(req, res, 200, tokenFields(token, refresh));
}

function refreshGrant(state: HostingState, app: HostingApp, p: Params, req: EmuRequest, res: EmuResponse): void {
  if (app.kind !== 'installable') return oauthError(req, res, 200, E.unsupportedGrantType, 'This app does not issue expiring user tokens.');
  // Public clients (device flow) refresh with the client_id alone; a secret, when sent, must be right.
  if (p.client_secret !== undefined && p.client_secret !== app.clientSecret) {
    return oauthError(req, res, 200, E.incorrectClientCredentials, 'The client_id and/or client_secret passed are incorrect.');
  }
  const r = p.refresh_token ? state.refreshTokens.get(p.refresh_token) : undefined;
  if (!r || r.used || r.clientId !== app.clientId || r.expiresAt <= state.now()) {
    return oauthError(req, res, 200, E.badRefreshToken, 'The refresh token passed is incorrect or expired.');
  }
  r.used = true;
  const { token, refresh } = state.issueAppToken(app, r.login, r.scopes);
  oauthRespond(req, res, 200, tokenFields(token, refresh));
}

export function registerTokenEndpoint(router: Router, state: HostingState): void {
  router.post(HostingOAuthPath.token, async (req, res) => {
    const p = await oauthParams(req);
    const app = p.client_id ? state.apps.get(p.client_id) : undefined;
    if (!app) return oauthError(req, res, 200, E.incorrectClientCredentials, 'The client_id and/or client_secret passed are incorrect.');
    if (state.hit(`token-requests:${app.clientId}`) > Hosting.tokenRequestsPerHour) {
      return res.json(
        429,
        { message: 'You have exceeded a secondary rate limit for OAuth access token requests. Please wait a few minutes before you try again.' },
        { 'retry-after': '60' },
      );
    }
    const grant = p.grant_type;
    if (grant === Hosting.deviceGrantType) return deviceGrant(state, app, p, req, res);
    if (grant === Hosting.refreshGrantType) return refreshGrant(state, app, p, req, res);
    if ((grant === undefined || grant === 'authorization_code') && p.device_code === undefined && p.code !== undefined)
      return codeGrant(state, app, p, req, res);
    if (grant === undefined && p.code === undefined && p.device_code === undefined) {
      return oauthError(req, res, 200, E.badVerificationCode, 'The code passed is incorrect or expired.');
    }
    return oauthError(
      req,
      res,
      200,
      E.unsupportedGrantType,
      'The grant type is missing or not supported; the device flow requires urn:ietf:params:oauth:grant-type:device_code.',
    );
  });
  router.route('OPTIONS', HostingOAuthPath.token, (_req, res) => res.json(405, { message: 'CORS pre-flight requests are not supported' }));
}
