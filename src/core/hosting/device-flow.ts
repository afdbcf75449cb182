/**
 * The hosting service's device flow: a device code from its endpoint, then
 * the shared RFC 8628 poller (core/auth/device-poll.ts) with the code host's
 * own final errors (device flow disabled, unknown client id).
 */
import type { Clock } from '../deps.js';
import { LanyardError, OAuthError, type Remedy } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import { functionOption, httpUrlOption, stringOption } from '../options.js';
import { deviceGrantError, pollForDeviceToken, type PollEvent } from '../auth/device-poll.js';
import {
  deviceAuthorizationRequest,
  deviceTokenRequest,
  OAuthErrorCode as E,
  processDeviceAuthorizationResponse,
  processTokenResponse,
  type DeviceAuthorization,
  type TokenSet,
} from './oauth.js';

const HOSTING_AGAIN: Remedy = { kind: 'sign-in', service: 'hosting', again: true };

/** The code host's own final errors of the device flow; undefined for the standard ones. */
function hostingDeviceError(err: OAuthError): LanyardError | undefined {
  switch (err.error) {
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
    default:
      return undefined;
  }
}

/** Maps a final OAuth error of the hosting service's device flow to a clear, exit-code-bearing error. */
export const deviceFlowError = (err: OAuthError): LanyardError => hostingDeviceError(err) ?? deviceGrantError(err, HOSTING_AGAIN);

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
  // Checked before the device code is asked for: a missing onCode would otherwise fail after the request.
  httpUrlOption(o.webUrl, 'webUrl');
  stringOption(o.clientId, 'clientId');
  const onCode = functionOption(o.onCode, 'onCode');
  let auth: DeviceAuthorization;
  try {
    auth = await processDeviceAuthorizationResponse(await deviceAuthorizationRequest(o.http, o));
  } catch (err) {
    if (err instanceof OAuthError && err.error !== 'invalid_response' && err.error !== 'server_error') throw deviceFlowError(err);
    throw err;
  }
  const issuedAt = o.clock.monotonic();
  await onCode(auth);
  return pollForDeviceToken({
    clock: o.clock,
    signal: o.signal,
    interval: auth.interval,
    expiresIn: auth.expiresIn,
    issuedAt,
    onEvent: o.onEvent,
    again: HOSTING_AGAIN,
    serviceError: hostingDeviceError,
    poll: async () => processTokenResponse(await deviceTokenRequest(o.http, { ...o, deviceCode: auth.deviceCode })),
  });
}
