/**
 * The JWT bearer grant (RFC 7523 §2.1): an assertion is the grant — a
 * workload platform's JWT, or the identity assertion of cross-app access
 * (token-exchange.ts). processTokenResponse reads the answer.
 */
import { OAuthGrant } from '../../../shared/protocol.js';
import type { HttpClient, HttpResponse } from '../../http/client.js';
import { tokenRequest } from '../token.js';
import type { TokenCall } from './call.js';

export function jwtBearerRequest(
  http: HttpClient,
  call: TokenCall,
  g: { readonly assertion: string; readonly scope?: string; readonly resource?: string },
): Promise<HttpResponse> {
  return tokenRequest(
    http,
    call.tokenEndpoint,
    { grant_type: OAuthGrant.jwtBearer, assertion: g.assertion, scope: g.scope, resource: g.resource },
    call.client,
    call,
  );
}
