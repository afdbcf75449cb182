/** RFC 7591 dynamic client registration: request/process pair. */
import type { HttpClient, HttpResponse } from '../http/client.js';
import { LanyardError, OAuthError } from '../errors.js';
import { ClientAuthMethods, ProtocolClientName, type ClientAuthMethod, type ClientRegistrationWire } from '../../shared/protocol.js';

/** A client identity for one authorization server, as stored. */
export interface ClientIdentity {
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly authMethod: ClientAuthMethod;
  /** `dynamic` (registered by Lanyard) or `provided` (--client-id). */
  readonly origin: 'dynamic' | 'provided';
  readonly redirectUris?: readonly string[];
  /** Epoch ms; undefined or 0 = does not expire. */
  readonly secretExpiresAt?: number;
}

export interface RegistrationInput {
  redirectUris: string[];
  grantTypes: string[];
  authMethod: ClientAuthMethod;
  scope?: string;
}

export function registrationRequest(http: HttpClient, endpoint: string, input: RegistrationInput, signal?: AbortSignal): Promise<HttpResponse> {
  const body: ClientRegistrationWire = {
    client_name: ProtocolClientName,
    redirect_uris: input.redirectUris,
    grant_types: input.grantTypes,
    response_types: input.grantTypes.includes('authorization_code') ? ['code'] : [],
    token_endpoint_auth_method: input.authMethod,
    // A native (loopback) application: lets OpenID servers accept any loopback port.
    application_type: 'native',
    ...(input.scope ? { scope: input.scope } : {}),
  };
  return http.request({ method: 'POST', url: endpoint, json: body, signal, okStatus: () => true, oauth: true });
}

export async function processRegistrationResponse(res: HttpResponse, input: RegistrationInput): Promise<ClientIdentity> {
  let body: ClientRegistrationWire;
  try {
    body = (await res.json()) as ClientRegistrationWire;
  } catch {
    throw new LanyardError('registration_failed', `client registration failed: HTTP ${res.status} without a JSON body`);
  }
  if (res.status !== 201 && res.status !== 200) {
    if (body && typeof (body as { error?: unknown }).error === 'string') {
      const e = body as unknown as { error: string; error_description?: string };
      throw new OAuthError(
        e.error,
        e.error_description,
        res.status,
        `client registration refused (HTTP ${res.status}): ${e.error}${e.error_description ? ': ' + e.error_description : ''}`,
      );
    }
    throw new LanyardError('registration_failed', `client registration failed: HTTP ${res.status}`);
  }
  if (!body || typeof body.client_id !== 'string' || !body.client_id) {
    throw new LanyardError('registration_failed', 'client registration response lacks client_id');
  }
  const method = (ClientAuthMethods as readonly string[]).includes(body.token_endpoint_auth_method ?? '')
    ? (body.token_endpoint_auth_method as ClientAuthMethod)
    : body.client_secret
      ? 'client_secret_basic'
      : input.authMethod;
  return {
    clientId: body.client_id,
    clientSecret: typeof body.client_secret === 'string' ? body.client_secret : undefined,
    authMethod: method,
    origin: 'dynamic',
    redirectUris: body.redirect_uris ?? input.redirectUris,
    secretExpiresAt: body.client_secret_expires_at ? body.client_secret_expires_at * 1000 : undefined,
  };
}
