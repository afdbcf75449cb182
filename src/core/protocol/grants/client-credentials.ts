/** The client credentials grant (RFC 6749 §4.4): one token request of a confidential client; processTokenResponse reads the answer. */
import type { HttpClient, HttpResponse } from '../../http/client.js';
import { tokenRequest } from '../token.js';
import type { TokenCall } from './call.js';

export function clientCredentialsRequest(http: HttpClient, call: TokenCall, g: { readonly scope?: string; readonly resource?: string }): Promise<HttpResponse> {
  return tokenRequest(http, call.tokenEndpoint, { grant_type: 'client_credentials', scope: g.scope, resource: g.resource }, call.client, call);
}
