/**
 * The device flow's polling loop, exactly: never sooner than `interval`
 * (measured on the monotonic clock from the previous answer), `slow_down`
 * raises the interval for good, stop at `expires_in`, errors may arrive with
 * HTTP 200, transient network errors are retried, Ctrl-C cancels cleanly.
 */
import type { Clock } from '../deps.js';
import { AuthRequiredError, CancelledError, LanyardError, NetworkError, OAuthError, TimeoutError, type Remedy } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import {
  deviceAuthorizationRequest,
  deviceTokenRequest,
  OAuthErrorCode as E,
  OAuthResponseError,
  processDeviceAuthorizationResponse,
  processTokenResponse,
  type DeviceAuthorization,
  type TokenSet,
} from './oauth.js';

export type PollEvent = { kind: 'pending' } | { kind: 'slow_down'; intervalSec: number } | { kind: 'network_error'; error: LanyardError };

export interface PollOptions<T = TokenSet> {
  clock: Clock;
  signal?: AbortSignal;
  /** Seconds, from the device authorization response. */
  interval: number;
  expiresIn: number;
  /** Monotonic time the code was issued (default: now). */
  issuedAt?: number;
  /** One poll of the token endpoint (request + process); OAuth errors as OAuthError (slow_down's interval read from an OAuthResponseError). */
  poll: () => Promise<T>;
  onEvent?: (e: PollEvent) => void;
  /** What to do when the code expired or was refused (default: sign in to the hosting service again). */
  again?: Remedy;
}

const EXPIRED = new Set<string>([E.expiredToken, E.tokenExpired]);

const HOSTING_AGAIN: Remedy = { kind: 'sign-in', service: 'hosting', again: true };
const serviceOf = (r: Remedy) => ('service' in r && r.service === 'protocol' ? 'protocol' : 'hosting');

function expired(again: Remedy = HOSTING_AGAIN): AuthRequiredError {
  return new AuthRequiredError('the one-time code expired before it was authorized', { remedy: again, service: serviceOf(again) });
}

/** Maps a final OAuth error of the token endpoint to a clear, exit-code-bearing error. */
export function deviceFlowError(err: OAuthError, again: Remedy = HOSTING_AGAIN): LanyardError {
  switch (err.error) {
    case E.accessDenied:
      return new AuthRequiredError('sign-in was cancelled by the user (access denied); the code cannot be used again', {
        remedy: again,
        service: serviceOf(again),
      });
    case E.deviceFlowDisabled:
      return new LanyardError('device_flow_disabled', 'the device flow is not enabled for this OAuth app', {
        hint: 'enable it in the app settings',
        remedy: { kind: 'sign-in', service: 'hosting', flow: 'web' },
        service: 'hosting',
      });
    case E.incorrectClientCredentials:
      return new LanyardError('incorrect_client_credentials', 'the server does not know this client id', {
        remedy: { kind: 'check-setting', setting: 'hosting.clientId' },
        service: 'hosting',
      });
    case E.incorrectDeviceCode:
      return new LanyardError('incorrect_device_code', 'the server refused the device code (invalid or already used)', {
        remedy: again,
        service: serviceOf(again),
      });
    case E.unsupportedGrantType:
      return new LanyardError('unsupported_grant_type', 'the server refused the device grant type (unsupported_grant_type)');
    default:
      if (EXPIRED.has(err.error)) return expired(again);
      return err;
  }
}

function isTransient(err: unknown): boolean {
  return err instanceof NetworkError || err instanceof TimeoutError || (err instanceof OAuthError && err.error === 'server_error' && (err.status ?? 0) >= 500);
}

export async function pollForDeviceToken<T = TokenSet>(o: PollOptions<T>): Promise<T> {
  const { clock } = o;
  const start = o.issuedAt ?? clock.monotonic();
  const deadline = start + o.expiresIn * 1000;
  let intervalMs = Math.max(1, o.interval) * 1000;
  let last = start;
  for (;;) {
    if (o.signal?.aborted) throw new CancelledError();
    const due = last + intervalMs;
    if (due >= deadline) {
      await clock.sleep(Math.max(0, deadline - clock.monotonic()), o.signal);
      throw expired(o.again);
    }
    const wait = due - clock.monotonic();
    if (wait > 0) await clock.sleep(wait, o.signal);
    try {
      return await o.poll();
    } catch (err) {
      // The next wait is measured from this answer, so a poll is never sooner than the interval.
      last = clock.monotonic();
      if (err instanceof CancelledError) throw err;
      if (err instanceof OAuthError && err.error === E.authorizationPending) {
        o.onEvent?.({ kind: 'pending' });
        continue;
      }
      if (err instanceof OAuthError && err.error === E.slowDown) {
        const given = err instanceof OAuthResponseError ? Number(err.fields.interval) : Number.NaN;
        intervalMs = Number.isFinite(given) && given > 0 ? given * 1000 : intervalMs + 5000;
        o.onEvent?.({ kind: 'slow_down', intervalSec: intervalMs / 1000 });
        continue;
      }
      if (isTransient(err)) {
        o.onEvent?.({ kind: 'network_error', error: err as LanyardError });
        continue;
      }
      if (err instanceof OAuthError) throw deviceFlowError(err, o.again);
      throw err;
    }
  }
}

export interface DeviceFlowOptions {
  http: HttpClient;
  clock: Clock;
  webUrl: string;
  clientId: string;
  scopes?: readonly string[];
  signal?: AbortSignal;
  /** Shows the code to the user (and opens the browser); awaited before polling starts. */
  onCode: (auth: DeviceAuthorization) => void | Promise<void>;
  onEvent?: (e: PollEvent) => void;
}

/** Requests a device code, hands it to `onCode`, and polls until a token, a denial or expiry. */
export async function runDeviceFlow(o: DeviceFlowOptions): Promise<TokenSet> {
  let auth: DeviceAuthorization;
  try {
    auth = await processDeviceAuthorizationResponse(await deviceAuthorizationRequest(o.http, o));
  } catch (err) {
    if (err instanceof OAuthError && err.error !== 'invalid_response' && err.error !== 'server_error') throw deviceFlowError(err);
    throw err;
  }
  const issuedAt = o.clock.monotonic();
  await o.onCode(auth);
  return pollForDeviceToken({
    clock: o.clock,
    signal: o.signal,
    interval: auth.interval,
    expiresIn: auth.expiresIn,
    issuedAt,
    onEvent: o.onEvent,
    poll: async () => processTokenResponse(await deviceTokenRequest(o.http, { ...o, deviceCode: auth.deviceCode })),
  });
}
