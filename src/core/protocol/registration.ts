/** RFC 7591 dynamic client registration: request/process pair. */
import type { HttpClient, HttpResponse } from '../http/client.js';
import { LanyardError, OAuthError } from '../errors.js';
import { ClientAuthMethods, ProtocolClientName, type ClientAuthMethod, type ClientRegistrationWire } from '../../shared/protocol.js';
import { checkWire } from '../wire/check.js';
import { ClientRegistrationSchema } from '../wire/schemas.js';

/** A client identity for one authorization server, as stored. */
export interface ClientIdentity {
  readonly clientId: string;
  readonly clientSecret?: string;
  readonly authMethod: ClientAuthMethod;
  /** `dynamic` (registered by Lanyard), `provided` (--client-id) or `metadata-document` (a client ID metadata document URL). */
  readonly origin: 'dynamic' | 'provided' | 'metadata-document';
  /** PKCS #8 PEM of a private_key_jwt client. */
  readonly privateKey?: string;
  /** The JWS algorithm of privateKey (ES256, RS256, EdDSA…). */
  readonly signingAlg?: string;
  readonly redirectUris?: readonly string[];
  /** Epoch ms; undefined or 0 = does not expire. */
  readonly secretExpiresAt?: number;
  /**
   * The grant whose token request proved the client when it was stored. A
   * client proven only by `client_credentials` (a service) is not used for a
   * browser sign-in, which registers its own instead.
   */
  readonly provenBy?: 'authorization_code' | 'client_credentials' | 'jwt_bearer' | 'device_code';
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

/**
 * The registered client, or an error naming the endpoint and the field. A
 * response without token_endpoint_auth_method means the server's default
 * (RFC 7591 §2: client_secret_basic with a secret), narrowed to a method
 * the server lists.
 */
export async function processRegistrationResponse(res: HttpResponse, input: RegistrationInput, supported?: readonly string[]): Promise<ClientIdentity> {
  let body: ClientRegistrationWire;
  try {
    body = (await res.json()) as ClientRegistrationWire;
  } catch {
    throw new LanyardError('registration_failed', `client registration at ${res.url} failed: HTTP ${res.status} without a JSON body`);
  }
  if (res.status !== 201 && res.status !== 200) {
    if (body && typeof (body as { error?: unknown }).error === 'string') {
      const e = body as unknown as { error: string; error_description?: string };
      throw new OAuthError(
        e.error,
        e.error_description,
        res.status,
        `client registration at ${res.url} refused (HTTP ${res.status}): ${e.error}${e.error_description ? ': ' + e.error_description : ''}`,
      );
    }
    throw new LanyardError('registration_failed', `client registration at ${res.url} failed: HTTP ${res.status}`);
  }
  const bad = (field: string, why: string) => new LanyardError('registration_failed', `client registration response from ${res.url}: ${field} ${why}`);
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw bad('body', 'is not a JSON object');
  if (typeof body.client_id !== 'string' || !body.client_id) throw bad('client_id', body.client_id === undefined ? 'is missing' : 'is not a non-empty string');
  if (body.client_secret !== undefined && typeof body.client_secret !== 'string') throw bad('client_secret', 'is not a string');
  if (body.redirect_uris !== undefined && !(Array.isArray(body.redirect_uris) && body.redirect_uris.every((u) => typeof u === 'string'))) {
    throw bad('redirect_uris', 'is not an array of strings');
  }
  if (body.client_secret_expires_at !== undefined && typeof body.client_secret_expires_at !== 'number')
    throw bad('client_secret_expires_at', 'is not a number');
  checkWire('protocol', `the client registration at ${res.url}`, ClientRegistrationSchema, body);
  const given = body.token_endpoint_auth_method;
  if (given !== undefined && !(ClientAuthMethods as readonly string[]).includes(given))
    throw bad('token_endpoint_auth_method', `is ${JSON.stringify(given)}, which Lanyard does not speak`);
  let method: ClientAuthMethod;
  if (given !== undefined) method = given as ClientAuthMethod;
  else if (!body.client_secret) method = 'none';
  else if (supported && !supported.includes('client_secret_basic') && supported.includes('client_secret_post')) method = 'client_secret_post';
  else if (supported && !supported.includes('client_secret_basic') && supported.includes('none')) method = 'none';
  else method = 'client_secret_basic';
  return {
    clientId: body.client_id,
    clientSecret: method === 'none' ? undefined : body.client_secret,
    authMethod: method,
    origin: 'dynamic',
    redirectUris: body.redirect_uris ?? input.redirectUris,
    secretExpiresAt: body.client_secret_expires_at ? body.client_secret_expires_at * 1000 : undefined,
  };
}
