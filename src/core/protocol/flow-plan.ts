/**
 * Before a grant: what the authorization flow learns and decides about the
 * server — its protected resource metadata (RFC 9728), the endpoints with the
 * user's overrides, the grant's endpoint checks, the scope to ask for and
 * whether the tokens are to be DPoP-bound. Takes the ports it needs; prints
 * nothing.
 */
import { LanyardError } from '../errors.js';
import { OAuthGrant } from '../../shared/protocol.js';
import { Protocol, type ProtocolRevision } from '../../shared/constants.js';
import type { HttpClient } from '../http/client.js';
import { processProtectedResourceResponse, protectedResourceRequest, wellKnownUrl, type AuthServerEndpoints, type ProtectedResource } from './discovery.js';
import { assertSecureEndpoint, serverKeyOf } from './endpoints.js';
import { chooseDpopAlg, DPOP_ALGS, type DpopNonces, DpopProver, generateDpopKey } from './dpop.js';
import type { StoredTokens } from './store.js';
import type { AuthorizeOptions } from './flow-options.js';

export type Grant = StoredTokens['grant'];

/** The grant the options ask for. */
export function grantOf(o: AuthorizeOptions): Grant {
  if (o.identityProvider || o.workloadToken) return 'jwt_bearer';
  if (o.clientCredentials) return 'client_credentials';
  return o.device ? 'device_code' : 'authorization_code';
}

/** The revision metadata is asked under: the one negotiated, else the newest. */
export const metadataRevision = (o: AuthorizeOptions): ProtocolRevision => (o.revision && o.revision !== '2025-03-26' ? o.revision : Protocol.revisions[0]);

/** The discovered endpoints with the user's --authorization-endpoint / --token-endpoint in their place. */
export function overridden(e: AuthServerEndpoints, o: AuthorizeOptions): AuthServerEndpoints {
  if (!o.authorizationEndpoint && !o.tokenEndpoint) return e;
  return { ...e, authorizationEndpoint: o.authorizationEndpoint ?? e.authorizationEndpoint, tokenEndpoint: o.tokenEndpoint ?? e.tokenEndpoint };
}

/** A new key and its signer when the tokens are to be DPoP-bound (see AuthorizeOptions.dpop), else undefined. */
export async function dpopFor(
  o: AuthorizeOptions,
  e: AuthServerEndpoints,
  resourceTakesDpop: boolean,
  now: () => number,
  notify?: (line: string) => void,
  nonces?: DpopNonces,
): Promise<DpopProver | undefined> {
  if (o.dpop === false || (!o.dpop && (!e.dpopAlgs || !resourceTakesDpop))) return undefined;
  const alg = chooseDpopAlg(e.dpopAlgs);
  if (!alg) {
    const msg = `${e.issuer} accepts DPoP proofs signed with ${e.dpopAlgs!.join(', ') || 'nothing'} (dpop_signing_alg_values_supported), none of which Lanyard signs with (${DPOP_ALGS.join(', ')})`;
    if (o.dpop) throw new LanyardError('dpop_unsupported', msg);
    notify?.(`${msg}; asking for bearer tokens`);
    return undefined;
  }
  return new DpopProver(await generateDpopKey(alg), now, nonces);
}

/**
 * The scope to ask for: the user's --scopes, else the challenge's (the later
 * revisions make it authoritative), else every scope the protected resource
 * lists (plus offline_access when the authorization server offers it and a
 * user signs in), else none.
 */
export function chooseScope(o: AuthorizeOptions, prm: ProtectedResource | undefined, e: AuthServerEndpoints, grant: Grant): string | undefined {
  const explicit = o.scopes?.trim() || o.challenge?.scope?.trim();
  if (explicit) return explicit;
  if (!prm?.scopes?.length) return undefined;
  const scopes = [...prm.scopes];
  if ((grant === 'authorization_code' || grant === 'device_code') && e.scopes?.includes('offline_access') && !scopes.includes('offline_access'))
    scopes.push('offline_access');
  return scopes.join(' ');
}

/**
 * RFC 9728 metadata: at the URL the challenge named, else at the path-inserted
 * and then the root well-known URL of the server; none (any non-2xx) means a
 * 2025-03-26 server.
 */
export async function protectedResource(http: HttpClient, o: AuthorizeOptions, signal?: AbortSignal): Promise<ProtectedResource | undefined> {
  const key = serverKeyOf(o.serverUrl);
  const candidates: string[] = [];
  if (o.challenge?.resourceMetadata) {
    try {
      const u = new URL(o.challenge.resourceMetadata, o.serverUrl);
      if (u.protocol === 'https:' || u.protocol === 'http:') candidates.push(u.toString());
    } catch {
      /* a malformed hint: use the well-known URLs */
    }
  }
  const pathInserted = wellKnownUrl(key, 'oauth-protected-resource');
  const root = wellKnownUrl(new URL(key).origin, 'oauth-protected-resource');
  for (const u of [pathInserted, root]) if (!candidates.includes(u)) candidates.push(u);
  const revision = metadataRevision(o);
  for (const url of candidates) {
    const found = await processProtectedResourceResponse(await protectedResourceRequest(http, url, revision, signal), o.serverUrl);
    if (found) return found;
  }
  return undefined;
}

export function checkEndpoints(e: AuthServerEndpoints, grant: Grant): void {
  const where = e.url ? `authorization server metadata at ${e.url}` : `the authorization server ${e.issuer}`;
  if (grant === 'authorization_code') assertSecureEndpoint(e.authorizationEndpoint, 'authorization');
  assertSecureEndpoint(e.tokenEndpoint, 'token');
  if (e.registrationEndpoint) assertSecureEndpoint(e.registrationEndpoint, 'registration');
  if (grant === 'device_code') {
    if (!e.deviceAuthorizationEndpoint)
      throw new LanyardError('unsupported_grant_type', `${where}: no device_authorization_endpoint; sign in with the browser instead`);
    assertSecureEndpoint(e.deviceAuthorizationEndpoint, 'device authorization');
  }
  // PKCE must be verified from metadata; without a document (2025-03-26 fallback endpoints) it is used regardless.
  if (grant === 'authorization_code' && e.source !== 'fallback' && !e.codeChallengeMethods?.includes('S256')) {
    throw new LanyardError(
      'pkce_unsupported',
      `${where}: code_challenge_methods_supported ${e.codeChallengeMethods ? 'lacks S256' : 'is missing'}; refusing to sign in without PKCE (S256)`,
    );
  }
  const wire = grant === 'jwt_bearer' ? OAuthGrant.jwtBearer : grant === 'device_code' ? OAuthGrant.deviceCode : grant;
  if (e.grantTypes && !e.grantTypes.includes(wire)) {
    throw new LanyardError('unsupported_grant_type', `${where}: grant_types_supported (${e.grantTypes.join(', ')}) does not include ${wire}`);
  }
}
