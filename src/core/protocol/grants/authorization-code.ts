/**
 * The authorization code grant with PKCE (RFC 6749 §4.1, RFC 7636, RFC 9207):
 * the authorization URL (pure), the authorization response processed into
 * its code (pure), the token request. The caller owns the loopback receiver
 * and the browser.
 */
import { LanyardError } from '../../errors.js';
import type { HttpClient, HttpResponse } from '../../http/client.js';
import { tokenRequest } from '../token.js';
import type { TokenCall } from './call.js';

/** Parameters Lanyard sets itself for the code flow's security: --auth-param may not replace them. */
export const RESERVED_AUTHORIZATION_PARAMS = ['response_type', 'client_id', 'redirect_uri', 'code_challenge', 'code_challenge_method', 'state'];

export interface AuthorizationUrlInput {
  readonly authorizationEndpoint: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly codeChallenge: string;
  readonly state: string;
  readonly scope?: string;
  /** RFC 8707 resource. */
  readonly resource?: string;
  /** The user's extra parameters (never one of RESERVED_AUTHORIZATION_PARAMS). */
  readonly extraParams?: Readonly<Record<string, string>>;
}

export function authorizationUrl(i: AuthorizationUrlInput): string {
  const url = new URL(i.authorizationEndpoint);
  const q = url.searchParams;
  q.set('response_type', 'code');
  q.set('client_id', i.clientId);
  q.set('redirect_uri', i.redirectUri);
  q.set('code_challenge', i.codeChallenge);
  q.set('code_challenge_method', 'S256');
  q.set('state', i.state);
  if (i.scope) q.set('scope', i.scope);
  // OpenID Connect Core §11: offline_access is honoured only with prompt=consent.
  if (i.scope?.split(' ').includes('offline_access')) q.set('prompt', 'consent');
  if (i.resource) q.set('resource', i.resource);
  for (const [k, v] of Object.entries(i.extraParams ?? {})) if (!RESERVED_AUTHORIZATION_PARAMS.includes(k)) q.set(k, v);
  return url.toString();
}

/**
 * The code of an authorization response whose state the receiver checked.
 * RFC 9207: an iss that is present must be the issuer; a server that
 * promises one (authorization_response_iss_parameter_supported) must send it.
 */
export function processAuthorizationResponse(params: URLSearchParams, server: { readonly issuer: string; readonly issParameter?: boolean }): string {
  const iss = params.get('iss');
  if (iss !== null && iss !== server.issuer) {
    throw new LanyardError('issuer_mismatch', `the authorization response came from issuer ${iss}, expected ${server.issuer}; nothing was stored`);
  }
  if (iss === null && server.issParameter) {
    throw new LanyardError(
      'issuer_mismatch',
      `the authorization response lacks iss, which ${server.issuer} promises (authorization_response_iss_parameter_supported); nothing was stored`,
    );
  }
  const code = params.get('code');
  if (!code) throw new LanyardError('oauth_error', 'the authorization response carries no code');
  return code;
}

export function authorizationCodeRequest(
  http: HttpClient,
  call: TokenCall,
  g: { readonly code: string; readonly redirectUri: string; readonly codeVerifier: string; readonly resource?: string },
): Promise<HttpResponse> {
  const grant = { grant_type: 'authorization_code', code: g.code, redirect_uri: g.redirectUri, code_verifier: g.codeVerifier, resource: g.resource };
  return tokenRequest(http, call.tokenEndpoint, grant, call.client, call);
}
