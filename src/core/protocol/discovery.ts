/**
 * Discovery: RFC 8414 authorization server metadata (with the protocol's
 * version header), the OpenID configuration alternative, the fallback
 * endpoints, the `WWW-Authenticate` challenge and RFC 9728 protected-resource
 * metadata. Request/process pairs; the flow decides the order.
 */
import type { HttpClient, HttpResponse } from '../http/client.js';
import { LanyardError } from '../errors.js';
import { Protocol, protocolVersionHeader, type ProtocolRevision } from '../../shared/constants.js';
import type { AuthorizationServerMetadataWire, ProtectedResourceMetadataWire } from '../../shared/protocol.js';
import { checkWire } from '../wire/check.js';
import { AuthorizationServerMetadataSchema, ProtectedResourceMetadataSchema } from '../wire/schemas.js';

export interface AuthServerEndpoints {
  readonly issuer: string;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  readonly registrationEndpoint?: string;
  /** RFC 8628: where a device authorization request goes. */
  readonly deviceAuthorizationEndpoint?: string;
  readonly codeChallengeMethods?: readonly string[];
  readonly grantTypes?: readonly string[];
  readonly tokenAuthMethods?: readonly string[];
  readonly signingAlgs?: readonly string[];
  readonly scopes?: readonly string[];
  /** The server accepts an HTTPS URL naming a client ID metadata document as client_id. */
  readonly clientIdMetadataDocuments?: boolean;
  /** RFC 9449: the JWS algorithms the server accepts in DPoP proofs (it issues DPoP-bound tokens). */
  readonly dpopAlgs?: readonly string[];
  /** RFC 9207: the server puts `iss` in every authorization response. */
  readonly issParameter?: boolean;
  /** Where the endpoints came from. */
  readonly source: 'oauth-authorization-server' | 'openid-configuration' | 'fallback';
  /** The document's URL (absent for the fallback endpoints). */
  readonly url?: string;
}

export interface ProtectedResource {
  readonly resource: string;
  readonly authorizationServers: readonly string[];
  readonly scopes?: readonly string[];
  readonly url: string;
  /** RFC 9728 §2: the resource takes DPoP-bound tokens (dpop_signing_alg_values_supported) or requires them (dpop_bound_access_tokens_required). */
  readonly acceptsDpop?: boolean;
}

export interface BearerChallenge {
  readonly error?: string;
  readonly errorDescription?: string;
  readonly scope?: string;
  readonly resourceMetadata?: string;
  /** The header offers the DPoP scheme (RFC 9449 §7.1): the resource server takes DPoP-bound tokens. */
  readonly offersDpop?: boolean;
}

type WellKnown = 'oauth-authorization-server' | 'openid-configuration' | 'oauth-protected-resource';

/** A well-known URL with the suffix inserted between host and path (RFC 8414 §3.1, RFC 9728 §3.1). */
export function wellKnownUrl(base: string, suffix: WellKnown): string {
  const u = new URL(base);
  const path = u.pathname.replace(/\/+$/, '');
  return `${u.origin}/.well-known/${suffix}${path}`;
}

/** OpenID Connect Discovery's form: the suffix appended to the issuer's path. */
export function appendedWellKnownUrl(base: string, suffix: WellKnown): string {
  const u = new URL(base);
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}/.well-known/${suffix}`;
}

/**
 * The metadata URLs of an issuer in the later revisions' order: with a path,
 * RFC 8414 path-inserted, OpenID path-inserted, OpenID appended; without one,
 * RFC 8414 then OpenID.
 */
export function authorizationServerMetadataUrls(issuer: string): Array<{ url: string; source: AuthServerEndpoints['source'] }> {
  const hasPath = new URL(issuer).pathname.replace(/\/+$/, '') !== '';
  const urls: Array<{ url: string; source: AuthServerEndpoints['source'] }> = [
    { url: wellKnownUrl(issuer, 'oauth-authorization-server'), source: 'oauth-authorization-server' },
    { url: wellKnownUrl(issuer, 'openid-configuration'), source: 'openid-configuration' },
  ];
  if (hasPath) urls.push({ url: appendedWellKnownUrl(issuer, 'openid-configuration'), source: 'openid-configuration' });
  return urls;
}

/** The metadata request with the version header of the revision in use. */
export function metadataRequest(http: HttpClient, url: string, revision: ProtocolRevision, signal?: AbortSignal): Promise<HttpResponse> {
  return http.request({
    url,
    headers: { [protocolVersionHeader(revision)]: revision, accept: 'application/json' },
    signal,
    okStatus: () => true,
    oauth: true,
  });
}

/**
 * undefined on 404 (no document); other non-2xx statuses and malformed
 * documents are errors naming the URL and the field. `exactIssuer`: the
 * issuer must be identical to the one the URL was built from (RFC 8414
 * §3.3); otherwise (2025-03-26, which knows only the server's origin) it must
 * be at that origin.
 */
export async function processMetadataResponse(
  res: HttpResponse,
  expectedIssuer: string,
  source: AuthServerEndpoints['source'],
  exactIssuer = true,
): Promise<AuthServerEndpoints | undefined> {
  if (res.status === 404 || res.status === 410) {
    await res.dump();
    return undefined;
  }
  if (res.status < 200 || res.status > 299) {
    await res.dump();
    throw new LanyardError('discovery_failed', `authorization server metadata discovery failed: GET ${res.url} returned HTTP ${res.status}`);
  }
  const m = await readJsonObject<AuthorizationServerMetadataWire & Record<string, unknown>>(res, 'authorization server metadata');
  const bad = (field: string, why: string) => new LanyardError('discovery_failed', `authorization server metadata at ${res.url}: ${field} ${why}`);
  for (const f of ['authorization_endpoint', 'token_endpoint'] as const) {
    if (typeof m[f] !== 'string' || !isHttpUrl(m[f])) throw bad(f, m[f] === undefined ? 'is missing' : 'is not an http(s) URL');
  }
  for (const f of ['registration_endpoint', 'device_authorization_endpoint'] as const) {
    if (m[f] !== undefined && (typeof m[f] !== 'string' || !isHttpUrl(m[f]))) throw bad(f, 'is not an http(s) URL');
  }
  for (const f of ['code_challenge_methods_supported', 'grant_types_supported', 'token_endpoint_auth_methods_supported', 'scopes_supported'] as const) {
    if (m[f] !== undefined && !isStringArray(m[f])) throw bad(f, 'is not an array of strings');
  }
  if (typeof m.issuer !== 'string' && (exactIssuer || m.issuer !== undefined)) throw bad('issuer', m.issuer === undefined ? 'is missing' : 'is not a string');
  const issuer = typeof m.issuer === 'string' ? m.issuer : expectedIssuer;
  const sameIssuer = exactIssuer ? issuer === expectedIssuer : isHttpUrl(issuer) && new URL(issuer).origin === new URL(expectedIssuer).origin;
  if (!sameIssuer) throw bad('issuer', `is ${JSON.stringify(issuer)}, expected ${expectedIssuer}`);
  // The rest of the document against its wire type (the fields above have their own messages).
  checkWire('protocol', `the authorization server metadata at ${res.url}`, AuthorizationServerMetadataSchema, m);
  return {
    issuer,
    authorizationEndpoint: m.authorization_endpoint as string,
    tokenEndpoint: m.token_endpoint as string,
    registrationEndpoint: m.registration_endpoint,
    deviceAuthorizationEndpoint: m.device_authorization_endpoint,
    codeChallengeMethods: m.code_challenge_methods_supported,
    grantTypes: m.grant_types_supported,
    tokenAuthMethods: m.token_endpoint_auth_methods_supported,
    signingAlgs: strings(m.token_endpoint_auth_signing_alg_values_supported),
    scopes: m.scopes_supported,
    clientIdMetadataDocuments: m.client_id_metadata_document_supported === true,
    issParameter: m.authorization_response_iss_parameter_supported === true,
    dpopAlgs: strings(m.dpop_signing_alg_values_supported),
    source,
    url: res.url,
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
 * Authorization server metadata. `named`: the issuer comes from protected
 * resource metadata (2025-06-18 and later): the metadata URLs are tried in
 * that revisions' order and one must answer. Otherwise (2025-03-26): RFC 8414
 * at the server's origin, and on 404 the fallback endpoints.
 */
export async function discoverAuthorizationServer(
  http: HttpClient,
  issuer: string,
  o: { signal?: AbortSignal; named: boolean; revision: ProtocolRevision },
): Promise<AuthServerEndpoints> {
  if (!o.named) {
    const url = wellKnownUrl(new URL(issuer).origin, 'oauth-authorization-server');
    const found = await processMetadataResponse(await metadataRequest(http, url, o.revision, o.signal), issuer, 'oauth-authorization-server', false);
    return found ?? fallbackEndpoints(new URL(issuer).origin);
  }
  const tried: string[] = [];
  for (const { url, source } of authorizationServerMetadataUrls(issuer)) {
    tried.push(url);
    const found = await processMetadataResponse(await metadataRequest(http, url, o.revision, o.signal), issuer, source);
    if (found) return found;
  }
  throw new LanyardError('discovery_failed', `the authorization server ${issuer} publishes no metadata (tried ${tried.join(', ')})`);
}

/** Parses the Bearer (or RFC 9449 DPoP) challenge of a `WWW-Authenticate` header (auth-params, quoted or token values). */
export function parseBearerChallenge(header: string | undefined): BearerChallenge | undefined {
  if (!header) return undefined;
  const m = /(?:^|,\s*)(?:Bearer|DPoP)(?:\s+|$)(.*)$/i.exec(header);
  if (!m) return undefined;
  const params: Record<string, string> = {};
  const re = /([A-Za-z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]+))\s*,?\s*/gy;
  const rest = m[1] ?? '';
  let pm: RegExpExecArray | null;
  while ((pm = re.exec(rest))) {
    const key = pm[1]!.toLowerCase();
    if (!(key in params)) params[key] = pm[2] !== undefined ? pm[2].replace(/\\(.)/g, '$1') : pm[3]!;
  }
  return {
    error: params.error,
    errorDescription: params.error_description,
    scope: params.scope,
    resourceMetadata: params.resource_metadata,
    ...(/(?:^|,\s*)DPoP(?=\s|,|$)/i.test(header) ? { offersDpop: true } : {}),
  };
}

export function protectedResourceRequest(http: HttpClient, url: string, revision: ProtocolRevision, signal?: AbortSignal): Promise<HttpResponse> {
  return http.request({ url, headers: { [protocolVersionHeader(revision)]: revision, accept: 'application/json' }, signal, okStatus: () => true, oauth: true });
}

/** undefined when the server has no such document (any non-2xx); a malformed one is an error naming the URL and field. */
export async function processProtectedResourceResponse(res: HttpResponse, serverUrl: string): Promise<ProtectedResource | undefined> {
  if (res.status < 200 || res.status > 299) {
    await res.dump();
    return undefined;
  }
  const m = await readJsonObject<ProtectedResourceMetadataWire & Record<string, unknown>>(res, 'protected resource metadata');
  const bad = (field: string, why: string) => new LanyardError('discovery_failed', `protected resource metadata at ${res.url}: ${field} ${why}`);
  if (typeof m.resource !== 'string' || !isHttpUrl(m.resource)) throw bad('resource', m.resource === undefined ? 'is missing' : 'is not an http(s) URL');
  if (!isStringArray(m.authorization_servers) || !m.authorization_servers.length || !m.authorization_servers.every(isHttpUrl)) {
    throw bad('authorization_servers', m.authorization_servers === undefined ? 'is missing' : 'is not a non-empty array of http(s) URLs');
  }
  if (m.scopes_supported !== undefined && !isStringArray(m.scopes_supported)) throw bad('scopes_supported', 'is not an array of strings');
  checkWire('protocol', `the protected resource metadata at ${res.url}`, ProtectedResourceMetadataSchema, m);
  // RFC 9728 §3.3: the resource must be the server the metadata was fetched for.
  const want = new URL(serverUrl);
  const got = new URL(m.resource);
  if (got.origin !== want.origin || !want.pathname.startsWith(got.pathname.replace(/\/+$/, ''))) {
    throw bad('resource', `is ${m.resource}, which is not ${serverUrl}; refusing to authorize for another resource`);
  }
  const acceptsDpop =
    m.dpop_bound_access_tokens_required === true || (Array.isArray(m.dpop_signing_alg_values_supported) && m.dpop_signing_alg_values_supported.length > 0);
  return {
    resource: m.resource,
    authorizationServers: m.authorization_servers,
    scopes: m.scopes_supported,
    url: res.url,
    ...(acceptsDpop ? { acceptsDpop } : {}),
  };
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

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

function isHttpUrl(v: unknown): v is string {
  if (typeof v !== 'string') return false;
  try {
    const u = new URL(v);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}
