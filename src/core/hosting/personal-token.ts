/**
 * The non-web flow: POST {api}/authorizations with Basic authentication
 * (login and password) creates a personal access token.
 */
import { AuthRequiredError, HttpError, ValidationError } from '../errors.js';
import type { HttpClient, HttpResponse } from '../http/client.js';

export interface PersonalTokenRequest {
  apiUrl: string;
  login: string;
  password: string;
  scopes?: readonly string[];
  note: string;
  signal?: AbortSignal;
}

export interface PersonalToken {
  readonly id: number;
  readonly token: string;
  readonly scopes: readonly string[];
  readonly note: string;
}

export function createAuthorizationRequest(http: HttpClient, o: PersonalTokenRequest): Promise<HttpResponse> {
  return http.request({
    method: 'POST',
    url: 'authorizations',
    baseUrl: o.apiUrl,
    credential: { scheme: 'basic', username: o.login, password: o.password },
    json: { scopes: [...(o.scopes ?? [])], note: o.note },
    okStatus: (s) => s === 201 || s === 401 || s === 422,
    signal: o.signal,
  });
}

export async function processCreateAuthorizationResponse(res: HttpResponse): Promise<PersonalToken> {
  const body = (await res.json<Record<string, unknown>>().catch(() => ({}))) as Record<string, unknown>;
  if (res.status === 401) throw new AuthRequiredError('the server refused the username or password', { service: 'hosting' });
  if (res.status === 422) {
    const errs = Array.isArray(body.errors)
      ? (body.errors as Array<Record<string, unknown>>).map((e) => `${String(e.field)} ${String(e.code)}`).join(', ')
      : '';
    throw new ValidationError(`the server refused the token request: ${String(body.message ?? 'validation failed')}${errs ? ` (${errs})` : ''}`);
  }
  if (typeof body.token !== 'string' || !body.token)
    throw new HttpError(res.status, 'POST', res.url, undefined, res.headers, 'the server did not return a token');
  return Object.freeze({
    id: Number(body.id),
    token: body.token,
    scopes: Object.freeze(Array.isArray(body.scopes) ? body.scopes.map(String) : []),
    note: typeof body.note === 'string' ? body.note : '',
  });
}
