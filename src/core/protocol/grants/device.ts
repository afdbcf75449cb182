/**
 * The device authorization grant (RFC 8628) at a protocol server's
 * authorization server: the device authorization request (processed by
 * core/auth's processDeviceAuthorizationResponse) and one poll of the token
 * endpoint (processed by processTokenResponse). The caller runs core/auth's
 * poller over them.
 */
import { OAuthGrant } from '../../../shared/protocol.js';
import type { HttpClient, HttpResponse } from '../../http/client.js';
import { tokenRequest } from '../token.js';
import type { TokenCall } from './call.js';

export { processDeviceAuthorizationResponse, type DeviceAuthorization } from '../../auth/device-authorization.js';

/** The device authorization request: never DPoP-proved (it issues no token). */
export function deviceAuthorizationRequest(
  http: HttpClient,
  call: TokenCall & { readonly deviceAuthorizationEndpoint: string },
  g: { readonly scope?: string; readonly resource?: string },
): Promise<HttpResponse> {
  return tokenRequest(http, call.deviceAuthorizationEndpoint, { scope: g.scope, resource: g.resource }, call.client, { ...call, dpop: undefined });
}

export function deviceTokenRequest(http: HttpClient, call: TokenCall, g: { readonly deviceCode: string; readonly resource?: string }): Promise<HttpResponse> {
  return tokenRequest(http, call.tokenEndpoint, { grant_type: OAuthGrant.deviceCode, device_code: g.deviceCode, resource: g.resource }, call.client, call);
}
