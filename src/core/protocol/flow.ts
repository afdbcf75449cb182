/**
 * The authorization flow of the protocol (revision 2025-03-26, plus the later
 * revisions' protected-resource hints): the loops around the grants'
 * request/process pairs (grants/*) — discovery and the plan (flow-plan.ts),
 * the client's identity, one grant, token storage, renewal. Takes callbacks;
 * prints nothing.
 */
import { noLock } from '../credentials/lock.js';
import { AuthRequiredError, LanyardError, OAuthError } from '../errors.js';
import { startLoopbackReceiver } from '../auth/loopback.js';
import { pollForDeviceToken } from '../auth/device-poll.js';
import type { ProtocolRevision } from '../../shared/constants.js';
import { discoverAuthorizationServer, parseBearerChallenge, type AuthServerEndpoints, type BearerChallenge } from './discovery.js';
import { assertRedirectUri, assertSecureEndpoint, authBaseOf, serverKeyOf } from './endpoints.js';
import { codeChallengeS256, generateCodeVerifier, generateState } from './pkce.js';
import { resolveClient, type ClientResolution } from './client-identity.js';
import type { ClientIdentity } from './registration.js';
import type { StoredTokens, WorkloadTokenSource } from './store.js';
import type { ProtocolAuthDeps } from './deps.js';
import { OAuthErrorCode, processTokenResponse, type TokenSet } from './token.js';
import { DpopProver } from './dpop.js';
import type { HttpResponse } from '../http/client.js';
import type { AuthorizeOptions } from './flow-options.js';
import { checkEndpoints, chooseScope, dpopFor, grantOf, metadataRevision, overridden, protectedResource } from './flow-plan.js';
import type { TokenCall } from './grants/call.js';
import { authorizationCodeRequest, authorizationUrl, processAuthorizationResponse } from './grants/authorization-code.js';
import { clientCredentialsRequest } from './grants/client-credentials.js';
import { deviceAuthorizationRequest, deviceTokenRequest, processDeviceAuthorizationResponse } from './grants/device.js';
import { jwtBearerRequest } from './grants/jwt-bearer.js';
import { idJagExchangeRequest, processIdJagExchangeResponse } from './grants/token-exchange.js';
import { renewalGrant, renewalRequest, renewedRecord, workloadRenewal } from './grants/refresh.js';

export type { ProtocolAuthDeps } from './deps.js';
export type { AuthorizeOptions, IdentityProviderOptions } from './flow-options.js';
export { RESERVED_AUTHORIZATION_PARAMS } from './grants/authorization-code.js';
export { renewable } from './grants/refresh.js';

/** Refresh this long before the recorded expiry. */
export const REFRESH_MARGIN_MS = 30_000;

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
      const wanted = o.insteadOf.scope;
      if (t && t.accessToken !== o.insteadOf.accessToken && fresh(deps, t) && (wanted === undefined || coversScope(t.scope, wanted))) return t;
    }
    return authorizeLocked(deps, o, server);
  });
}

/** Whether the space-separated `have` holds every scope of `need`. */
export function coversScope(have: string | undefined, need: string): boolean {
  const held = new Set((have ?? '').split(/\s+/));
  return need.split(/\s+/).every((s) => !s || held.has(s));
}

const fresh = (deps: ProtocolAuthDeps, t: StoredTokens) => t.expiresAt === undefined || t.expiresAt - REFRESH_MARGIN_MS > deps.clock.now();

/** One sign-in under way: what the plan decided and the client the grant uses. */
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

async function authorizeLocked(deps: ProtocolAuthDeps, o: AuthorizeOptions, server: string): Promise<StoredTokens> {
  const prm = await protectedResource(deps.http, o, deps.signal);
  // Without protected resource metadata the server is of revision 2025-03-26.
  const revision: ProtocolRevision = prm ? metadataRevision(o) : '2025-03-26';
  const issuer = prm?.authorizationServers[0] ?? authBaseOf(o.serverUrl);
  deps.notify?.(`Discovering the authorization server at ${issuer}`);
  const endpoints = overridden(await discoverAuthorizationServer(deps.http, issuer, { signal: deps.signal, named: !!prm, revision }), o);
  const grant = grantOf(o);
  checkEndpoints(endpoints, grant);
  const dpop = await dpopFor(o, endpoints, !!(o.challenge?.offersDpop || prm?.acceptsDpop), () => deps.clock.now(), deps.notify, deps.dpopNonces);
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

/** The plain data of a token request of this sign-in. */
const callOf = (ctx: FlowContext, client: ClientIdentity): TokenCall => ({
  tokenEndpoint: ctx.endpoints.tokenEndpoint,
  issuer: ctx.endpoints.issuer,
  client,
  now: ctx.deps.clock.now(),
  signal: ctx.deps.signal,
  dpop: ctx.dpop,
});

const tokensOf = (ctx: FlowContext, res: HttpResponse) => processTokenResponse(res, ctx.deps.clock.now(), !!ctx.dpop);

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
 * The answer is read as sent: a redirect to the callback is looked at, never
 * followed (the loopback page waits for this flow's exchange).
 */
async function preflight(ctx: FlowContext, url: string, redirectUri: string): Promise<void> {
  const how = { okStatus: () => true, oauth: true, retry: false, redirect: 'manual' } as const;
  const res = await ctx.deps.http.request({ url, headers: { accept: 'text/html' }, signal: ctx.deps.signal, ...how });
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
  const [state, verifier] = [generateState(deps.random), generateCodeVerifier(deps.random)];
  // The issuer is checked before the browser is answered: its page must not say "Signed in" to a response refused here.
  const check = (p: URLSearchParams) => void processAuthorizationResponse(p, endpoints);
  deps.requirePerson?.(ctx.o.serverUrl); // before registering: a run no one can finish must not leave a client behind
  const receiver = await startLoopbackReceiver({ state, signal: deps.signal, productName: 'Lanyard', preferredPort: await registeredPort(ctx), check });
  try {
    assertRedirectUri(receiver.redirectUri);
    const client = await identity(ctx, receiver.redirectUri, false);
    const url = authorizationUrl({
      authorizationEndpoint: endpoints.authorizationEndpoint,
      clientId: client.clientId,
      redirectUri: receiver.redirectUri,
      codeChallenge: codeChallengeS256(verifier),
      state,
      scope: ctx.scope,
      resource: ctx.resource,
      extraParams: ctx.o.authorizationParams,
    });
    if (ctx.how === 'stored' && client.origin === 'dynamic' && !deps.credentials.isProven(endpoints.issuer, client.clientId)) {
      await preflight(ctx, url, receiver.redirectUri);
    }
    await deps.presentAuthorizationUrl(url);
    const callback = await receiver
      .wait(deps.loopbackTimeoutMs, (ms, s) => deps.clock.sleep(ms, s))
      .catch((err: unknown) => {
        if (err instanceof OAuthError && err.error === 'access_denied') {
          throw new AuthRequiredError(`authorization was denied${err.errorDescription ? ': ' + err.errorDescription : ''}; nothing was stored`, {
            service: 'protocol',
          });
        }
        throw err;
      });
    // The browser's page waits for the exchange and the save: it says signed in only once the tokens are stored.
    return await callback.finish(async () => {
      const code = processAuthorizationResponse(callback.params, endpoints);
      const grant = { code, redirectUri: receiver.redirectUri, codeVerifier: verifier, resource: ctx.resource };
      return save(ctx, await tokensOf(ctx, await authorizationCodeRequest(deps.http, callOf(ctx, client), grant)), 'authorization_code');
    });
  } finally {
    await receiver.close();
  }
}

async function clientCredentialsGrant(ctx: FlowContext): Promise<StoredTokens> {
  const client = await identity(ctx, undefined, true);
  const res = await clientCredentialsRequest(ctx.deps.http, callOf(ctx, client), { scope: ctx.scope, resource: ctx.resource });
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
  const exchange = await idJagExchangeRequest(deps.http, {
    tokenEndpoint: idp.tokenEndpoint,
    clientId: idp.clientId,
    audience: endpoints.issuer,
    resource: ctx.resource ?? serverKeyOf(ctx.o.serverUrl),
    scope: ctx.scope,
    idToken,
    signal: deps.signal,
  });
  const assertion = await processIdJagExchangeResponse(exchange, idp.tokenEndpoint);
  const res = await jwtBearerRequest(deps.http, callOf(ctx, client), { assertion, scope: ctx.scope });
  return save(ctx, await tokensOf(ctx, res), 'jwt_bearer');
}

/**
 * RFC 8628: a user code to enter at the verification URI on any device, then
 * the token endpoint polled by core/auth's poller (interval, slow_down,
 * expiry, Ctrl-C).
 */
async function deviceGrant(ctx: FlowContext): Promise<StoredTokens> {
  const { deps, endpoints } = ctx;
  if (!deps.presentDeviceCode) throw new LanyardError('validation', 'the device sign-in needs a way to show its code (presentDeviceCode)');
  const client = await identity(ctx, undefined, false);
  const call = { ...callOf(ctx, client), deviceAuthorizationEndpoint: endpoints.deviceAuthorizationEndpoint! };
  const code = await processDeviceAuthorizationResponse(await deviceAuthorizationRequest(deps.http, call, { scope: ctx.scope, resource: ctx.resource }));
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
    poll: async () => tokensOf(ctx, await deviceTokenRequest(deps.http, callOf(ctx, client), { deviceCode: code.deviceCode, resource: ctx.resource })),
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
  const res = await jwtBearerRequest(ctx.deps.http, callOf(ctx, client), { assertion, scope: ctx.scope, resource: ctx.resource });
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
  if (ctx.client) ctx.deps.credentials.markProven(ctx.endpoints.issuer, ctx.client.clientId);
  await ctx.deps.credentials.saveTokens(record);
  return record;
}

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
  const grant = renewalGrant(t, workload ? await deps.workloadToken!(workload) : undefined);
  if (!grant) return undefined;
  if ((client.authMethod === 'client_secret_basic' || client.authMethod === 'client_secret_post') && !client.clientSecret) {
    const secret = await deps.clientSecret();
    if (secret) Object.assign(client, { clientSecret: secret });
  }
  try {
    // A DPoP-bound refresh token is presented with a proof of the same key (RFC 9449 §5).
    const dpop = t.dpopKey ? new DpopProver(t.dpopKey, () => deps.clock.now(), deps.dpopNonces) : undefined;
    const call: TokenCall = { tokenEndpoint: t.tokenEndpoint, issuer: t.issuer, client, now: deps.clock.now(), signal: deps.signal, dpop };
    const next = await processTokenResponse(await renewalRequest(deps.http, call, grant), deps.clock.now(), !!dpop);
    const record = renewedRecord(t, next, deps.clock.now());
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
