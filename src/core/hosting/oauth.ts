/**
 * The hosting service's OAuth endpoints as flat request/process pairs: each
 * request function sends one request and returns the raw response; each
 * process function validates it and returns a typed, readonly result or
 * throws an OAuthResponseError (errors may arrive with HTTP 200).
 */
import { Hosting } from '../../shared/constants.js';
import { HostingOAuthPath, OAuthErrorCode } from '../../shared/hosting-oauth.js';
import { OAuthError } from '../errors.js';
import type { HttpClient, HttpResponse } from '../http/client.js';
import { numberField, readOAuthFields, requiredField } from '../auth/device-authorization.js';

export { OAuthErrorCode };
export { OAuthResponseError, processDeviceAuthorizationResponse, type DeviceAuthorization } from '../auth/device-authorization.js';

export interface TokenSet {
  readonly accessToken: string;
  readonly tokenType: 'bearer';
  readonly scopes: readonly string[];
  /** Seconds (installable apps). */
  readonly expiresIn?: number;
  readonly refreshToken?: string;
  readonly refreshTokenExpiresIn?: number;
}

interface Common {
  webUrl: string;
  clientId: string;
  signal?: AbortSignal;
}

const url = (webUrl: string, path: string) => webUrl.replace(/\/+$/, '') + path;

function post(http: HttpClient, webUrl: string, path: string, form: Record<string, string | undefined>, signal?: AbortSignal): Promise<HttpResponse> {
  return http.request({
    method: 'POST',
    url: url(webUrl, path),
    form,
    headers: { accept: 'application/json' },
    oauth: true,
    retry: false,
    okStatus: () => true,
    signal,
  });
}

export function deviceAuthorizationRequest(http: HttpClient, o: Common & { scopes?: readonly string[] }): Promise<HttpResponse> {
  return post(http, o.webUrl, HostingOAuthPath.deviceCode, { client_id: o.clientId, scope: o.scopes?.length ? o.scopes.join(' ') : undefined }, o.signal);
}

export function deviceTokenRequest(http: HttpClient, o: Common & { deviceCode: string }): Promise<HttpResponse> {
  return post(http, o.webUrl, HostingOAuthPath.token, { client_id: o.clientId, device_code: o.deviceCode, grant_type: Hosting.deviceGrantType }, o.signal);
}

export function authorizationCodeRequest(http: HttpClient, o: Common & { clientSecret: string; code: string; redirectUri: string }): Promise<HttpResponse> {
  return post(
    http,
    o.webUrl,
    HostingOAuthPath.token,
    { client_id: o.clientId, client_secret: o.clientSecret, code: o.code, redirect_uri: o.redirectUri },
    o.signal,
  );
}

export function refreshTokenRequest(http: HttpClient, o: Common & { refreshToken: string; clientSecret?: string }): Promise<HttpResponse> {
  return post(
    http,
    o.webUrl,
    HostingOAuthPath.token,
    {
      client_id: o.clientId,
      client_secret: o.clientSecret,
      grant_type: Hosting.refreshGrantType,
      refresh_token: o.refreshToken,
    },
    o.signal,
  );
}

/** Scopes arrive comma-separated (spaces tolerated). */
export function parseScopeList(text: string | undefined): string[] {
  return (text ?? '').split(/[,\s]+/).filter(Boolean);
}

export async function processTokenResponse(res: HttpResponse): Promise<TokenSet> {
  const f = await readOAuthFields(res);
  const accessToken = requiredField(f, 'access_token');
  const type = (f.token_type ?? 'bearer').toLowerCase();
  if (type !== 'bearer') throw new OAuthError('invalid_response', undefined, undefined, `unexpected token_type ${type}`);
  return Object.freeze({
    accessToken,
    tokenType: 'bearer' as const,
    scopes: Object.freeze(parseScopeList(f.scope)),
    ...(f.expires_in ? { expiresIn: numberField(f.expires_in, 'expires_in') } : {}),
    ...(f.refresh_token ? { refreshToken: f.refresh_token } : {}),
    ...(f.refresh_token_expires_in ? { refreshTokenExpiresIn: numberField(f.refresh_token_expires_in, 'refresh_token_expires_in') } : {}),
  });
}
