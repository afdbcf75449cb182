/**
 * Token exchange for enterprise-managed authorization (cross-app access):
 * RFC 8693 at the user's identity provider, their ID token for an identity
 * assertion (ID-JAG) naming the protocol server's authorization server and
 * resource; jwt-bearer.ts presents the assertion there.
 */
import { OAuthGrant, TokenTypes } from '../../../shared/protocol.js';
import { LanyardError, OAuthError } from '../../errors.js';
import type { HttpClient, HttpResponse } from '../../http/client.js';

export interface IdJagExchange {
  /** The identity provider's token endpoint. */
  readonly tokenEndpoint: string;
  /** Lanyard's client id at the identity provider. */
  readonly clientId: string;
  /** The authorization server's issuer. */
  readonly audience: string;
  readonly resource: string;
  readonly scope?: string;
  readonly idToken: string;
  readonly signal?: AbortSignal;
}

export function idJagExchangeRequest(http: HttpClient, x: IdJagExchange): Promise<HttpResponse> {
  return http.request({
    method: 'POST',
    url: x.tokenEndpoint,
    form: {
      grant_type: OAuthGrant.tokenExchange,
      requested_token_type: TokenTypes.idJag,
      audience: x.audience,
      resource: x.resource,
      scope: x.scope,
      subject_token: x.idToken,
      subject_token_type: TokenTypes.idToken,
      client_id: x.clientId,
    },
    signal: x.signal,
    okStatus: () => true,
    oauth: true,
    retry: false,
  });
}

/** The identity assertion of the exchange's answer (`tokenEndpoint`: the identity provider's, for the messages). */
export async function processIdJagExchangeResponse(res: HttpResponse, tokenEndpoint: string): Promise<string> {
  let body: { access_token?: unknown; issued_token_type?: unknown; error?: unknown; error_description?: unknown };
  try {
    body = (await res.json()) as typeof body;
  } catch {
    throw new LanyardError('token_failed', `the identity provider's token exchange at ${tokenEndpoint} answered HTTP ${res.status} without a JSON body`);
  }
  if (res.status < 200 || res.status > 299 || typeof body?.error === 'string') {
    const error = typeof body?.error === 'string' ? body.error : 'server_error';
    const d = typeof body?.error_description === 'string' ? `: ${body.error_description}` : '';
    throw new OAuthError(error, d.slice(2) || undefined, res.status, `the identity provider refused the token exchange (HTTP ${res.status}): ${error}${d}`);
  }
  if (typeof body.access_token !== 'string' || !body.access_token) {
    throw new LanyardError('token_failed', `token exchange response from ${tokenEndpoint}: access_token is missing`);
  }
  if (body.issued_token_type !== TokenTypes.idJag) {
    throw new LanyardError(
      'token_failed',
      `token exchange response from ${tokenEndpoint}: issued_token_type is ${JSON.stringify(body.issued_token_type)}, expected ${TokenTypes.idJag}`,
    );
  }
  return body.access_token;
}
