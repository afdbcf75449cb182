/**
 * The authorization flow of the protocol (revision 2025-03-26, plus the later
 * revisions' protected-resource hints): discovery, client identity, the
 * authorization code grant with PKCE on a loopback redirect or the client
 * credentials grant, token storage, refresh. Takes callbacks; prints nothing.
 */
import { noLock } from '../credentials/lock.js';
import { AuthRequiredError, LanyardError, OAuthError } from '../errors.js';
import { startLoopbackReceiver } from '../auth/loopback.js';
import { OAuthGrant, TokenTypes } from '../../shared/protocol.js';
import { Protocol, type ProtocolRevision } from '../../shared/constants.js';
import {
  discoverAuthorizationServer,
  parseBearerChallenge,
  wellKnownUrl,
  processProtectedResourceResponse,
  protectedResourceRequest,
  type AuthServerEndpoints,
  type BearerChallenge,
  type ProtectedResource,
} from './discovery.js';
import { assertRedirectUri, assertSecureEndpoint, authBaseOf, serverKeyOf } from './endpoints.js';
import { codeChallengeS256, generateCodeVerifier, generateState } from './pkce.js';
import { resolveClient, type ClientResolution } from './client-identity.js';
import type { ClientIdentity } from './registration.js';
import type { StoredTokens, WorkloadTokenSource } from './store.js';
import type { ProtocolAuthDeps } from './deps.js';

export type { ProtocolAuthDeps } from './deps.js';
import { OAuthErrorCode, processTokenResponse, tokenRequest, type TokenSet } from './token.js';
import { chooseDpopAlg, DPOP_ALGS, DpopProver, generateDpopKey } from './dpop.js';
import type { HttpResponse } from '../http/client.js';

/** Cross-app access: the user's identity provider exchanges their ID token for an identity assertion the server accepts. */
export interface IdentityProviderOptions {
  /** The identity provider's token endpoint (RFC 8693 token exchange). */
  readonly tokenEndpoint: string;
  /** Lanyard's client id at the identity provider. */
  readonly clientId: string;
}

export interface AuthorizeOptions {
  readonly serverUrl: string;
  /** Space-separated scopes to request. */
  readonly scopes?: string;
  readonly clientId?: string;
  readonly clientCredentials?: boolean;
  /** The Bearer challenge of the 401/403 that started the flow. */
  readonly challenge?: BearerChallenge;
  /** The revision negotiated with the server, when initialize got that far. */
  readonly revision?: ProtocolRevision;
  /** Lanyard's client ID metadata document URL (used where the server accepts one). */
  readonly clientMetadataUrl?: string;
  /** PKCS #8 PEM of a private_key_jwt client (with clientId). */
  readonly clientKey?: string;
  /** Cross-app access: get the token through the user's identity provider. */
  readonly identityProvider?: IdentityProviderOptions;
  /**
   * RFC 9449 proof-of-possession: true asks for DPoP-bound tokens, false
   * never; undefined: when the authorization server advertises
   * dpop_signing_alg_values_supported and the resource server shows it takes
   * DPoP-bound tokens (its challenge offers the DPoP scheme, or its RFC 9728
   * metadata lists dpop_signing_alg_values_supported or requires them) — an
   * authorization server that merely supports DPoP (many do by default) in
   * front of a Bearer-only server keeps getting bearer tokens.
   */
  readonly dpop?: boolean;
  /**
   * Workload identity federation: a JWT the workload's platform issued for
   * this authorization server, presented as an RFC 7523 grant (with clientId).
   */
  readonly workloadToken?: string;
  /** Where `workloadToken` was read (stored with the tokens, so that a renewal reads it again there). */
  readonly workloadTokenFrom?: WorkloadTokenSource;
  /** RFC 8628 device authorization grant: a code to enter on another device instead of a loopback redirect. */
  readonly device?: boolean;
  /**
   * Escape hatches for identity providers that deviate: the RFC 8707
   * `resource` to send instead of the server's (false: none at all), extra
   * authorization request parameters, and endpoints used instead of the
   * discovered ones.
   */
  readonly resource?: string | false;
  readonly authorizationParams?: Readonly<Record<string, string>>;
  readonly authorizationEndpoint?: string;
  readonly tokenEndpoint?: string;
  /**
   * The caller's access token the server refused (accessToken undefined: it
   * had none): tokens another process stored meanwhile are used instead of
   * signing in again.
   */
  readonly insteadOf?: { readonly accessToken?: string };
}

/** Refresh this long before the recorded expiry. */
export const REFRESH_MARGIN_MS = 30_000;

/** Registrations proven (by a token) in this process, per set of deps: no need to ask the authorization endpoint about them again. */
const proven = new WeakMap<ProtocolAuthDeps, Set<string>>();
const provenKey = (issuer: string, clientId: string) => `${issuer} ${clientId}`;

/** A stored registration the authorization server refuses (found before the user is sent to the browser, or at the token endpoint). */
class RegistrationRefused extends Error {}

/**
 * Runs the whole flow and stores the tokens (and the client, once proven),
 * under the server's lock: processes that need a sign-in at once get one
 * (the others take its tokens), one registration, one loopback port.
 */
export async function authorize(deps: ProtocolAuthDeps, o: AuthorizeOptions): Promise<StoredTokens> {
  const server = serverKeyOf(o.serverUrl);
  return (deps.lock ?? noLock).withLock(`protocol-${server}`, async () => {
    if (o.insteadOf) {
      const t = await deps.credentials.tokens(server);
      if (t && t.accessToken !== o.insteadOf.accessToken && fresh(deps, t)) return t;
    }
    return authorizeLocked(deps, o, server);
  });
}

const fresh = (deps: ProtocolAuthDeps, t: StoredTokens) => t.expiresAt === undefined || t.expiresAt - REFRESH_MARGIN_MS > deps.clock.now();

async function authorizeLocked(deps: ProtocolAuthDeps, o: AuthorizeOptions, server: string): Promise<StoredTokens> {
  const prm = await protectedResource(deps, o);
  // Without protected resource metadata the server is of revision 2025-03-26.
  const revision: ProtocolRevision = prm ? (o.revision && o.revision !== '2025-03-26' ? o.revision : Protocol.revisions[0]) : '2025-03-26';
  const issuer = prm?.authorizationServers[0] ?? authBaseOf(o.serverUrl);
  deps.notify?.(`Discovering the authorization server at ${issuer}`);
  const endpoints = overridden(await discoverAuthorizationServer(deps.http, issuer, { signal: deps.signal, named: !!prm, revision }), o);
  const grant: Grant =
    o.identityProvider || o.workloadToken ? 'jwt_bearer' : o.clientCredentials ? 'client_credentials' : o.device ? 'device_code' : 'authorization_code';
  checkEndpoints(endpoints, grant);
  const dpop = await dpopFor(deps, o, endpoints, !!(o.challenge?.offersDpop || prm?.acceptsDpop));
  const resource = o.resource === false ? undefined : (o.resource ?? prm?.resource);
  const ctx: FlowContext = { deps, o, server, endpoints, resource, scope: chooseScope(o, prm, endpoints, grant), ignoreStored: false, dpop };
  for (let attempt = 0; ; attempt++) {
    try {
      if (grant === 'jwt_bearer') return await (o.workloadToken ? workloadGrant(ctx, o.workloadToken) : identityAssertionGrant(ctx));
      if (grant === 'device_code') return await deviceGrant(ctx);
      return grant === 'client_credentials' ? await clientCredentialsGrant(ctx) : await codeGrant(ctx);
    } catch (err) {
      const refused = err instanceof RegistrationRefused || (err instanceof OAuthError && err.error === OAuthErrorCode.invalidClient);
      // A stored registration the server no longer accepts: register again (once); the old one is replaced when that works.
      if (attempt === 0 && refused && ctx.how === 'stored' && ctx.client?.origin === 'dynamic') {
        deps.notify?.(
          `The authorization server refuses the stored registration (${err instanceof RegistrationRefused ? err.message : 'invalid_client'}); registering again`,
        );
        ctx.ignoreStored = true;
        continue;
      }
      if (err instanceof RegistrationRefused) {
        throw new LanyardError('client_required', `the authorization server refuses client ${ctx.client?.clientId} (${err.message})`, {
          remedy: { kind: 'forget-client', serverUrl: o.serverUrl },
          service: 'protocol',
        });
      }
      throw err;
    }
  }
}

type Grant = StoredTokens['grant'];

/** The discovered endpoints with the user's --authorization-endpoint / --token-endpoint in their place. */
function overridden(e: AuthServerEndpoints, o: AuthorizeOptions): AuthServerEndpoints {
  if (!o.authorizationEndpoint && !o.tokenEndpoint) return e;
  return { ...e, authorizationEndpoint: o.authorizationEndpoint ?? e.authorizationEndpoint, tokenEndpoint: o.tokenEndpoint ?? e.tokenEndpoint };
}

/** Parameters Lanyard sets itself for the code flow's security: --auth-param may not replace them. */
export const RESERVED_AUTHORIZATION_PARAMS = ['response_type', 'client_id', 'redirect_uri', 'code_challenge', 'code_challenge_method', 'state'];

interface FlowContext {
  deps: ProtocolAuthDeps;
  o: AuthorizeOptions;
  server: string;
  endpoints: AuthServerEndpoints;
  resource?: string;
  scope?: string;
  client?: ClientIdentity;
  how?: ClientResolution['how'];
  ignoreStored: boolean;
  /** The signer of the token requests when the tokens are to be DPoP-bound. */
  dpop?: DpopProver;
}

/** A new key and its signer when the tokens are to be DPoP-bound (see AuthorizeOptions.dpop), else undefined. */
async function dpopFor(deps: ProtocolAuthDeps, o: AuthorizeOptions, e: AuthServerEndpoints, resourceTakesDpop: boolean): Promise<DpopProver | undefined> {
  if (o.dpop === false || (!o.dpop && (!e.dpopAlgs || !resourceTakesDpop))) return undefined;
  const alg = chooseDpopAlg(e.dpopAlgs);
  if (!alg) {
    const msg = `${e.issuer} accepts DPoP proofs signed with ${e.dpopAlgs!.join(', ') || 'nothing'} (dpop_signing_alg_values_supported), none of which Lanyard signs with (${DPOP_ALGS.join(', ')})`;
    if (o.dpop) throw new LanyardError('dpop_unsupported', msg);
    deps.notify?.(`${msg}; asking for bearer tokens`);
    return undefined;
  }
  return new DpopProver(await generateDpopKey(alg), () => deps.clock.now());
}

/**
 * The scope to ask for: the user's --scopes, else the challenge's (the later
 * revisions make it authoritative), else every scope the protected resource
 * lists (plus offline_access when the authorization server offers it and a
 * user signs in), else none.
 */
function chooseScope(o: AuthorizeOptions, prm: ProtectedResource | undefined, e: AuthServerEndpoints, grant: Grant): string | undefined {
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
async function protectedResource(deps: ProtocolAuthDeps, o: AuthorizeOptions): Promise<ProtectedResource | undefined> {
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
  const revision = o.revision && o.revision !== '2025-03-26' ? o.revision : Protocol.revisions[0];
  for (const url of candidates) {
    const found = await processProtectedResourceResponse(await protectedResourceRequest(deps.http, url, revision, deps.signal), o.serverUrl);
    if (found) return found;
  }
  return undefined;
}

function checkEndpoints(e: AuthServerEndpoints, grant: Grant): void {
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

async function identity(ctx: FlowContext, redirectUri: string | undefined, confidential: boolean): Promise<ClientIdentity> {
  const r = await resolveClient(ctx.deps, ctx.endpoints, {
    device: ctx.o.device,
    clientId: ctx.o.clientId,
    clientCredentials: confidential,
    redirectUri,
    scope: ctx.scope,
    clientMetadataUrl: ctx.o.clientMetadataUrl,
    clientKey: ctx.o.clientKey,
    ignoreStored: ctx.ignoreStored,
  });
  ctx.client = r.client;
  ctx.how = r.how;
  return r.client;
}

/** The port of a stored registration's loopback redirect URI, to listen on it again (servers that match redirect URIs exactly). */
async function registeredPort(ctx: FlowContext): Promise<number | undefined> {
  if (ctx.ignoreStored || ctx.o.clientId) return undefined;
  const uri = (await ctx.deps.credentials.client(ctx.endpoints.issuer))?.redirectUris?.[0];
  if (!uri) return undefined;
  try {
    const u = new URL(uri);
    return u.hostname === '127.0.0.1' && u.port ? Number(u.port) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Before sending the user to the browser with a registration stored by an
 * earlier run: does the authorization endpoint accept it? A refusal there
 * (unknown client, unregistered redirect URI) is an error page the CLI would
 * never see (RFC 6749 §4.1.2.1 forbids redirecting it), so it is asked first.
 */
async function preflight(ctx: FlowContext, url: string, redirectUri: string): Promise<void> {
  const res = await ctx.deps.http.request({ url, headers: { accept: 'text/html' }, signal: ctx.deps.signal, okStatus: () => true, oauth: true, retry: false });
  await res.dump();
  if (res.status >= 400 && res.status < 500) throw new RegistrationRefused(`its authorization endpoint answers HTTP ${res.status}`);
  const to = res.status >= 300 && res.status < 400 ? res.headers.location : undefined;
  if (to?.startsWith(redirectUri)) {
    const error = new URL(to).searchParams.get('error');
    if (error === 'invalid_client' || error === 'unauthorized_client' || error === 'invalid_request') throw new RegistrationRefused(error);
  }
}

async function codeGrant(ctx: FlowContext): Promise<StoredTokens> {
  const { deps, endpoints } = ctx;
  const state = generateState(deps.random);
  const verifier = generateCodeVerifier(deps.random);
  const receiver = await startLoopbackReceiver({ state, signal: deps.signal, productName: 'Lanyard', preferredPort: await registeredPort(ctx) });
  try {
    assertRedirectUri(receiver.redirectUri);
    const client = await identity(ctx, receiver.redirectUri, false);
    const url = new URL(endpoints.authorizationEndpoint);
    const q = url.searchParams;
    q.set('response_type', 'code');
    q.set('client_id', client.clientId);
    q.set('redirect_uri', receiver.redirectUri);
    q.set('code_challenge', codeChallengeS256(verifier));
    q.set('code_challenge_method', 'S256');
    q.set('state', state);
    if (ctx.scope) q.set('scope', ctx.scope);
    // OpenID Connect Core §11: offline_access is honoured only with prompt=consent.
    if (ctx.scope?.split(' ').includes('offline_access')) q.set('prompt', 'consent');
    if (ctx.resource) q.set('resource', ctx.resource);
    for (const [k, v] of Object.entries(ctx.o.authorizationParams ?? {})) if (!RESERVED_AUTHORIZATION_PARAMS.includes(k)) q.set(k, v);
    if (ctx.how === 'stored' && client.origin === 'dynamic' && !proven.get(deps)?.has(provenKey(endpoints.issuer, client.clientId))) {
      await preflight(ctx, url.toString(), receiver.redirectUri);
    }
    await deps.presentAuthorizationUrl(url.toString());
    const params = await receiver
      .wait(deps.loopbackTimeoutMs, (ms, s) => deps.clock.sleep(ms, s))
      .catch((err: unknown) => {
        if (err instanceof OAuthError && err.error === 'access_denied') {
          throw new AuthRequiredError(`authorization was denied${err.errorDescription ? ': ' + err.errorDescription : ''}; nothing was stored`, {
            service: 'protocol',
          });
        }
        throw err;
      });
    // RFC 9207: an iss that is present must be the issuer; a server that promises one must send it.
    const iss = params.get('iss');
    if (iss !== null && iss !== endpoints.issuer) {
      throw new LanyardError('issuer_mismatch', `the authorization response came from issuer ${iss}, expected ${endpoints.issuer}; nothing was stored`);
    }
    if (iss === null && endpoints.issParameter) {
      throw new LanyardError(
        'issuer_mismatch',
        `the authorization response lacks iss, which ${endpoints.issuer} promises (authorization_response_iss_parameter_supported); nothing was stored`,
      );
    }
    const code = params.get('code');
    if (!code) throw new LanyardError('oauth_error', 'the authorization response carries no code');
    const res = await tokenRequest(
      deps.http,
      endpoints.tokenEndpoint,
      { grant_type: 'authorization_code', code, redirect_uri: receiver.redirectUri, code_verifier: verifier, resource: ctx.resource },
      client,
      tokenOptions(ctx),
    );
    return save(ctx, await tokensOf(ctx, res), 'authorization_code');
  } finally {
    await receiver.close();
  }
}

function tokenOptions(ctx: FlowContext) {
  return { signal: ctx.deps.signal, issuer: ctx.endpoints.issuer, now: ctx.deps.clock.now(), dpop: ctx.dpop };
}

const tokensOf = (ctx: FlowContext, res: HttpResponse) => processTokenResponse(res, ctx.deps.clock.now(), !!ctx.dpop);

async function clientCredentialsGrant(ctx: FlowContext): Promise<StoredTokens> {
  const client = await identity(ctx, undefined, true);
  const res = await tokenRequest(
    ctx.deps.http,
    ctx.endpoints.tokenEndpoint,
    { grant_type: 'client_credentials', scope: ctx.scope, resource: ctx.resource },
    client,
    tokenOptions(ctx),
  );
  return save(ctx, await tokensOf(ctx, res), 'client_credentials');
}

/**
 * Cross-app access (the identity assertion authorization grant): the user's
 * ID token is exchanged at their identity provider (RFC 8693) for an identity
 * assertion naming this authorization server and resource, which Lanyard, a
 * confidential client, presents as an RFC 7523 grant.
 */
async function identityAssertionGrant(ctx: FlowContext): Promise<StoredTokens> {
  const { deps, endpoints } = ctx;
  const idp = ctx.o.identityProvider!;
  assertSecureEndpoint(idp.tokenEndpoint, 'identity provider token');
  const idToken = await deps.idToken?.();
  if (!idToken)
    throw new LanyardError('auth_required', 'cross-app access needs your ID token from the identity provider', {
      remedy: { kind: 'id-token' },
      service: 'protocol',
    });
  const client = await identity(ctx, undefined, true);
  const assertion = await exchangeIdToken(ctx, idp, idToken);
  const res = await tokenRequest(
    deps.http,
    endpoints.tokenEndpoint,
    { grant_type: OAuthGrant.jwtBearer, assertion, scope: ctx.scope },
    client,
    tokenOptions(ctx),
  );
  return save(ctx, await tokensOf(ctx, res), 'jwt_bearer');
}

/** RFC 8693 at the identity provider: the user's ID token for an identity assertion (ID-JAG) naming this server and resource. */
async function exchangeIdToken(ctx: FlowContext, idp: NonNullable<AuthorizeOptions['identityProvider']>, idToken: string): Promise<string> {
  const exchange = await ctx.deps.http.request({
    method: 'POST',
    url: idp.tokenEndpoint,
    form: {
      grant_type: OAuthGrant.tokenExchange,
      requested_token_type: TokenTypes.idJag,
      audience: ctx.endpoints.issuer,
      resource: ctx.resource ?? serverKeyOf(ctx.o.serverUrl),
      scope: ctx.scope,
      subject_token: idToken,
      subject_token_type: TokenTypes.idToken,
      client_id: idp.clientId,
    },
    signal: ctx.deps.signal,
    okStatus: () => true,
    oauth: true,
    retry: false,
  });
  let body: { access_token?: unknown; issued_token_type?: unknown; error?: unknown; error_description?: unknown };
  try {
    body = (await exchange.json()) as typeof body;
  } catch {
    throw new LanyardError(
      'token_failed',
      `the identity provider's token exchange at ${idp.tokenEndpoint} answered HTTP ${exchange.status} without a JSON body`,
    );
  }
  if (exchange.status < 200 || exchange.status > 299 || typeof body?.error === 'string') {
    const error = typeof body?.error === 'string' ? body.error : 'server_error';
    const d = typeof body?.error_description === 'string' ? `: ${body.error_description}` : '';
    throw new OAuthError(
      error,
      d.slice(2) || undefined,
      exchange.status,
      `the identity provider refused the token exchange (HTTP ${exchange.status}): ${error}${d}`,
    );
  }
  if (typeof body.access_token !== 'string' || !body.access_token) {
    throw new LanyardError('token_failed', `token exchange response from ${idp.tokenEndpoint}: access_token is missing`);
  }
  if (body.issued_token_type !== TokenTypes.idJag) {
    throw new LanyardError(
      'token_failed',
      `token exchange response from ${idp.tokenEndpoint}: issued_token_type is ${JSON.stringify(body.issued_token_type)}, expected ${TokenTypes.idJag}`,
    );
  }
  return body.access_token;
}

/**
 * RFC 8628: a user code to enter at the verification URI on any device, then
 * the token endpoint polled under the hosting device flow's rules (interval,
 * slow_down, expiry, Ctrl-C).
 */
async function deviceGrant(ctx: FlowContext): Promise<StoredTokens> {
  const { deps, endpoints } = ctx;
  if (!deps.presentDeviceCode) throw new LanyardError('validation', 'the device sign-in needs a way to show its code (presentDeviceCode)');
  const client = await identity(ctx, undefined, false);
  const { processDeviceAuthorizationResponse } = await import('../hosting/oauth.js');
  const { pollForDeviceToken } = await import('../hosting/device-flow.js');
  const code = await processDeviceAuthorizationResponse(
    await tokenRequest(deps.http, endpoints.deviceAuthorizationEndpoint!, { scope: ctx.scope, resource: ctx.resource }, client, {
      ...tokenOptions(ctx),
      dpop: undefined,
    }),
  );
  const issuedAt = deps.clock.monotonic();
  await deps.presentDeviceCode(code);
  const t = await pollForDeviceToken({
    clock: deps.clock,
    signal: deps.signal,
    interval: code.interval,
    expiresIn: code.expiresIn,
    issuedAt,
    onEvent: deps.onDeviceEvent,
    again: { kind: 'sign-in', service: 'protocol', serverUrl: ctx.o.serverUrl, again: true },
    poll: async () => {
      const grant = { grant_type: OAuthGrant.deviceCode, device_code: code.deviceCode, resource: ctx.resource };
      return tokensOf(ctx, await tokenRequest(deps.http, endpoints.tokenEndpoint, grant, client, tokenOptions(ctx)));
    },
  });
  return save(ctx, t, 'device_code');
}

/**
 * Workload identity federation (RFC 7523 §2.1): the platform's JWT is the
 * grant. A refusal (invalid_grant, invalid_scope, unauthorized_client) is
 * reported as it is: no retry, no other grant.
 */
async function workloadGrant(ctx: FlowContext, assertion: string): Promise<StoredTokens> {
  const client = await identity(ctx, undefined, false);
  const res = await tokenRequest(
    ctx.deps.http,
    ctx.endpoints.tokenEndpoint,
    { grant_type: OAuthGrant.jwtBearer, assertion, scope: ctx.scope, resource: ctx.resource },
    client,
    tokenOptions(ctx),
  );
  return save(ctx, await tokensOf(ctx, res), 'jwt_bearer', ctx.o.workloadTokenFrom);
}

async function save(ctx: FlowContext, t: TokenSet, grant: StoredTokens['grant'], workloadTokenFrom?: WorkloadTokenSource): Promise<StoredTokens> {
  const record: StoredTokens = {
    ...t,
    ...(workloadTokenFrom ? { workloadTokenFrom } : {}),
    scope: t.scope ?? ctx.scope,
    server: ctx.server,
    issuer: ctx.endpoints.issuer,
    tokenEndpoint: ctx.endpoints.tokenEndpoint,
    resource: ctx.resource,
    grant,
    obtainedAt: ctx.deps.clock.now(),
    // The key is kept only with a token bound to it (a server may answer a proof with a bearer token).
    dpopKey: ctx.dpop && t.tokenType === 'DPoP' ? ctx.dpop.key : undefined,
  };
  // The client is stored once a token request has proven it (a new registration replaces a refused one).
  if (ctx.client && ctx.how !== 'stored') await ctx.deps.credentials.saveClient(ctx.endpoints.issuer, { ...ctx.client, provenBy: grant });
  if (ctx.client) {
    const set = proven.get(ctx.deps) ?? new Set<string>();
    set.add(provenKey(ctx.endpoints.issuer, ctx.client.clientId));
    proven.set(ctx.deps, set);
  }
  await ctx.deps.credentials.saveTokens(record);
  return record;
}

/**
 * Whether stored tokens can be renewed without the user: a refresh token, the
 * client-credentials grant, or a workload's JWT to read again.
 */
export function renewable(t: StoredTokens): boolean {
  return !!t.refreshToken || t.grant === 'client_credentials' || workloadRenewal(t);
}

/** Workload identity tokens without a refresh token: renewed by the JWT-bearer grant with the JWT read again. */
const workloadRenewal = (t: StoredTokens) => !t.refreshToken && t.grant === 'jwt_bearer' && t.workloadTokenFrom !== undefined;

/**
 * Exchanges the refresh token (or repeats the client-credentials grant, or
 * the workload's JWT-bearer grant with its JWT read again from where the
 * sign-in read it). undefined when the grant is gone (`invalid_grant`:
 * tokens cleared) or the client is unknown (`invalid_client`: registration
 * dropped) — the caller authorizes again; a workload's refusal is an error
 * as it is (a workload never signs in with a browser).
 */
export async function refreshTokens(deps: ProtocolAuthDeps, used: StoredTokens): Promise<StoredTokens | undefined> {
  // Under the lock, from the store as it is now: tokens another process
  // refreshed meanwhile are used, and a rotating refresh token is never sent twice.
  return (deps.lock ?? noLock).withLock(`protocol-${used.server}`, async () => {
    const t = (await deps.credentials.tokens(used.server)) ?? used;
    if (t.accessToken !== used.accessToken && fresh(deps, t)) return t;
    return refreshLocked(deps, t);
  });
}

async function refreshLocked(deps: ProtocolAuthDeps, t: StoredTokens): Promise<StoredTokens | undefined> {
  const client = await deps.credentials.client(t.issuer);
  if (!client) {
    await deps.credentials.deleteTokens(t.server);
    return undefined;
  }
  const workload = workloadRenewal(t) && deps.workloadToken ? t.workloadTokenFrom : undefined;
  const grant: Record<string, string | undefined> = t.refreshToken
    ? { grant_type: 'refresh_token', refresh_token: t.refreshToken, resource: t.resource }
    : t.grant === 'client_credentials'
      ? { grant_type: 'client_credentials', scope: t.scope, resource: t.resource }
      : workload
        ? { grant_type: OAuthGrant.jwtBearer, assertion: await deps.workloadToken!(workload), scope: t.scope, resource: t.resource }
        : {};
  if (!grant.grant_type) return undefined;
  if ((client.authMethod === 'client_secret_basic' || client.authMethod === 'client_secret_post') && !client.clientSecret) {
    const secret = await deps.clientSecret();
    if (secret) Object.assign(client, { clientSecret: secret });
  }
  try {
    // A DPoP-bound refresh token is presented with a proof of the same key (RFC 9449 §5).
    const dpop = t.dpopKey ? new DpopProver(t.dpopKey, () => deps.clock.now()) : undefined;
    const next = await processTokenResponse(
      await tokenRequest(deps.http, t.tokenEndpoint, grant, client, { signal: deps.signal, issuer: t.issuer, now: deps.clock.now(), dpop }),
      deps.clock.now(),
      !!dpop,
    );
    const record: StoredTokens = {
      ...t,
      ...next,
      // Keep the old refresh token when the server did not rotate it.
      refreshToken: next.refreshToken ?? t.refreshToken,
      scope: next.scope ?? t.scope,
      obtainedAt: deps.clock.now(),
    };
    await deps.credentials.saveTokens(record);
    return record;
  } catch (err) {
    if (workload) throw err;
    if (err instanceof OAuthError && err.error === OAuthErrorCode.invalidGrant) {
      deps.notify?.('The refresh token was refused (invalid_grant); signing in again');
      await deps.credentials.deleteTokens(t.server);
      return undefined;
    }
    if (err instanceof OAuthError && err.error === OAuthErrorCode.invalidClient) {
      deps.notify?.('The authorization server no longer knows this client (invalid_client); registering again');
      if (client.origin === 'dynamic') await deps.credentials.deleteClient(t.issuer);
      await deps.credentials.deleteTokens(t.server);
      return undefined;
    }
    throw err;
  }
}

/** Stored tokens for the server, refreshed when they expire within the margin; undefined when none are usable. */
export async function currentTokens(deps: ProtocolAuthDeps, serverUrl: string): Promise<StoredTokens | undefined> {
  const t = await deps.credentials.tokens(serverKeyOf(serverUrl));
  if (!t) return undefined;
  if (fresh(deps, t)) return t;
  return refreshTokens(deps, t);
}

/** The stored tokens, refreshed if needed, else a new authorization. */
export async function obtainTokens(deps: ProtocolAuthDeps, o: AuthorizeOptions & { challenge?: BearerChallenge }): Promise<StoredTokens> {
  return (await currentTokens(deps, o.serverUrl)) ?? authorize(deps, o);
}

/** A 401 the flow cannot fix. */
export function unauthorizedAgain(serverUrl: string, header: string | undefined): AuthRequiredError {
  const c = parseBearerChallenge(header);
  const why = c?.error ? `, ${c.error}${c.errorDescription ? ': ' + c.errorDescription : ''}` : '';
  return new AuthRequiredError(`${serverUrl} refused the request again after authorization (HTTP 401${why})`, {
    remedy: { kind: 'sign-in', service: 'protocol', serverUrl, again: true },
    service: 'protocol',
  });
}
