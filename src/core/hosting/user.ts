/** GET {api}/user: who a token acts for (the app revalidates every token it receives). */
import { AuthRequiredError } from '../errors.js';
import type { Credential, HttpClient, HttpResponse } from '../http/client.js';
import { parseScopeList } from './oauth.js';

export interface HostingUser {
  readonly login: string;
  readonly id?: number;
  readonly name?: string;
  /** From `x-oauth-scopes`, when the server sends it. */
  readonly scopes?: readonly string[];
}

export function userRequest(http: HttpClient, apiUrl: string, credential: Credential, signal?: AbortSignal): Promise<HttpResponse> {
  return http.request({ url: 'user', baseUrl: apiUrl, credential, signal, okStatus: (s) => s === 200 || s === 401 });
}

export async function processUserResponse(res: HttpResponse): Promise<HostingUser> {
  if (res.status === 401) {
    await res.dump();
    throw new AuthRequiredError('the token was refused by the server (invalid, expired or revoked)', {
      remedy: { kind: 'sign-in', service: 'hosting', again: true },
      service: 'hosting',
    });
  }
  const body = await res.json<Record<string, unknown>>();
  if (!body || typeof body.login !== 'string' || !body.login) throw new AuthRequiredError('the user endpoint did not name a login');
  const scopesHeader = res.headers['x-oauth-scopes'];
  return Object.freeze({
    login: body.login,
    ...(typeof body.id === 'number' ? { id: body.id } : {}),
    ...(typeof body.name === 'string' ? { name: body.name } : {}),
    ...(scopesHeader !== undefined ? { scopes: parseScopeList(scopesHeader) } : {}),
  });
}

export async function fetchUser(http: HttpClient, apiUrl: string, credential: Credential, signal?: AbortSignal): Promise<HostingUser> {
  return processUserResponse(await userRequest(http, apiUrl, credential, signal));
}
