/**
 * The authorization flow of the protocol (revision 2025-03-26, plus the later
 * revisions' protected-resource hints): discovery, client identity, the
 * authorization code grant with PKCE on a loopback redirect or the client
 * credentials grant, token storage, refresh. Takes callbacks; prints nothing.
 */
import type { Clock, RandomBytes } from '../deps.js';
import type { HttpClient } from '../http/client.js';
import { AuthRequiredError, LanyardError, OAuthError } from '../errors.js';
import { startLoopbackReceiver } from '../auth/loopback.js';
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
import type { ProtocolCredentials, StoredTokens } from './store.js';
import { OAuthErrorCode, processTokenResponse, tokenRequest, type TokenSet } from './token.js';

export interface ProtocolAuthDeps {
  readonly http: HttpClient;
  readonly credentials: ProtocolCredentials;
  readonly clock: Clock;
  readonly signal?: AbortSignal;
  readonly random?: RandomBytes;
  /** Shows the authorization URL to the user (the CLI prints it and opens a browser). */
  presentAuthorizationUrl(url: string): Promise<void>;
  /** The client secret of a confidential client (environment or stdin), read lazily. */
  clientSecret(): Promise<string | undefined>;
  /** How long to wait for the browser to come back. */
  readonly loopbackTimeoutMs: number;
  /** Progress notes for stderr. */
  notify?(line: string): void;
}

export interface AuthorizeOptions {
  readonly serverUrl: string;
  /** Space-separated scopes to request. */
  readonly scopes?: string;
  readonly clientId?: string;
  readonly clientCredentials?: boolean;
  /** The Bearer challenge of the 401/403 that started the flow. */
  readonly challenge?: BearerChallenge;
}

/** Refresh this long before the recorded expiry. */
export const REFRESH_MARGIN_MS = 30_000;

/** Runs the whole flow and stores the tokens. */
export async function authorize(deps: ProtocolAuthDeps, o: AuthorizeOptions): Promise<StoredTokens> {
  const server = serverKeyOf(o.serverUrl);
  const prm = await protectedResource(deps, o);
  const issuer = prm?.authorizationServers[0] ?? authBaseOf(o.serverUrl);
  deps.notify?.(`Discovering the authorization server at ${issuer}`);
  const endpoints = await discoverAuthorizationServer(deps.http, issuer, { signal: deps.signal, openid: !!prm });
  checkEndpoints(endpoints, !!o.clientCredentials);
  const scope = o.scopes?.trim() || o.challenge?.scope || undefined;
  const ctx: FlowContext = { deps, o, server, endpoints, resource: prm?.resource, scope };
  for (let attempt = 0; ; attempt++) {
    try {
      return o.clientCredentials ? await clientCredentialsGrant(ctx) : await codeGrant(ctx);
    } catch (err) {
      // A registration the server no longer knows: drop it, register again (once).
      if (attempt === 0 && err instanceof OAuthError && err.error === OAuthErrorCode.invalidClient && ctx.client?.origin === 'dynamic') {
        deps.notify?.('The authorization server no longer knows this client; registering again');
        await deps.credentials.deleteClient(endpoints.issuer);
        continue;
      }
      // A given client id/secret the server refuses: do not keep it.
      if (err instanceof OAuthError && err.error === OAuthErrorCode.invalidClient && ctx.client?.origin === 'provided') {
        await deps.credentials.deleteClient(endpoints.issuer);
      }
      throw err;
    }
  }
}

interface FlowContext {
  deps: ProtocolAuthDeps;
  o: AuthorizeOptions;
  server: string;
  endpoints: AuthServerEndpoints;
  resource?: string;
  scope?: string;
  client?: ClientIdentity;
}

/**
 * RFC 9728 metadata: at the URL the 401 named, else at the server's
 * well-known location (later revisions; also `auth login`, which has no 401);
 * a server without one (any non-2xx) is a 2025-03-26 server and gets none.
 */
async function protectedResource(deps: ProtocolAuthDeps, o: AuthorizeOptions): Promise<ProtectedResource | undefined> {
  const hinted = o.challenge?.resourceMetadata;
  const u = new URL(hinted ?? wellKnownUrl(serverKeyOf(o.serverUrl), 'oauth-protected-resource'), o.serverUrl);
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return undefined;
  return processProtectedResourceResponse(await protectedResourceRequest(deps.http, u.toString(), deps.signal), o.serverUrl);
}

function checkEndpoints(e: AuthServerEndpoints, clientCredentials: boolean): void {
  if (!clientCredentials) assertSecureEndpoint(e.authorizationEndpoint, 'authorization');
  assertSecureEndpoint(e.tokenEndpoint, 'token');
  if (e.registrationEndpoint) assertSecureEndpoint(e.registrationEndpoint, 'registration');
  if (!clientCredentials && e.codeChallengeMethods && !e.codeChallengeMethods.includes('S256')) {
    throw new LanyardError('pkce_unsupported', `the authorization server ${e.issuer} does not support PKCE with S256; refusing to sign in without it`);
  }
}

async function identity(ctx: FlowContext, redirectUri: string | undefined): Promise<ClientResolution> {
  const r = await resolveClient(ctx.deps, ctx.endpoints, {
    clientId: ctx.o.clientId,
    clientCredentials: !!ctx.o.clientCredentials,
    redirectUri,
    scope: ctx.scope,
  });
  ctx.client = r.client;
  return r;
}

async function codeGrant(ctx: FlowContext): Promise<StoredTokens> {
  const { deps, endpoints } = ctx;
  const state = generateState(deps.random);
  const verifier = generateCodeVerifier(deps.random);
  const receiver = await startLoopbackReceiver({ state, signal: deps.signal, productName: 'Lanyard' });
  try {
    assertRedirectUri(receiver.redirectUri);
    const { client } = await identity(ctx, receiver.redirectUri);
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
    await deps.presentAuthorizationUrl(url.toString());
    const params = await receiver
      .wait(deps.loopbackTimeoutMs, (ms, s) => deps.clock.sleep(ms, s))
      .catch((err: unknown) => {
        if (err instanceof OAuthError && err.error === 'access_denied') {
          throw new AuthRequiredError(`authorization was denied${err.errorDescription ? ': ' + err.errorDescription : ''}; nothing was stored`);
        }
        throw err;
      });
    const iss = params.get('iss');
    if (iss !== null && iss !== endpoints.issuer) {
      throw new LanyardError('issuer_mismatch', `the authorization response came from issuer ${iss}, expected ${endpoints.issuer}; nothing was stored`);
    }
    const code = params.get('code');
    if (!code) throw new LanyardError('oauth_error', 'the authorization response carries no code');
    const res = await tokenRequest(
      deps.http,
      endpoints.tokenEndpoint,
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: receiver.redirectUri,
        code_verifier: verifier,
        resource: ctx.resource,
      },
      client,
      deps.signal,
    );
    return save(ctx, await processTokenResponse(res, deps.clock.now()), 'authorization_code');
  } finally {
    await receiver.close();
  }
}

async function clientCredentialsGrant(ctx: FlowContext): Promise<StoredTokens> {
  const { deps, endpoints } = ctx;
  const { client } = await identity(ctx, undefined);
  const res = await tokenRequest(
    deps.http,
    endpoints.tokenEndpoint,
    {
      grant_type: 'client_credentials',
      scope: ctx.scope,
      resource: ctx.resource,
    },
    client,
    deps.signal,
  );
  return save(ctx, await processTokenResponse(res, deps.clock.now()), 'client_credentials');
}

async function save(ctx: FlowContext, t: TokenSet, grant: StoredTokens['grant']): Promise<StoredTokens> {
  const record: StoredTokens = {
    ...t,
    scope: t.scope ?? ctx.scope,
    server: ctx.server,
    issuer: ctx.endpoints.issuer,
    tokenEndpoint: ctx.endpoints.tokenEndpoint,
    resource: ctx.resource,
    grant,
    obtainedAt: ctx.deps.clock.now(),
  };
  if (ctx.client?.origin === 'provided') await ctx.deps.credentials.saveClient(ctx.endpoints.issuer, ctx.client);
  await ctx.deps.credentials.saveTokens(record);
  return record;
}

/**
 * Exchanges the refresh token (or repeats the client-credentials grant).
 * undefined when the grant is gone (`invalid_grant`: tokens cleared) or the
 * client is unknown (`invalid_client`: registration dropped) — the caller
 * authorizes again.
 */
export async function refreshTokens(deps: ProtocolAuthDeps, t: StoredTokens): Promise<StoredTokens | undefined> {
  const client = await deps.credentials.client(t.issuer);
  if (!client) {
    await deps.credentials.deleteTokens(t.server);
    return undefined;
  }
  const grant: Record<string, string | undefined> = t.refreshToken
    ? { grant_type: 'refresh_token', refresh_token: t.refreshToken, resource: t.resource }
    : t.grant === 'client_credentials'
      ? { grant_type: 'client_credentials', scope: t.scope, resource: t.resource }
      : {};
  if (!grant.grant_type) return undefined;
  if (client.authMethod !== 'none' && !client.clientSecret) {
    const secret = await deps.clientSecret();
    if (secret) Object.assign(client, { clientSecret: secret });
  }
  try {
    const next = await processTokenResponse(await tokenRequest(deps.http, t.tokenEndpoint, grant, client, deps.signal), deps.clock.now());
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
  if (t.expiresAt === undefined || t.expiresAt - REFRESH_MARGIN_MS > deps.clock.now()) return t;
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
    hint: `run \`lanyard auth login --server ${serverUrl}\` to sign in again`,
  });
}
