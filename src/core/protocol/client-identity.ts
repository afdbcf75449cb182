/**
 * Step 2 of the flow: which client Lanyard is at an authorization server, in
 * the later revisions' order — a given --client-id (pre-registered), a client
 * ID metadata document URL when the server accepts those, a stored
 * registration, a new dynamic registration.
 */
import { LanyardError, OAuthError, ValidationError } from '../errors.js';
import { OAuthGrant, type ClientAuthMethod } from '../../shared/protocol.js';
import type { AuthServerEndpoints } from './discovery.js';
import { processRegistrationResponse, registrationRequest, type ClientIdentity } from './registration.js';
import type { ProtocolAuthDeps } from './deps.js';
import { signingAlgOf } from './token.js';

export interface ClientResolution {
  readonly client: ClientIdentity;
  /** How the identity was found: `stored` ones may be refused by the server and are then registered again. */
  readonly how: 'provided' | 'metadata-document' | 'stored' | 'registered';
}

export interface ResolveClientOptions {
  clientId?: string;
  clientCredentials: boolean;
  /** The loopback redirect URI (code flow). */
  redirectUri?: string;
  scope?: string;
  /** An HTTPS URL of Lanyard's client ID metadata document, used where the server accepts one. */
  clientMetadataUrl?: string;
  /** PKCS #8 PEM of a private_key_jwt client (with --client-id). */
  clientKey?: string;
  /** Skip the stored registration (it was just refused). */
  ignoreStored?: boolean;
  /** The device authorization grant: a registration asks for it (and needs no redirect URI). */
  device?: boolean;
}

/** A confidential client's method: basic unless the server lists only post (RFC 6749 §2.3.1: servers MUST support basic). */
export function secretAuthMethod(e: AuthServerEndpoints): ClientAuthMethod {
  const m = e.tokenAuthMethods;
  if (m && !m.includes('client_secret_basic') && m.includes('client_secret_post')) return 'client_secret_post';
  return 'client_secret_basic';
}

/** A client ID metadata document URL must be HTTPS with a path (the draft's rule), no fragment. */
export function checkClientMetadataUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ValidationError(`the client metadata document URL is not a URL: ${url}`);
  }
  if (u.protocol !== 'https:' || u.pathname === '/' || u.hash || u.username || u.password) {
    throw new ValidationError(`the client metadata document URL must be an https URL with a path and no fragment: ${url}`);
  }
  return u.toString();
}

export async function resolveClient(
  deps: Pick<ProtocolAuthDeps, 'http' | 'credentials' | 'clientSecret' | 'clock' | 'signal' | 'notify'>,
  e: AuthServerEndpoints,
  o: ResolveClientOptions,
): Promise<ClientResolution> {
  const stored = o.ignoreStored ? undefined : await deps.credentials.client(e.issuer);
  if (o.clientId) {
    if (o.clientKey) {
      const alg = signingAlgOf(o.clientKey);
      if (e.signingAlgs && !e.signingAlgs.includes(alg)) {
        throw new LanyardError(
          'client_required',
          `the client key signs with ${alg}, but ${e.issuer} accepts only ${e.signingAlgs.join(', ')} (token_endpoint_auth_signing_alg_values_supported)`,
        );
      }
      return { client: { clientId: o.clientId, authMethod: 'private_key_jwt', privateKey: o.clientKey, signingAlg: alg, origin: 'provided' }, how: 'provided' };
    }
    const secret = (await deps.clientSecret()) ?? (stored?.clientId === o.clientId ? stored.clientSecret : undefined);
    if (o.clientCredentials && !secret) throw noSecret();
    const client: ClientIdentity = { clientId: o.clientId, clientSecret: secret, authMethod: secret ? secretAuthMethod(e) : 'none', origin: 'provided' };
    // Saved only once a token request has proven it (see flow.ts).
    return { client, how: 'provided' };
  }
  if (!o.clientCredentials && o.clientMetadataUrl && e.clientIdMetadataDocuments) {
    return { client: { clientId: checkClientMetadataUrl(o.clientMetadataUrl), authMethod: 'none', origin: 'metadata-document' }, how: 'metadata-document' };
  }
  const fits = (c: ClientIdentity) => (o.clientCredentials || c.provenBy !== 'client_credentials') && (!o.device || c.provenBy === 'device_code');
  if (stored && !expired(stored, deps.clock.now()) && fits(stored)) {
    if (o.clientCredentials && stored.authMethod !== 'private_key_jwt' && !stored.clientSecret) {
      const secret = await deps.clientSecret();
      if (!secret) throw noSecret();
      return { client: { ...stored, clientSecret: secret, authMethod: stored.authMethod === 'none' ? secretAuthMethod(e) : stored.authMethod }, how: 'stored' };
    }
    return { client: stored, how: 'stored' };
  }
  if (o.clientCredentials) {
    throw new LanyardError('client_required', 'the client-credentials grant needs a client registered for this server', {
      remedy: { kind: 'client-id', confidential: true },
      service: 'protocol',
    });
  }
  if (!e.registrationEndpoint) throw noRegistration(e.issuer);
  if (!o.redirectUri && !o.device) throw new LanyardError('client_required', 'dynamic registration needs a redirect URI');
  deps.notify?.(`Registering Lanyard as a client at ${e.issuer}`);
  const input = o.device
    ? { redirectUris: [], grantTypes: [OAuthGrant.deviceCode, 'refresh_token'], authMethod: 'none' as const, scope: o.scope }
    : { redirectUris: [o.redirectUri!], grantTypes: ['authorization_code', 'refresh_token'], authMethod: 'none' as const, scope: o.scope };
  const res = await registrationRequest(deps.http, e.registrationEndpoint, input, deps.signal);
  if (res.status === 404 || res.status === 405) {
    await res.dump();
    throw noRegistration(e.issuer);
  }
  let client: ClientIdentity;
  try {
    client = await processRegistrationResponse(res, input, e.tokenAuthMethods);
  } catch (err) {
    if (err instanceof OAuthError) throw Object.assign(err, { remedy: { kind: 'client-id' }, service: 'protocol' });
    throw err;
  }
  // Stored only after the registration worked (the caller saves it with the tokens).
  return { client, how: 'registered' };
}

function expired(c: ClientIdentity, now: number): boolean {
  return !!c.secretExpiresAt && c.secretExpiresAt <= now;
}

function noSecret(): LanyardError {
  return new LanyardError('client_secret_missing', 'the client-credentials grant needs the client secret', {
    remedy: { kind: 'client-secret' },
    service: 'protocol',
  });
}

function noRegistration(issuer: string): LanyardError {
  return new LanyardError('client_required', `${issuer} offers no dynamic client registration and no client is stored for it`, {
    hint: "register a client with the server's operator",
    remedy: { kind: 'client-id', confidential: true },
    service: 'protocol',
  });
}
