/**
 * Spec constants shared by the client and the emulator. Values only: no parsing
 * logic lives here, so a client bug cannot be mirrored by the emulator.
 */

/** Hosting service (spec: hosting-oauth-and-rate-limits.md). */
export const Hosting = {
  deviceGrantType: 'urn:ietf:params:oauth:grant-type:device_code',
  refreshGrantType: 'refresh_token',
  deviceCodeLength: 40,
  deviceCodeLifetimeSec: 900,
  authCodeLifetimeSec: 600,
  slowDownIncrementSec: 5,
  deviceSubmissionsPerHour: 50,
  tokensPerCombination: 10,
  tokensCreatedPerHour: 10,
  tokenRequestsPerHour: 2000,
  apiPathPrefix: '/api/v3',
  callbackPath: '/callback',
} as const;

/** Names of the `x-ratelimit-*` headers (lower case, as Node exposes them). */
export const RateLimitHeader = {
  limit: 'x-ratelimit-limit',
  remaining: 'x-ratelimit-remaining',
  used: 'x-ratelimit-used',
  reset: 'x-ratelimit-reset',
  resource: 'x-ratelimit-resource',
  retryAfter: 'retry-after',
} as const;

/** Primary REST limits (per hour unless stated). */
export const PrimaryLimits = {
  unauthenticated: 60,
  authenticatedUser: 5000,
  enterpriseCloud: 15000,
  auditLog: 1750,
  installationBasic: 5000,
  installationPerRepoAbove20: 50,
  installationPerUserAbove20: 50,
  installationCap: 12500,
  oauthAppBasic: 5000,
  workflowTokenPerRepo: 1000,
  workflowTokenEnterprisePerRepo: 15000,
  lfsUnauthenticatedPerMinute: 300,
  lfsAuthenticatedPerMinute: 3000,
  searchAuthenticatedPerMinute: 30,
  searchUnauthenticatedPerMinute: 10,
  codeSearchPerMinute: 10,
  graphqlPerHour: 5000,
} as const;

/** Secondary limits. */
export const SecondaryLimits = {
  concurrent: 100,
  restPointsPerMinute: 900,
  graphqlPointsPerMinute: 2000,
  contentCreatingPerMinute: 80,
  contentCreatingPerHour: 500,
  /** The length of the "per minute" window of content-creating requests, seconds (tests shorten it). */
  contentCreatingWindowSeconds: 60,
  /** CPU time: 90 s per 60 s of real time, at most 60 s of it for the query API. */
  cpuMsPerMinute: 90_000,
  graphqlCpuMsPerMinute: 60_000,
  pointsGet: 1,
  pointsWrite: 5,
} as const;

/** Context protocol (spec: echo-api-and-protocol-authorization.md part b). */
export const Protocol = {
  revision: '2025-03-26',
  versionHeader: 'CTX-Protocol-Version',
  metadataPath: '/.well-known/oauth-authorization-server',
  resourceMetadataPath: '/.well-known/oauth-protected-resource',
  fallbackAuthorize: '/authorize',
  fallbackToken: '/token',
  fallbackRegister: '/register',
  sessionHeader: 'Mcp-Session-Id',
  /** The header later revisions (2025-06-18 on) name for the negotiated version. */
  laterVersionHeader: 'MCP-Protocol-Version',
  /** The revisions with an `initialize` handshake Lanyard and the emulator speak, newest first (the first is offered in initialize). */
  revisions: ['2025-11-25', '2025-06-18', '2025-03-26'] as ProtocolRevision[],
  /** The stateless revisions (no handshake, `_meta` on every request), newest first; tried before the ones with a handshake. */
  statelessRevisions: ['2026-07-28'] as ProtocolRevision[],
  /** `_meta` keys every request of a stateless revision carries. */
  meta: {
    protocolVersion: 'io.modelcontextprotocol/protocolVersion',
    clientInfo: 'io.modelcontextprotocol/clientInfo',
    clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  },
  /** JSON-RPC errors only stateless servers send: they tell such a server from one that needs a handshake. */
  statelessErrors: { headerMismatch: -32020, missingCapability: -32021, unsupportedVersion: -32022 },
} as const;

/** A protocol revision Lanyard speaks (Protocol.revisions and Protocol.statelessRevisions). */
export type ProtocolRevision = '2026-07-28' | '2025-11-25' | '2025-06-18' | '2025-03-26';

/** A revision without the `initialize` handshake. */
export function isStatelessRevision(v: unknown): v is ProtocolRevision {
  return typeof v === 'string' && (Protocol.statelessRevisions as readonly string[]).includes(v);
}

export function isProtocolRevision(v: unknown): v is ProtocolRevision {
  return typeof v === 'string' && (Protocol.revisions as readonly string[]).includes(v);
}

/** The version header a revision defines: the spec's for 2025-03-26, `MCP-Protocol-Version` for the later ones. */
export function protocolVersionHeader(revision: ProtocolRevision): string {
  return revision === '2025-03-26' ? Protocol.versionHeader : Protocol.laterVersionHeader;
}

/** Echo API (spec part a). */
export const Echo = {
  apiVersion: '1.0.0',
  operations: {
    echo: 'echo',
    vendorJwt: 'auth_info_vendor_jwt',
    vendorIdToken: 'authInfoVendorIdToken',
    appPlatform: 'authInfoAppPlatform',
  },
  paths: {
    echo: '/echo',
    vendorJwt: '/auth/info/vendorjwt',
    vendorIdToken: '/auth/info/vendoridtoken',
    appPlatform: '/auth/info/appplatform',
  },
  clockSkewSec: 60,
  maxJwtLifetimeSec: 3600,
} as const;

/** Mailbox API (spec part a of mailbox-and-service-health.md). */
export const Mailbox = {
  basePath: '/rest/v2',
  defaultCount: 50,
  maxCount: 500,
} as const;

/** Service-health API (spec part b). */
export const Health = {
  defaultApiVersion: '2025-05-01',
  defaultVendor: 'Microsoft',
  defaultWindowDays: 3,
  scope: 'user_impersonation',
  authorizePath: '/common/oauth2/authorize',
} as const;

/** The emulator's admin API prefix. */
export const EmulatorAdminPrefix = '/_emulator';
