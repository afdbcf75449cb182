/**
 * Installable apps' short-lived user tokens: refresh (grant `refresh_token`)
 * shortly before the expiry or after a 401, saving the rotated refresh token.
 */
import { AuthRequiredError, OAuthError } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import type { HostingTokenRecord } from './accounts.js';
import { processTokenResponse, refreshTokenRequest } from './oauth.js';

/** Refresh this long before the access token expires. */
export const REFRESH_MARGIN_MS = 5 * 60_000;

export function canRefresh(r: HostingTokenRecord, nowMs: number): boolean {
  return !!r.refreshToken && !!r.clientId && (!r.refreshTokenExpiresAt || Date.parse(r.refreshTokenExpiresAt) > nowMs);
}

export function refreshDue(r: HostingTokenRecord, nowMs: number, marginMs = REFRESH_MARGIN_MS): boolean {
  return !!r.expiresAt && Date.parse(r.expiresAt) - marginMs <= nowMs;
}

export interface RefreshOptions {
  http: HttpClient;
  webUrl: string;
  record: HostingTokenRecord;
  nowMs: number;
  /** Sent when known (LANYARD_CLIENT_SECRET); public clients refresh without it. */
  clientSecret?: string;
  signal?: AbortSignal;
}

/** A new record with the new access token, expiry and rotated refresh token. */
export async function refreshRecord(o: RefreshOptions): Promise<HostingTokenRecord> {
  const r = o.record;
  if (!canRefresh(r, o.nowMs))
    throw new AuthRequiredError(`the token of ${r.login} expired and cannot be refreshed`, {
      remedy: { kind: 'sign-in', service: 'hosting', again: true },
      service: 'hosting',
    });
  let t: Awaited<ReturnType<typeof processTokenResponse>>;
  try {
    t = await processTokenResponse(
      await refreshTokenRequest(o.http, {
        webUrl: o.webUrl,
        clientId: r.clientId!,
        clientSecret: o.clientSecret,
        refreshToken: r.refreshToken!,
        signal: o.signal,
      }),
    );
  } catch (err) {
    if (err instanceof OAuthError && err.error !== 'server_error') {
      throw new AuthRequiredError(`the server refused to refresh the token of ${r.login} (${err.error})`, {
        remedy: { kind: 'sign-in', service: 'hosting', again: true },
        service: 'hosting',
        cause: err,
      });
    }
    throw err;
  }
  const now = o.nowMs;
  return {
    ...r,
    token: t.accessToken,
    scopes: t.scopes.length ? [...t.scopes] : r.scopes,
    expiresAt: t.expiresIn !== undefined ? new Date(now + t.expiresIn * 1000).toISOString() : undefined,
    refreshToken: t.refreshToken ?? r.refreshToken,
    refreshTokenExpiresAt: t.refreshTokenExpiresIn !== undefined ? new Date(now + t.refreshTokenExpiresIn * 1000).toISOString() : r.refreshTokenExpiresAt,
  };
}
