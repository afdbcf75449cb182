/**
 * The protocol's authorization server at the emulator origin: RFC 8414
 * metadata, RFC 9728 protected-resource metadata, /authorize (HTML consent,
 * PKCE S256 required), /token (code + PKCE, refresh with rotation and reuse
 * detection, client credentials) and /register (RFC 7591).
 */
import { createPublicKey, timingSafeEqual, verify } from 'node:crypto';
import { JwtBearerAssertionType } from '../../../shared/protocol.js';
import { Protocol } from '../../../shared/constants.js';
import { escapeHtml, type EmuRequest, type EmuResponse, type Router } from '../../router.js';
import {
  CODE_TTL_SEC,
  DEFAULT_SCOPE,
  SCOPES,
  normScope,
  randomToken,
  validScope,
  type EmuClient,
  type PendingAuthorization,
  type ProtocolState,
} from './state.js';
import { THIRD_PARTY_CLIENT, THIRD_PARTY_PREFIX, type ThirdPartyAuthServer } from './third-party.js';
import { clientCredentialsGrant, codeGrant, refreshGrant } from './grants.js';
import { DPOP_ALGS, DpopChecker } from './dpop.js';
import { WORKLOAD_GRANT, WorkloadIssuer } from './workload.js';
import { DEVICE_AUTHORIZATION_PATH, DEVICE_GRANT, deviceCodeGrant, registerDevicePage, startDeviceAuthorization } from './device.js';

export const MCP_PATH = '/mcp';
const TP_CALLBACK = '/oauth/third-party/callback';
const AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'];
/** Signatures of private_key_jwt client assertions: JWS alg → node:crypto digest. */
const ASSERTION_ALGS: Record<string, { hash: string | null }> = { RS256: { hash: 'sha256' }, ES256: { hash: 'sha256' }, EdDSA: { hash: null } };
const GRANTS = ['authorization_code', 'refresh_token', 'client_credentials'];

export function isLoopbackHost(h: string): boolean {
  const host = h.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Redirect URIs must be https, or http on localhost (any port); never a fragment. */
export function redirectUriAllowed(uri: string): boolean {
  let u: URL;
  try {
    u = new URL(uri);
  } catch {
    return false;
  }
  if (u.hash) return false;
  return u.protocol === 'https:' || (u.protocol === 'http:' && isLoopbackHost(u.hostname));
}

/** A registered URI matches exactly; a loopback one matches on any port (RFC 8252 §7.3) unless `exact`. */
export function redirectUriMatches(registered: readonly string[], uri: string, exact = false): boolean {
  if (!redirectUriAllowed(uri)) return false;
  const u = new URL(uri);
  return registered.some((r) => {
    if (r === uri) return true;
    if (exact) return false;
    const ru = new URL(r);
    if (u.protocol !== 'http:' || !isLoopbackHost(ru.hostname)) return false;
    return ru.hostname === u.hostname && ru.pathname === u.pathname && ru.search === u.search;
  });
}

export class ProtocolAuthServer {
  readonly dpop: DpopChecker;
  readonly workload: WorkloadIssuer;

  constructor(
    readonly state: ProtocolState,
    readonly thirdParty: ThirdPartyAuthServer,
    readonly baseUrl: () => string,
  ) {
    this.dpop = new DpopChecker(state);
    this.workload = new WorkloadIssuer(state, baseUrl);
  }

  /** The grants offered: the device and workload grants only with their switches. */
  grants(): string[] {
    const s = this.state.settings;
    return [...GRANTS, ...(s.deviceAuthorization ? [DEVICE_GRANT] : []), ...(s.workloadIdentity ? [WORKLOAD_GRANT] : [])];
  }

  /** DPoP is offered (advertised, and tokens bound when a proof comes with the token request). */
  dpopOffered(): boolean {
    return this.state.settings.dpop || this.state.settings.dpopRequired;
  }

  resourceUrl(): string {
    return this.baseUrl() + MCP_PATH;
  }

  /** Protected resource metadata exists from revision 2025-06-18 on (and can be switched off). */
  servesResourceMetadata(): boolean {
    return this.state.settings.resourceMetadata && this.state.settings.revision !== '2025-03-26';
  }

  metadata(): Record<string, unknown> {
    const issuer = this.baseUrl();
    const ep = this.state.settings.endpointOrigin ?? issuer;
    return {
      issuer,
      authorization_endpoint: ep + Protocol.fallbackAuthorize,
      token_endpoint: ep + Protocol.fallbackToken,
      ...(this.state.settings.registration ? { registration_endpoint: ep + Protocol.fallbackRegister } : {}),
      scopes_supported: [...SCOPES],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: this.grants(),
      ...(this.state.settings.deviceAuthorization ? { device_authorization_endpoint: ep + DEVICE_AUTHORIZATION_PATH } : {}),
      token_endpoint_auth_methods_supported: [...AUTH_METHODS, 'private_key_jwt'],
      token_endpoint_auth_signing_alg_values_supported: Object.keys(ASSERTION_ALGS),
      code_challenge_methods_supported: ['S256'],
      ...(this.dpopOffered() ? { dpop_signing_alg_values_supported: [...DPOP_ALGS] } : {}),
      // Every authorization response carries iss (RFC 9207).
      authorization_response_iss_parameter_supported: true,
      service_documentation: issuer + '/_emulator/info',
    };
  }

  register(router: Router): void {
    router.get(Protocol.metadataPath, (req, res) => {
      const served = this.state.settings.metadata;
      const header =
        req.header(Protocol.versionHeader) !== undefined
          ? Protocol.versionHeader
          : req.header(Protocol.laterVersionHeader) !== undefined
            ? Protocol.laterVersionHeader
            : null;
      this.state.stats.metadataRequests.push({ path: req.path, versionHeader: header ? req.header(header)! : null, header, served });
      if (!served) return res.json(404, { error: 'not_found' });
      res.json(200, this.metadata(), { 'cache-control': 'no-store' });
    });
    const prm = (_req: EmuRequest, res: EmuResponse) => {
      if (!this.servesResourceMetadata()) return res.json(404, { error: 'not_found' });
      res.json(200, {
        resource: this.resourceUrl(),
        authorization_servers: [this.baseUrl()],
        // The minimal set for basic use; tools:call is asked for by step-up (403 insufficient_scope).
        scopes_supported: [DEFAULT_SCOPE],
        bearer_methods_supported: ['header'],
        // RFC 9728 §2: the resource takes DPoP-bound tokens (and requires them).
        ...(this.dpopOffered()
          ? { dpop_signing_alg_values_supported: [...DPOP_ALGS], ...(this.state.settings.dpopRequired ? { dpop_bound_access_tokens_required: true } : {}) }
          : {}),
      });
    };
    router.get(Protocol.resourceMetadataPath + MCP_PATH, prm);
    router.get(Protocol.resourceMetadataPath, prm);
    router.get(Protocol.fallbackAuthorize, (req, res) => this.#authorize(req, res));
    router.post(Protocol.fallbackAuthorize, (req, res) => this.#decision(req, res));
    router.get(TP_CALLBACK, (req, res) => this.#thirdPartyCallback(req, res));
    router.post(Protocol.fallbackToken, (req, res) => this.#token(req, res));
    router.post(Protocol.fallbackRegister, (req, res) => this.#register(req, res));
    router.post(DEVICE_AUTHORIZATION_PATH, (req, res) => this.#deviceAuthorization(req, res));
    registerDevicePage(router, this.state);
  }

  #errorPage(res: EmuResponse, status: number, title: string, text: string): void {
    res.html(
      status,
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1><p id="error">${escapeHtml(text)}</p></body></html>`,
    );
  }

  #redirectError(res: EmuResponse, redirectUri: string, state: string | undefined, error: string, description: string): void {
    res.redirect(302, this.#errorLocation(redirectUri, state, error, description));
  }

  #errorLocation(redirectUri: string, state: string | undefined, error: string, description: string): string {
    const to = new URL(redirectUri);
    to.searchParams.set('error', error);
    to.searchParams.set('error_description', description);
    if (state !== undefined) to.searchParams.set('state', state);
    to.searchParams.set('iss', this.baseUrl());
    return to.toString();
  }

  #authorize(req: EmuRequest, res: EmuResponse): void {
    this.state.stats.authorizeRequests++;
    const q = req.query;
    const client = this.state.clients.get(q.get('client_id') ?? '');
    if (!client) return this.#errorPage(res, 400, 'Unknown client', 'client_id is missing or not registered with this server.');
    const redirectUri = q.get('redirect_uri') ?? '';
    if (!redirectUri || !redirectUriMatches(client.redirect_uris, redirectUri, this.state.settings.redirectMatching === 'exact')) {
      return this.#errorPage(res, 400, 'Invalid redirect URI', 'redirect_uri is missing, not registered for this client, or neither localhost nor HTTPS.');
    }
    const state = q.get('state') ?? undefined;
    const fail = (e: string, d: string) => this.#redirectError(res, redirectUri, state, e, d);
    if (q.get('response_type') !== 'code') return fail('unsupported_response_type', 'only response_type=code is supported');
    if (!client.grant_types.includes('authorization_code')) return fail('unauthorized_client', 'this client may not use the authorization code grant');
    const challenge = q.get('code_challenge') ?? '';
    if (!challenge) return fail('invalid_request', 'PKCE is required: code_challenge missing');
    if (q.get('code_challenge_method') !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256');
    if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) return fail('invalid_request', 'code_challenge is not a S256 challenge');
    const scope = normScope(q.get('scope') ?? undefined) ?? client.scope ?? DEFAULT_SCOPE;
    if (!validScope(scope)) return fail('invalid_scope', `unknown scope; supported: ${SCOPES.join(' ')}`);
    const resource = q.get('resource') ?? undefined;
    if (resource !== undefined && resource !== this.resourceUrl()) return fail('invalid_target', `unknown resource ${resource}`);
    const pending: PendingAuthorization = {
      id: randomToken('req', 16),
      clientId: client.client_id,
      redirectUri,
      state,
      codeChallenge: challenge,
      scope,
      resource,
      expiresAt: this.state.clock.now() + 600_000,
    };
    this.state.pending.set(pending.id, pending);
    res.html(200, consentPage(client, pending), { 'cache-control': 'no-store' });
  }

  async #decision(req: EmuRequest, res: EmuResponse): Promise<void> {
    const f = await req.params_();
    const to = this.answer(f.request_id ?? '', f.decision === 'allow');
    if (to === undefined) return this.#errorPage(res, 400, 'Request expired', 'Start the sign-in again.');
    res.redirect(302, to);
  }

  /**
   * Answers a pending authorization request as the person on the consent page
   * would (the page, or the emulator's console): where the browser goes next
   * (the client's redirect URI with a code or an error; the third party in the
   * delegated flow); undefined when no such request is pending.
   */
  answer(requestId: string, allow: boolean): string | undefined {
    const p = this.state.pending.get(requestId);
    if (!p || p.expiresAt <= this.state.clock.now()) return undefined;
    this.state.pending.delete(p.id);
    if (!allow) return this.#errorLocation(p.redirectUri, p.state, 'access_denied', 'the user denied the request');
    if (this.state.settings.thirdParty) {
      // Delegated flow: the user authorizes at the third party first.
      this.state.pending.set(p.id, { ...p, expiresAt: this.state.clock.now() + 600_000 });
      const to = new URL(this.baseUrl() + THIRD_PARTY_PREFIX + '/authorize');
      to.searchParams.set('response_type', 'code');
      to.searchParams.set('client_id', THIRD_PARTY_CLIENT.id);
      to.searchParams.set('redirect_uri', this.baseUrl() + TP_CALLBACK);
      to.searchParams.set('state', p.id);
      return to.toString();
    }
    return this.#codeLocation(p);
  }

  #thirdPartyCallback(req: EmuRequest, res: EmuResponse): void {
    const p = this.state.pending.get(req.query.get('state') ?? '');
    if (!p) return this.#errorPage(res, 400, 'Unknown session', 'The third-party response does not belong to a sign-in in progress.');
    this.state.pending.delete(p.id);
    if (req.query.get('error')) return this.#redirectError(res, p.redirectUri, p.state, 'access_denied', 'the third-party authorization was denied');
    const r = this.thirdParty.exchange(req.query.get('code') ?? '', this.baseUrl() + TP_CALLBACK, THIRD_PARTY_CLIENT.id, THIRD_PARTY_CLIENT.secret);
    if ('error' in r) return this.#redirectError(res, p.redirectUri, p.state, 'server_error', `third-party token exchange failed: ${r.error}`);
    this.#issueCode(res, { ...p, thirdPartyToken: r.access_token });
  }

  #issueCode(res: EmuResponse, p: PendingAuthorization): void {
    res.redirect(302, this.#codeLocation(p));
  }

  #codeLocation(p: PendingAuthorization): string {
    const code = randomToken('ctxcode');
    this.state.codes.set(code, {
      clientId: p.clientId,
      scope: p.scope,
      resource: p.resource,
      thirdPartyToken: p.thirdPartyToken,
      redirectUri: p.redirectUri,
      codeChallenge: p.codeChallenge,
      expiresAt: this.state.clock.now() + CODE_TTL_SEC * 1000,
      used: false,
      family: randomToken('fam', 12),
    });
    const to = new URL(p.redirectUri);
    to.searchParams.set('code', code);
    if (p.state !== undefined) to.searchParams.set('state', p.state);
    to.searchParams.set('iss', this.baseUrl());
    return to.toString();
  }

  /** A private_key_jwt client assertion (RFC 7523): signed by the client's key, iss = sub = client id, aud the issuer or the token endpoint, not expired. */
  #assertionValid(jwt: string, c: EmuClient): boolean {
    const [h, p, s] = jwt.split('.');
    if (!h || !p || s === undefined) return false;
    try {
      const header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8')) as { alg?: string };
      const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as { iss?: string; sub?: string; aud?: string | string[]; exp?: number };
      const alg = ASSERTION_ALGS[header.alg ?? ''];
      if (!alg) return false;
      const key = createPublicKey(c.public_key!);
      if (!verify(alg.hash, Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'))) return false;
      const issuer = this.baseUrl();
      const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
      if (claims.iss !== c.client_id || claims.sub !== c.client_id) return false;
      if (!audiences.some((a) => a === issuer || a === issuer + Protocol.fallbackToken)) return false;
      return typeof claims.exp === 'number' && claims.exp * 1000 > this.state.clock.now();
    } catch {
      return false;
    }
  }

  /** Client authentication at the token endpoint; undefined after answering 401. */
  #authenticate(req: EmuRequest, res: EmuResponse, f: Record<string, string>): EmuClient | undefined {
    const invalid = (basic: boolean) => {
      res.json(
        401,
        { error: 'invalid_client', error_description: 'client authentication failed' },
        { 'cache-control': 'no-store', ...(basic ? { 'www-authenticate': 'Basic realm="ctx-emulator"' } : {}) },
      );
      return undefined;
    };
    if (f.client_assertion_type !== undefined || f.client_assertion !== undefined) {
      const c = this.state.clients.get(f.client_id ?? '');
      if (f.client_assertion_type !== JwtBearerAssertionType || !c?.public_key || !this.#assertionValid(f.client_assertion ?? '', c)) return invalid(false);
      return c;
    }
    const auth = req.header('authorization') ?? '';
    if (/^basic /i.test(auth)) {
      const raw = Buffer.from(auth.slice(6).trim(), 'base64').toString('utf8');
      const i = raw.indexOf(':');
      if (i < 0) return invalid(true);
      let id: string, secret: string;
      try {
        id = decodeURIComponent(raw.slice(0, i).replace(/\+/g, ' '));
        secret = decodeURIComponent(raw.slice(i + 1).replace(/\+/g, ' '));
      } catch {
        return invalid(true);
      }
      const c = this.state.clients.get(id);
      if (!c?.client_secret || !safeEqual(c.client_secret, secret) || (f.client_id && f.client_id !== id)) return invalid(true);
      return c;
    }
    const c = this.state.clients.get(f.client_id ?? '');
    if (!c) return invalid(false);
    if (c.client_secret) {
      if (!f.client_secret || !safeEqual(c.client_secret, f.client_secret)) return invalid(false);
    } else if (f.client_secret) return invalid(false);
    return c;
  }

  async #token(req: EmuRequest, res: EmuResponse): Promise<void> {
    const ct = (req.header('content-type') ?? '').toLowerCase();
    const f = await req.params_();
    const stats = this.state.stats.tokenRequests;
    stats[f.grant_type ?? '?'] = (stats[f.grant_type ?? '?'] ?? 0) + 1;
    const err = (status: number, error: string, d: string) => res.json(status, { error, error_description: d }, { 'cache-control': 'no-store' });
    if (!ct.includes('application/x-www-form-urlencoded')) return err(400, 'invalid_request', 'the token endpoint takes a form body');
    if (req.query.toString()) return err(400, 'invalid_request', 'parameters must not be sent in the query string');
    const client = this.#authenticate(req, res, f);
    if (!client) return;
    if (!f.grant_type || !this.grants().includes(f.grant_type)) return err(400, 'unsupported_grant_type', `unsupported grant_type ${f.grant_type ?? ''}`);
    if (!client.grant_types.includes(f.grant_type)) return err(400, 'unauthorized_client', `this client may not use ${f.grant_type}`);
    // RFC 9449 §5: the proof is checked before the grant, so a nonce challenge does not spend a code.
    let jkt: string | undefined;
    const proof = req.header('dpop');
    if (this.dpopOffered() && (proof !== undefined || this.state.settings.dpopRequired)) {
      const url = (this.state.settings.endpointOrigin ?? this.baseUrl()) + Protocol.fallbackToken;
      const d = await this.dpop.check('token', proof, { method: 'POST', url, requireNonce: this.state.settings.dpopNonce });
      if ('error' in d) {
        const nonce: Record<string, string> = d.error === 'use_dpop_nonce' ? { 'dpop-nonce': this.dpop.nonces.token } : {};
        return res.json(400, { error: d.error, error_description: d.description }, { 'cache-control': 'no-store', ...nonce });
      }
      jkt = d.jkt;
    }
    const r =
      f.grant_type === 'authorization_code'
        ? codeGrant(this.state, client, f, jkt)
        : f.grant_type === 'refresh_token'
          ? refreshGrant(this.state, this.thirdParty, client, f, jkt)
          : f.grant_type === DEVICE_GRANT
            ? deviceCodeGrant(this.state, client, f, jkt)
            : f.grant_type === WORKLOAD_GRANT
              ? await this.workload.grant(client, f, this.resourceUrl(), jkt)
              : clientCredentialsGrant(this.state, client, f, this.resourceUrl(), jkt);
    if ('error' in r) return err(r.status, r.error, r.description);
    res.json(200, r.tokens, { 'cache-control': 'no-store', pragma: 'no-cache' });
  }

  /** RFC 8628 §3.1–3.2: a device code and a user code for an authenticated client. */
  async #deviceAuthorization(req: EmuRequest, res: EmuResponse): Promise<void> {
    const err = (status: number, error: string, d: string) => res.json(status, { error, error_description: d }, { 'cache-control': 'no-store' });
    if (!this.state.settings.deviceAuthorization) return err(404, 'not_found', 'the device authorization grant is not offered');
    if (!(req.header('content-type') ?? '').toLowerCase().includes('application/x-www-form-urlencoded'))
      return err(400, 'invalid_request', 'the device authorization endpoint takes a form body');
    const f = await req.params_();
    const client = this.#authenticate(req, res, f);
    if (!client) return;
    if (!client.grant_types.includes(DEVICE_GRANT)) return err(400, 'unauthorized_client', 'this client may not use the device authorization grant');
    const scope = normScope(f.scope) ?? client.scope ?? DEFAULT_SCOPE;
    if (!validScope(scope)) return err(400, 'invalid_scope', `unknown scope; supported: ${SCOPES.join(' ')}`);
    if (f.resource !== undefined && f.resource !== this.resourceUrl()) return err(400, 'invalid_target', `unknown resource ${f.resource}`);
    res.json(200, startDeviceAuthorization(this.state, client, scope, f.resource, this.baseUrl()), { 'cache-control': 'no-store' });
  }

  async #register(req: EmuRequest, res: EmuResponse): Promise<void> {
    if (!this.state.settings.registration) return res.json(404, { error: 'not_found', error_description: 'dynamic client registration is not offered' });
    const bad = (error: string, d: string) => res.json(400, { error, error_description: d });
    if (!(req.header('content-type') ?? '').toLowerCase().includes('application/json')) return bad('invalid_client_metadata', 'registration takes a JSON body');
    let m: Record<string, unknown>;
    try {
      m = await req.json<Record<string, unknown>>();
    } catch {
      return bad('invalid_client_metadata', 'body is not JSON');
    }
    if (!m || typeof m !== 'object' || Array.isArray(m)) return bad('invalid_client_metadata', 'body must be a JSON object');
    const method = (m.token_endpoint_auth_method ?? 'client_secret_basic') as string;
    if (!AUTH_METHODS.includes(method)) return bad('invalid_client_metadata', `unsupported token_endpoint_auth_method ${method}`);
    const grants = (m.grant_types ?? ['authorization_code']) as unknown;
    if (!Array.isArray(grants) || !grants.every((g) => typeof g === 'string' && this.grants().includes(g)))
      return bad('invalid_client_metadata', 'unsupported grant_types');
    if (method === 'none' && grants.includes('client_credentials')) return bad('invalid_client_metadata', 'a public client cannot use client_credentials');
    const uris = (m.redirect_uris ?? []) as unknown;
    if (!Array.isArray(uris) || !uris.every((u) => typeof u === 'string')) return bad('invalid_redirect_uri', 'redirect_uris must be an array of strings');
    if (grants.includes('authorization_code') && uris.length === 0)
      return bad('invalid_redirect_uri', 'redirect_uris is required for the authorization code grant');
    const badUri = (uris as string[]).find((u) => !redirectUriAllowed(u));
    if (badUri) return bad('invalid_redirect_uri', `redirect URI ${badUri} is neither localhost nor HTTPS`);
    const scope = normScope(typeof m.scope === 'string' ? m.scope : undefined);
    if (scope && !validScope(scope)) return bad('invalid_client_metadata', 'unknown scope');
    const client: EmuClient = {
      client_id: randomToken('ctxclient', 12),
      ...(method !== 'none' ? { client_secret: randomToken('ctxsecret', 24) } : {}),
      client_name: typeof m.client_name === 'string' ? m.client_name : undefined,
      redirect_uris: uris as string[],
      grant_types: grants as string[],
      token_endpoint_auth_method: method as EmuClient['token_endpoint_auth_method'],
      scope,
      client_id_issued_at: this.state.nowSec(),
      preRegistered: false,
    };
    this.state.clients.set(client.client_id, client);
    this.state.stats.registrations++;
    const { preRegistered: _p, ...wire } = client;
    res.json(
      201,
      { ...wire, response_types: grants.includes('authorization_code') ? ['code'] : [], ...(client.client_secret ? { client_secret_expires_at: 0 } : {}) },
      { 'cache-control': 'no-store' },
    );
  }
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function consentPage(client: EmuClient, p: PendingAuthorization): string {
  const scopes = p.scope
    .split(' ')
    .map((s) => `<li><code>${escapeHtml(s)}</code></li>`)
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorize ${escapeHtml(client.client_name ?? client.client_id)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem}button{font-size:1rem;margin-right:.5rem}</style></head><body>
<h1>Authorize <span id="client">${escapeHtml(client.client_name ?? client.client_id)}</span></h1>
<p>This application wants to use the emulated tools server${p.resource ? ` <code id="resource">${escapeHtml(p.resource)}</code>` : ''} with these scopes:</p><ul id="scopes">${scopes}</ul>
<p>You will be sent back to <code id="redirect">${escapeHtml(p.redirectUri)}</code>.</p>
<form method="post" action="${Protocol.fallbackAuthorize}"><input type="hidden" name="request_id" value="${escapeHtml(p.id)}">
<button type="submit" name="decision" value="allow" id="allow">Allow</button><button type="submit" name="decision" value="deny" id="deny">Deny</button></form>
</body></html>`;
}
