/**
 * RFC 8628 device authorization grant of the emulated protocol authorization
 * server: POST /device_authorization issues a device code and a user code;
 * GET/POST /device is the page where a person enters the code and allows or
 * denies; the token endpoint's device_code grant answers
 * authorization_pending, slow_down, access_denied and expired_token (§3.5).
 * (Browser form posts are guarded by the emulator's CSRF layer, guard.ts.)
 */
import { randomInt } from 'node:crypto';
import { OAuthGrant } from '../../../shared/protocol.js';
import { escapeHtml, type Router } from '../../router.js';
import { type GrantResult, isPublic } from './grants.js';
import { type EmuClient, type EmuDeviceGrant, type ProtocolState, randomToken } from './state.js';

export const DEVICE_AUTHORIZATION_PATH = '/device_authorization';
export const DEVICE_PAGE_PATH = '/device';
/** RFC 8628 §6.1: a short code from an alphabet without vowels or look-alikes. */
const ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
/** §3.5: each slow_down adds five seconds to the interval. */
const SLOW_DOWN_STEP_SEC = 5;

function userCode(): string {
  const pick = () => ALPHABET[randomInt(ALPHABET.length)];
  const s = Array.from({ length: 8 }, pick).join('');
  return `${s.slice(0, 4)}-${s.slice(4)}`;
}

/** What a person typed, as a user code (case, spaces and the hyphen forgiven). */
function canonical(typed: string | undefined): string {
  const s = (typed ?? '').toUpperCase().replace(/[^A-Z]/g, '');
  return s.length === 8 ? `${s.slice(0, 4)}-${s.slice(4)}` : s;
}

/** Issues a device code for an authenticated client (scope and resource already checked). */
export function startDeviceAuthorization(state: ProtocolState, client: EmuClient, scope: string, resource: string | undefined, base: string) {
  let code = userCode();
  while (state.userCodes.has(code)) code = userCode();
  const now = state.clock.now();
  const g: EmuDeviceGrant = {
    deviceCode: randomToken('ctxdev'),
    userCode: code,
    clientId: client.client_id,
    scope,
    resource,
    expiresAt: now + state.settings.deviceCodeTtlSec * 1000,
    intervalSec: state.settings.deviceIntervalSec,
    status: 'pending',
    family: randomToken('fam', 12),
  };
  state.devices.set(g.deviceCode, g);
  state.userCodes.set(code, g.deviceCode);
  state.stats.device.issued++;
  const page = base + DEVICE_PAGE_PATH;
  return {
    device_code: g.deviceCode,
    user_code: code,
    verification_uri: page,
    verification_uri_complete: `${page}?user_code=${encodeURIComponent(code)}`,
    expires_in: state.settings.deviceCodeTtlSec,
    interval: g.intervalSec,
  };
}

/** The device_code grant at the token endpoint (a poll). */
export function deviceCodeGrant(state: ProtocolState, client: EmuClient, f: Record<string, string>, jkt?: string): GrantResult {
  const fail = (error: string, description: string): GrantResult => {
    state.stats.device.polls.push(error);
    return { status: 400, error, description };
  };
  const g = state.devices.get(f.device_code ?? '');
  if (!g || g.clientId !== client.client_id) return fail('invalid_grant', 'unknown device code');
  const now = state.clock.now();
  if (g.status === 'used') return fail('invalid_grant', 'the device code was already exchanged');
  if (g.expiresAt <= now) return fail('expired_token', 'the device code has expired; start again');
  if (g.status === 'denied') return fail('access_denied', 'the user denied the request');
  if (f.resource !== undefined && f.resource !== g.resource) return fail('invalid_target', 'resource differs from the device authorization request');
  const early = g.lastPollAt !== undefined && now - g.lastPollAt < g.intervalSec * 1000;
  g.lastPollAt = now;
  if (early) {
    g.intervalSec += SLOW_DOWN_STEP_SEC;
    return fail('slow_down', `polling too fast; wait ${g.intervalSec} seconds between requests`);
  }
  if (g.status === 'pending') return fail('authorization_pending', 'the user has not answered yet');
  g.status = 'used';
  state.userCodes.delete(g.userCode);
  state.stats.device.polls.push('issued');
  return {
    tokens: state.issueTokens(
      { clientId: g.clientId, scope: g.scope, resource: g.resource, jkt },
      g.family,
      client.grant_types.includes('refresh_token'),
      isPublic(client),
    ),
  };
}

function page(title: string, body: string, status = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem}input{font-size:1.2rem;letter-spacing:.1em}button{font-size:1rem;margin:.6rem .5rem 0 0}.error{color:#b00020}</style></head><body>
<h1>${escapeHtml(title)}</h1>${status ? `<p class="error" id="error">${escapeHtml(status)}</p>` : ''}${body}</body></html>`;
}

function codeForm(value: string, error?: string): string {
  return page(
    'Connect a device',
    `<p>Enter the code your device shows to let it use the emulated tools server.</p><form method="post" action="${DEVICE_PAGE_PATH}">` +
      `<label for="user_code">Code</label> <input type="text" id="user_code" name="user_code" autocomplete="off" placeholder="XXXX-XXXX" value="${escapeHtml(value)}">` +
      '<button type="submit" id="continue">Continue</button></form>',
    error,
  );
}

function confirmForm(state: ProtocolState, g: EmuDeviceGrant): string {
  const client = state.clients.get(g.clientId);
  const name = client?.client_name ?? g.clientId;
  const scopes = g.scope
    .split(' ')
    .map((s) => `<li><code>${escapeHtml(s)}</code></li>`)
    .join('');
  return page(
    `Authorize ${name}`,
    `<p><strong id="client">${escapeHtml(name)}</strong> (code <code id="code">${escapeHtml(g.userCode)}</code>) wants to use the emulated tools server with these scopes:</p><ul id="scopes">${scopes}</ul>` +
      `<form method="post" action="${DEVICE_PAGE_PATH}/decision"><input type="hidden" name="user_code" value="${escapeHtml(g.userCode)}">` +
      '<button type="submit" name="decision" value="allow" id="allow">Allow</button><button type="submit" name="decision" value="deny" id="deny">Deny</button></form>',
  );
}

/** The pending grant of a typed user code, or why not. */
function pendingGrant(state: ProtocolState, typed: string | undefined): EmuDeviceGrant | string {
  const dc = state.userCodes.get(canonical(typed));
  const g = dc ? state.devices.get(dc) : undefined;
  if (!g) return 'That code is not valid. Check it and try again.';
  if (g.expiresAt <= state.clock.now()) return 'That code has expired. Start again on your device.';
  if (g.status !== 'pending') return 'That code has already been used.';
  return g;
}

/** The page where a person enters the user code and decides. */
export function registerDevicePage(router: Router, state: ProtocolState): void {
  const off = () => !state.settings.deviceAuthorization;
  router.get(DEVICE_PAGE_PATH, (req, res) => {
    if (off()) return res.json(404, { error: 'not_found' });
    res.html(200, codeForm(canonical(req.query.get('user_code') ?? '')), { 'cache-control': 'no-store' });
  });
  router.post(DEVICE_PAGE_PATH, async (req, res) => {
    if (off()) return res.json(404, { error: 'not_found' });
    const f = await req.params_();
    const g = pendingGrant(state, f.user_code);
    if (typeof g === 'string') return res.html(400, codeForm(f.user_code ?? '', g));
    res.html(200, confirmForm(state, g), { 'cache-control': 'no-store' });
  });
  router.post(`${DEVICE_PAGE_PATH}/decision`, async (req, res) => {
    if (off()) return res.json(404, { error: 'not_found' });
    const f = await req.params_();
    const g = pendingGrant(state, f.user_code);
    if (typeof g === 'string') return res.html(400, codeForm('', g));
    const allow = f.decision === 'allow';
    g.status = allow ? 'approved' : 'denied';
    state.stats.device.decisions.push(allow ? 'approved' : 'denied');
    res.html(
      200,
      allow
        ? page('Device connected', '<p id="done">Your device may now use the tools server. You can close this window.</p>')
        : page('Request denied', '<p id="done">The device was not given access. The code cannot be used again.</p>'),
    );
  });
}

export const DEVICE_GRANT = OAuthGrant.deviceCode;
