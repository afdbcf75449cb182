/**
 * Step 2 of the flow: which client Lanyard is at an authorization server —
 * a given --client-id, a stored registration, or a new dynamic registration.
 */
import { LanyardError, OAuthError } from '../errors.js';
import type { ClientAuthMethod } from '../../shared/protocol.js';
import type { AuthServerEndpoints } from './discovery.js';
import { processRegistrationResponse, registrationRequest, type ClientIdentity } from './registration.js';
import type { ProtocolAuthDeps } from './flow.js';

export interface ClientResolution {
  readonly client: ClientIdentity;
  readonly registered: boolean;
}

export interface ResolveClientOptions {
  clientId?: string;
  clientCredentials: boolean;
  /** The loopback redirect URI (code flow). */
  redirectUri?: string;
  scope?: string;
}

/** A confidential client's method: basic unless the server lists only post (RFC 6749 §2.3.1: servers MUST support basic). */
export function secretAuthMethod(e: AuthServerEndpoints): ClientAuthMethod {
  const m = e.tokenAuthMethods;
  if (m && !m.includes('client_secret_basic') && m.includes('client_secret_post')) return 'client_secret_post';
  return 'client_secret_basic';
}

export async function resolveClient(
  deps: Pick<ProtocolAuthDeps, 'http' | 'credentials' | 'clientSecret' | 'clock' | 'signal' | 'notify'>,
  e: AuthServerEndpoints,
  o: ResolveClientOptions,
): Promise<ClientResolution> {
  const stored = await deps.credentials.client(e.issuer);
  if (o.clientId) {
    const secret = (await deps.clientSecret()) ?? (stored?.clientId === o.clientId ? stored.clientSecret : undefined);
    if (o.clientCredentials && !secret) throw noSecret();
    const client: ClientIdentity = {
      clientId: o.clientId,
      clientSecret: secret,
      authMethod: secret ? secretAuthMethod(e) : 'none',
      origin: 'provided',
    };
    // Saved only once a token request has proven it (see flow.ts).
    return { client, registered: false };
  }
  if (stored && !expired(stored, deps.clock.now())) {
    if (o.clientCredentials && !stored.clientSecret) {
      const secret = await deps.clientSecret();
      if (!secret) throw noSecret();
      return {
        client: { ...stored, clientSecret: secret, authMethod: stored.authMethod === 'none' ? secretAuthMethod(e) : stored.authMethod },
        registered: false,
      };
    }
    return { client: stored, registered: false };
  }
  if (o.clientCredentials) {
    throw new LanyardError(
      'client_required',
      'the client-credentials grant needs a client registered for this server: pass --client-id and its secret (LANYARD_CLIENT_SECRET or stdin)',
    );
  }
  if (!e.registrationEndpoint) throw noRegistration(e.issuer);
  if (!o.redirectUri) throw new LanyardError('client_required', 'dynamic registration needs a redirect URI');
  deps.notify?.(`Registering Lanyard as a client at ${e.issuer}`);
  const input = { redirectUris: [o.redirectUri], grantTypes: ['authorization_code', 'refresh_token'], authMethod: 'none' as const, scope: o.scope };
  const res = await registrationRequest(deps.http, e.registrationEndpoint, input, deps.signal);
  if (res.status === 404 || res.status === 405) {
    await res.dump();
    throw noRegistration(e.issuer);
  }
  let client: ClientIdentity;
  try {
    client = await processRegistrationResponse(res, input);
  } catch (err) {
    if (err instanceof OAuthError) throw Object.assign(err, { hint: 'pass a pre-registered client with --client-id' });
    throw err;
  }
  await deps.credentials.saveClient(e.issuer, client);
  return { client, registered: true };
}

function expired(c: ClientIdentity, now: number): boolean {
  return !!c.secretExpiresAt && c.secretExpiresAt <= now;
}

function noSecret(): LanyardError {
  return new LanyardError('client_secret_missing', 'the client-credentials grant needs the client secret: set LANYARD_CLIENT_SECRET or pipe it on stdin');
}

function noRegistration(issuer: string): LanyardError {
  return new LanyardError('client_required', `${issuer} offers no dynamic client registration and no client is stored for it`, {
    hint: "register a client with the server's operator and pass --client-id (and its secret via LANYARD_CLIENT_SECRET or stdin for confidential clients)",
  });
}
