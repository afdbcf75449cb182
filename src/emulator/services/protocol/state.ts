/**
 * State of the emulated protocol server and its authorization server: clients,
 * pending authorizations, codes, access and refresh tokens (rotation families),
 * sessions and switches. All time from the emulator clock.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { EmulatorClock } from '../../clock.js';

export interface EmuClient {
  client_id: string;
  client_secret?: string;
  client_name?: string;
  redirect_uris: string[];
  grant_types: string[];
  token_endpoint_auth_method: 'none' | 'client_secret_post' | 'client_secret_basic' | 'private_key_jwt';
  scope?: string;
  /** SPKI PEM of a private_key_jwt client's public key. */
  public_key?: string;
  client_id_issued_at: number;
  preRegistered: boolean;
}

export interface EmuGrant {
  clientId: string;
  scope: string;
  resource?: string;
  /** Third-party token this grant is bound to (delegated flow). */
  thirdPartyToken?: string;
  /** RFC 9449: the thumbprint of the DPoP key the tokens are bound to (cnf.jkt). */
  jkt?: string;
}

export interface PendingAuthorization extends EmuGrant {
  id: string;
  redirectUri: string;
  state?: string;
  codeChallenge: string;
  expiresAt: number;
}

export interface EmuCode extends EmuGrant {
  redirectUri: string;
  codeChallenge: string;
  expiresAt: number;
  used: boolean;
  family: string;
}

/** RFC 8628: a device authorization in progress. */
export interface EmuDeviceGrant extends EmuGrant {
  deviceCode: string;
  userCode: string;
  expiresAt: number;
  /** Seconds between polls (raised by each slow_down). */
  intervalSec: number;
  lastPollAt?: number;
  status: 'pending' | 'approved' | 'denied' | 'used';
  family: string;
}

export interface EmuAccessToken extends EmuGrant {
  expiresAt: number;
  family: string;
  revoked: boolean;
}

export interface EmuRefreshToken extends EmuGrant {
  expiresAt: number;
  family: string;
  used: boolean;
  revoked: boolean;
}

/** The protocol revisions the emulated server can speak (one at a time, chosen through the admin API). */
export type EmuRevision = '2025-03-26' | '2025-06-18' | '2025-11-25' | '2026-07-28';
export const EMU_REVISIONS: readonly EmuRevision[] = ['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];

export interface ProtocolSettings {
  /**
   * The revision the server speaks: 2025-03-26 (the spec: no protected
   * resource metadata, CTX-Protocol-Version), 2025-06-18 (protected resource
   * metadata, MCP-Protocol-Version required after initialize), 2025-11-25
   * (also the scope in the 401 challenge), 2026-07-28 (stateless: no
   * initialize and no session, `_meta` and the SEP-2243 headers on every
   * request, multi round-trip requests; stateless.ts).
   */
  revision: EmuRevision;
  /** Redirect URIs: loopback ones match on any port (RFC 8252 §7.3), or everything exactly. */
  redirectMatching: 'loopback-any-port' | 'exact';
  /** The next request of a session gets 404 (the server lost it), once. */
  loseNextSession: boolean;
  /** Serve the RFC 8414 document (off: clients use the fallback endpoints). */
  metadata: boolean;
  /** Offer dynamic client registration. */
  registration: boolean;
  /** Serve RFC 9728 protected-resource metadata and name it in WWW-Authenticate. */
  resourceMetadata: boolean;
  /** The optional third-party delegated flow. */
  thirdParty: boolean;
  accessTokenTtlSec: number;
  refreshTokenTtlSec: number;
  thirdPartyTokenTtlSec: number;
  /** Answer protocol requests as event streams. */
  sse: boolean;
  /** Advertise the endpoints at this origin in the metadata (tests of the HTTPS rule). */
  endpointOrigin?: string;
  /** Refuse every token with 401 (tests of the "second 401" rule). */
  rejectAllTokens: boolean;
  /** Serve /mcp without a token (clients and conformance tools that do not sign in). */
  open: boolean;
  /** Close the next event stream after its first event, once (resumption with Last-Event-ID; not 2026-07-28). */
  breakNextStream: boolean;
  /** RFC 9449: advertise dpop_signing_alg_values_supported and bind tokens to the key of a proof sent with the token request. */
  dpop: boolean;
  /** Refuse token requests without a DPoP proof (implies `dpop`). */
  dpopRequired: boolean;
  /** Demand the server's nonce in every proof (use_dpop_nonce: 400 at the token endpoint, 401 at the resource). */
  dpopNonce: boolean;
  /** RFC 8628: offer the device authorization endpoint (and the device_code grant). */
  deviceAuthorization: boolean;
  /** RFC 7523: take the platform issuer's workload JWTs (admin `workload-token`) as a jwt-bearer grant. */
  workloadIdentity: boolean;
  /** Lifetime of a device code and the polling interval it names. */
  deviceCodeTtlSec: number;
  deviceIntervalSec: number;
}

export const DEFAULT_SETTINGS: ProtocolSettings = {
  revision: '2025-11-25',
  redirectMatching: 'loopback-any-port',
  loseNextSession: false,
  metadata: true,
  registration: true,
  resourceMetadata: true,
  thirdParty: false,
  accessTokenTtlSec: 300,
  refreshTokenTtlSec: 86_400,
  thirdPartyTokenTtlSec: 3600,
  sse: false,
  rejectAllTokens: false,
  open: false,
  breakNextStream: false,
  dpop: false,
  dpopRequired: false,
  dpopNonce: false,
  deviceAuthorization: false,
  workloadIdentity: false,
  deviceCodeTtlSec: 600,
  deviceIntervalSec: 5,
};

export const SCOPES = ['tools:read', 'tools:call'] as const;
export const DEFAULT_SCOPE = 'tools:read';
export const CODE_TTL_SEC = 60;

export const SEED_CLIENTS: ReadonlyArray<Omit<EmuClient, 'client_id_issued_at' | 'preRegistered'>> = [
  {
    client_id: 'ctx-cli',
    client_name: 'Pre-registered public client',
    redirect_uris: ['http://127.0.0.1/callback', 'http://localhost/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_method: 'none',
  },
  {
    client_id: 'ctx-web',
    client_secret: 'ctx-web-secret',
    client_name: 'Pre-registered confidential client (client_secret_post)',
    redirect_uris: ['http://127.0.0.1/callback', 'https://app.example.com/callback'],
    grant_types: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_method: 'client_secret_post',
  },
  {
    client_id: 'ctx-service',
    client_secret: 'ctx-service-secret',
    client_name: 'Pre-registered service (client credentials)',
    redirect_uris: [],
    grant_types: ['client_credentials'],
    token_endpoint_auth_method: 'client_secret_basic',
    scope: 'tools:read tools:call',
  },
];

export interface DpopStats {
  /** Proofs accepted, by where they were sent. */
  accepted: { token: number; resource: number };
  /** Refusals: where, the error and why. */
  refused: Array<{ where: 'token' | 'resource'; error: string; description: string }>;
  /** use_dpop_nonce answers given (400 at the token endpoint, 401 at the resource). */
  nonceChallenges: { token: number; resource: number };
}

export function emptyDpopStats(): DpopStats {
  return { accepted: { token: 0, resource: 0 }, refused: [], nonceChallenges: { token: 0, resource: 0 } };
}

export interface Stats {
  /** `versionHeader`: the value of CTX-Protocol-Version or MCP-Protocol-Version, `header` which of the two. */
  metadataRequests: Array<{ path: string; versionHeader: string | null; header: string | null; served: boolean }>;
  registrations: number;
  authorizeRequests: number;
  pkceVerified: number;
  pkceFailed: number;
  tokenRequests: Record<string, number>;
  refreshReuseDetected: number;
  mcpRequests: Array<{ method: string; status: number; auth: 'none' | 'bearer' | 'dpop'; version?: string }>;
  /** Sessions ended by the client (DELETE). */
  sessionsEnded: number;
  /** Answers to the server's own requests (elicitation), as the client sent them. */
  clientAnswers: Array<{ method: string; result?: unknown; error?: unknown }>;
  thirdPartyChecks: number;
  /** Event streams resumed with GET and Last-Event-ID. */
  streamsResumed: Array<{ lastEventId: string }>;
  /** Connections of sessions' server-initiated streams (GET, first or resumed) that closed, as the server saw it. */
  sessionStreamsClosed: number;
  /** RFC 9449 proofs at the token endpoint and the resource. */
  dpop: DpopStats;
  /** RFC 8628: device codes issued, the token endpoint's answers to polls ('issued' for tokens), the page's decisions. */
  device: { issued: number; polls: string[]; decisions: string[] };
  /** RFC 7523: the workload JWTs taken as grants, in order (their subject and jti). */
  workloadGrants: Array<{ subject: string; jti: string }>;
}

export function emptyStats(): Stats {
  return {
    metadataRequests: [],
    registrations: 0,
    authorizeRequests: 0,
    pkceVerified: 0,
    pkceFailed: 0,
    tokenRequests: {},
    refreshReuseDetected: 0,
    mcpRequests: [],
    thirdPartyChecks: 0,
    sessionsEnded: 0,
    clientAnswers: [],
    streamsResumed: [],
    sessionStreamsClosed: 0,
    dpop: emptyDpopStats(),
    device: { issued: 0, polls: [], decisions: [] },
    workloadGrants: [],
  };
}

/** Every scope known. */
export function validScope(scope: string): boolean {
  return scope.split(' ').every((s) => (SCOPES as readonly string[]).includes(s));
}

/** Space-separated, deduplicated; undefined when empty. */
export function normScope(raw: string | undefined): string | undefined {
  const s = (raw ?? '').split(/\s+/).filter(Boolean);
  return s.length ? [...new Set(s)].join(' ') : undefined;
}

export function randomToken(prefix: string, bytes = 24): string {
  return `${prefix}_${randomBytes(bytes).toString('base64url')}`;
}

export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

export class ProtocolState {
  settings: ProtocolSettings = { ...DEFAULT_SETTINGS };
  clients = new Map<string, EmuClient>();
  pending = new Map<string, PendingAuthorization>();
  codes = new Map<string, EmuCode>();
  accessTokens = new Map<string, EmuAccessToken>();
  refreshTokens = new Map<string, EmuRefreshToken>();
  /** Device code → device authorization; user code → device code. */
  devices = new Map<string, EmuDeviceGrant>();
  userCodes = new Map<string, string>();
  /** Session id → client id and the negotiated revision. */
  sessions = new Map<string, { clientId: string; revision: EmuRevision }>();
  stats: Stats = emptyStats();

  constructor(readonly clock: EmulatorClock) {
    this.reset();
  }

  reset(): void {
    this.settings = { ...DEFAULT_SETTINGS };
    this.clients.clear();
    this.pending.clear();
    this.codes.clear();
    this.accessTokens.clear();
    this.refreshTokens.clear();
    this.devices.clear();
    this.userCodes.clear();
    this.sessions.clear();
    this.stats = emptyStats();
    for (const c of SEED_CLIENTS) this.clients.set(c.client_id, { ...c, client_id_issued_at: 0, preRegistered: true });
  }

  nowSec(): number {
    return Math.floor(this.clock.now() / 1000);
  }

  /** Issues an access token (and a refresh token when the client may refresh). */
  issueTokens(
    g: EmuGrant,
    family: string,
    withRefresh: boolean,
    bindRefresh = true,
  ): { access_token: string; token_type: 'Bearer' | 'DPoP'; expires_in: number; refresh_token?: string; scope: string } {
    const now = this.clock.now();
    const at = randomToken('ctxat');
    this.accessTokens.set(at, { ...g, family, expiresAt: now + this.settings.accessTokenTtlSec * 1000, revoked: false });
    let rt: string | undefined;
    if (withRefresh) {
      rt = randomToken('ctxrt', 32);
      this.refreshTokens.set(rt, {
        ...g,
        jkt: bindRefresh ? g.jkt : undefined,
        family,
        expiresAt: now + this.settings.refreshTokenTtlSec * 1000,
        used: false,
        revoked: false,
      });
    }
    return {
      access_token: at,
      token_type: g.jkt ? 'DPoP' : 'Bearer',
      expires_in: this.settings.accessTokenTtlSec,
      ...(rt ? { refresh_token: rt } : {}),
      scope: g.scope,
    };
  }

  /** Revokes every token of a grant family (refresh-token reuse, code reuse). */
  revokeFamily(family: string): void {
    for (const t of this.accessTokens.values()) if (t.family === family) t.revoked = true;
    for (const t of this.refreshTokens.values()) if (t.family === family) t.revoked = true;
  }
}
