/**
 * The hosting service's OAuth endpoints as flat request/process pairs: each
 * request function sends one request and returns the raw response; each
 * process function validates it and returns a typed, readonly result or
 * throws an OAuthResponseError (errors may arrive with HTTP 200).
 */
import { Hosting } from '../../shared/constants.js';
import { HostingOAuthPath, OAuthErrorCode } from '../../shared/hosting-oauth.js';
import { OAuthError, RateLimitError } from '../errors.js';
import type { HttpClient, HttpResponse } from '../http/client.js';
import { parseOAuthBody, type OAuthFields } from '../auth/oauth-body.js';

export { OAuthErrorCode };

/** An OAuth error response with all of its fields (e.g. `interval` of slow_down). */
export class OAuthResponseError extends OAuthError {
  constructor(
    readonly fields: OAuthFields,
    status: number,
  ) {
    super(fields.error!, fields.error_description, status);
  }
}

export interface DeviceAuthorization {
  readonly deviceCode: string;
  readonly userCode: string;
  readonly verificationUri: string;
  /** Seconds. */
  readonly expiresIn: number;
  /** Seconds. */
  readonly interval: number;
}

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

/** Reads the body; rate limits and error fields become errors. */
async function readFields(res: HttpResponse): Promise<OAuthFields> {
  const text = await res.text();
  if ((res.status === 429 || res.status === 403) && /rate limit/i.test(text)) {
    const ra = Number(res.headers['retry-after']);
    const serverNow = Date.parse(res.headers.date ?? '');
    const resetAt = Number.isFinite(ra) && Number.isFinite(serverNow) ? serverNow + ra * 1000 : undefined;
    throw new RateLimitError("the token endpoint's secondary rate limit was exceeded; wait a few minutes and try again", 'secondary', resetAt);
  }
  let fields: OAuthFields;
  try {
    fields = await parseOAuthBody(res.headers['content-type'], text);
  } catch (err) {
    if (res.status >= 400) throw new OAuthError('server_error', undefined, res.status, `the OAuth endpoint answered HTTP ${res.status}`);
    throw err;
  }
  if (fields.error) throw new OAuthResponseError(fields, res.status);
  if (res.status >= 400) throw new OAuthError('server_error', undefined, res.status, `the OAuth endpoint answered HTTP ${res.status}`);
  return fields;
}

function positiveInt(v: string | undefined, name: string, fallback?: number): number {
  if (v === undefined || v === '') {
    if (fallback !== undefined) return fallback;
    throw new OAuthError('invalid_response', undefined, undefined, `the server's response lacks ${name}`);
  }
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new OAuthError('invalid_response', undefined, undefined, `the server's ${name} is not a number`);
  return n;
}

function required(fields: OAuthFields, name: string): string {
  const v = fields[name];
  if (!v) throw new OAuthError('invalid_response', undefined, undefined, `the server's response lacks ${name}`);
  return v;
}

export async function processDeviceAuthorizationResponse(res: HttpResponse): Promise<DeviceAuthorization> {
  const f = await readFields(res);
  const verificationUri = required(f, 'verification_uri');
  if (!/^https?:\/\//i.test(verificationUri)) throw new OAuthError('invalid_response', undefined, undefined, 'the verification_uri is not an http(s) URL');
  return Object.freeze({
    deviceCode: required(f, 'device_code'),
    userCode: required(f, 'user_code'),
    verificationUri,
    expiresIn: positiveInt(f.expires_in, 'expires_in', Hosting.deviceCodeLifetimeSec),
    interval: Math.max(1, positiveInt(f.interval, 'interval', 5)),
  });
}

/** Scopes arrive comma-separated (spaces tolerated). */
export function parseScopeList(text: string | undefined): string[] {
  return (text ?? '').split(/[,\s]+/).filter(Boolean);
}

export async function processTokenResponse(res: HttpResponse): Promise<TokenSet> {
  const f = await readFields(res);
  const accessToken = required(f, 'access_token');
  const type = (f.token_type ?? 'bearer').toLowerCase();
  if (type !== 'bearer') throw new OAuthError('invalid_response', undefined, undefined, `unexpected token_type ${type}`);
  return Object.freeze({
    accessToken,
    tokenType: 'bearer' as const,
    scopes: Object.freeze(parseScopeList(f.scope)),
    ...(f.expires_in ? { expiresIn: positiveInt(f.expires_in, 'expires_in') } : {}),
    ...(f.refresh_token ? { refreshToken: f.refresh_token } : {}),
    ...(f.refresh_token_expires_in ? { refreshTokenExpiresIn: positiveInt(f.refresh_token_expires_in, 'refresh_token_expires_in') } : {}),
  });
}
