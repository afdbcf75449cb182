/**
 * Discovery: RFC 8414 authorization server metadata (with the protocol's
 * version header), the OpenID configuration alternative, the fallback
 * endpoints, the `WWW-Authenticate` challenge and RFC 9728 protected-resource
 * metadata. Request/process pairs; the flow decides the order.
 */
import type { HttpClient, HttpResponse } from '../http/client.js';
import { LanyardError } from '../errors.js';
import { Protocol } from '../../shared/constants.js';
import type { AuthorizationServerMetadataWire, ProtectedResourceMetadataWire } from '../../shared/protocol.js';

export interface AuthServerEndpoints {
  readonly issuer: string;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly registrationEndpoint?: string;
  readonly codeChallengeMethods?: readonly string[];
  readonly grantTypes?: readonly string[];
  readonly tokenAuthMethods?: readonly string[];
  readonly scopes?: readonly string[];
  /** Where the endpoints came from. */
  readonly source: 'oauth-authorization-server' | 'openid-configuration' | 'fallback';
}

export interface ProtectedResource {
  readonly resource: string;
  readonly authorizationServers: readonly string[];
  readonly scopes?: readonly string[];
}

export interface BearerChallenge {
  readonly error?: string;
  readonly errorDescription?: string;
  readonly scope?: string;
  readonly resourceMetadata?: string;
}

/** Well-known URL of an issuer (RFC 8414 §3.1: the suffix goes between host and path). */
export function wellKnownUrl(issuer: string, suffix: 'oauth-authorization-server' | 'openid-configuration' | 'oauth-protected-resource'): string {
  const u = new URL(issuer);
  const path = u.pathname.replace(/\/+$/, '');
  if (suffix === 'openid-configuration') return `${u.origin}${path}/.well-known/openid-configuration`;
  const base = suffix === 'oauth-authorization-server' ? Protocol.metadataPath : Protocol.resourceMetadataPath;
  return `${u.origin}${base}${path}`;
}

export function metadataRequest(http: HttpClient, url: string, signal?: AbortSignal): Promise<HttpResponse> {
  return http.request({
    url,
    headers: { [Protocol.versionHeader]: Protocol.revision, accept: 'application/json' },
    signal,
    okStatus: () => true,
    oauth: true,
  });
}

/** undefined on 404 (no document); other non-2xx statuses are errors naming the status. */
export async function processMetadataResponse(
  res: HttpResponse,
  expectedIssuer: string,
  source: AuthServerEndpoints['source'],
): Promise<AuthServerEndpoints | undefined> {
  if (res.status === 404) {
    await res.dump();
    return undefined;
  }
  if (res.status < 200 || res.status > 299) {
    await res.dump();
    throw new LanyardError('discovery_failed', `authorization server metadata discovery failed: GET ${res.url} returned HTTP ${res.status}`);
  }
  const m = await readJsonObject<AuthorizationServerMetadataWire>(res, 'authorization server metadata');
  if (typeof m.authorization_endpoint !== 'string' || typeof m.token_endpoint !== 'string') {
    throw new LanyardError('discovery_failed', `authorization server metadata at ${res.url} lacks authorization_endpoint or token_endpoint`);
  }
  const issuer = typeof m.issuer === 'string' ? m.issuer : expectedIssuer;
  if (new URL(issuer).origin !== new URL(expectedIssuer).origin) {
    throw new LanyardError('discovery_failed', `authorization server metadata names issuer ${issuer}, expected ${expectedIssuer}`);
  }
  return {
    issuer,
    authorizationEndpoint: m.authorization_endpoint,
    tokenEndpoint: m.token_endpoint,
    registrationEndpoint: typeof m.registration_endpoint === 'string' ? m.registration_endpoint : undefined,
    codeChallengeMethods: strings(m.code_challenge_methods_supported),
    grantTypes: strings(m.grant_types_supported),
    tokenAuthMethods: strings(m.token_endpoint_auth_methods_supported),
    scopes: strings(m.scopes_supported),
    source,
  };
}

/** The fallback endpoints of a server without a metadata document. */
export function fallbackEndpoints(authBase: string): AuthServerEndpoints {
  return {
    issuer: authBase,
    authorizationEndpoint: authBase + Protocol.fallbackAuthorize,
    tokenEndpoint: authBase + Protocol.fallbackToken,
    registrationEndpoint: authBase + Protocol.fallbackRegister,
    source: 'fallback',
  };
}

/**
 * RFC 8414 first; on 404 the fallback endpoints. With `openid` (an issuer
 * named by protected-resource metadata, as later revisions do) the OpenID
 * configuration is tried between the two, for servers that publish only that.
 */
export async function discoverAuthorizationServer(
  http: HttpClient,
  issuer: string,
  o: { signal?: AbortSignal; openid?: boolean } = {},
): Promise<AuthServerEndpoints> {
  const oauth = await processMetadataResponse(
    await metadataRequest(http, wellKnownUrl(issuer, 'oauth-authorization-server'), o.signal),
    issuer,
    'oauth-authorization-server',
  );
  if (oauth) return oauth;
  if (o.openid) {
    const oidc = await processMetadataResponse(
      await metadataRequest(http, wellKnownUrl(issuer, 'openid-configuration'), o.signal),
      issuer,
      'openid-configuration',
    );
    if (oidc) return oidc;
  }
  return fallbackEndpoints(new URL(issuer).origin);
}

/** Parses the Bearer challenge of a `WWW-Authenticate` header (auth-params, quoted or token values). */
export function parseBearerChallenge(header: string | undefined): BearerChallenge | undefined {
  if (!header) return undefined;
  const m = /(?:^|,\s*)Bearer(?:\s+|$)(.*)$/i.exec(header);
  if (!m) return undefined;
  const params: Record<string, string> = {};
  const re = /([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]+))\s*,?\s*/gy;
  const rest = m[1] ?? '';
  let pm: RegExpExecArray | null;
  while ((pm = re.exec(rest))) {
    const key = pm[1]!.toLowerCase();
    if (!(key in params)) params[key] = pm[2] !== undefined ? pm[2].replace(/\\(.)/g, '$1') : pm[3]!;
  }
  return { error: params.error, errorDescription: params.error_description, scope: params.scope, resourceMetadata: params.resource_metadata };
}

export function protectedResourceRequest(http: HttpClient, url: string, signal?: AbortSignal): Promise<HttpResponse> {
  return http.request({ url, headers: { [Protocol.versionHeader]: Protocol.revision }, signal, okStatus: () => true, oauth: true });
}

/** undefined when the server has no such document (any non-2xx). */
export async function processProtectedResourceResponse(res: HttpResponse, serverUrl: string): Promise<ProtectedResource | undefined> {
  if (res.status < 200 || res.status > 299) {
    await res.dump();
    return undefined;
  }
  const m = await readJsonObject<ProtectedResourceMetadataWire>(res, 'protected resource metadata');
  const servers = strings(m.authorization_servers) ?? [];
  if (typeof m.resource !== 'string' || !servers.length) {
    throw new LanyardError('discovery_failed', `protected resource metadata at ${res.url} lacks resource or authorization_servers`);
  }
  // RFC 9728 §3.3: the resource must be the server the metadata was fetched for.
  const want = new URL(serverUrl);
  const got = new URL(m.resource);
  if (got.origin !== want.origin || !want.pathname.startsWith(got.pathname.replace(/\/+$/, ''))) {
    throw new LanyardError('discovery_failed', `protected resource metadata names resource ${m.resource}, which is not ${serverUrl}`);
  }
  return { resource: m.resource, authorizationServers: servers, scopes: strings(m.scopes_supported) };
}

async function readJsonObject<T>(res: HttpResponse, what: string): Promise<T> {
  let v: unknown;
  try {
    v = await res.json();
  } catch {
    throw new LanyardError('discovery_failed', `${what} at ${res.url} is not JSON`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new LanyardError('discovery_failed', `${what} at ${res.url} is not a JSON object`);
  return v as T;
}

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined;
}
