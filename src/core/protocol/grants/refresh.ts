/**
 * Renewing stored tokens without the user: the refresh token grant (RFC 6749
 * §6), else the client credentials grant again, else a workload's JWT-bearer
 * grant with its JWT read again. The grant chosen (pure), the request, and
 * the answer merged into the stored record (pure).
 */
import { OAuthGrant } from '../../../shared/protocol.js';
import type { HttpClient, HttpResponse } from '../../http/client.js';
import type { StoredTokens } from '../store.js';
import { tokenRequest, type TokenSet } from '../token.js';
import type { TokenCall } from './call.js';

/** Whether stored tokens can be renewed without the user: a refresh token, the client-credentials grant, or a workload's JWT to read again. */
export function renewable(t: StoredTokens): boolean {
  return !!t.refreshToken || t.grant === 'client_credentials' || workloadRenewal(t);
}

/** Workload identity tokens without a refresh token: renewed by the JWT-bearer grant with the JWT read again. */
export const workloadRenewal = (t: StoredTokens) => !t.refreshToken && t.grant === 'jwt_bearer' && t.workloadTokenFrom !== undefined;

export type RenewalGrant = Readonly<Record<string, string | undefined>> & { readonly grant_type: string };

/** The grant that renews `t` (`assertion`: the workload's JWT read again), undefined when none does. */
export function renewalGrant(t: StoredTokens, assertion?: string): RenewalGrant | undefined {
  if (t.refreshToken) return { grant_type: 'refresh_token', refresh_token: t.refreshToken, resource: t.resource };
  if (t.grant === 'client_credentials') return { grant_type: 'client_credentials', scope: t.scope, resource: t.resource };
  if (assertion !== undefined) return { grant_type: OAuthGrant.jwtBearer, assertion, scope: t.scope, resource: t.resource };
  return undefined;
}

export function renewalRequest(http: HttpClient, call: TokenCall, grant: RenewalGrant): Promise<HttpResponse> {
  return tokenRequest(http, call.tokenEndpoint, grant, call.client, call);
}

/** The stored record after a renewal: the old refresh token kept when the server did not rotate it. */
export function renewedRecord(t: StoredTokens, next: TokenSet, now: number): StoredTokens {
  return { ...t, ...next, refreshToken: next.refreshToken ?? t.refreshToken, scope: next.scope ?? t.scope, obtainedAt: now };
}
