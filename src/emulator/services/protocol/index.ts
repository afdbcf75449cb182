/**
 * The protocol service of the emulator: a protocol server at /mcp, its
 * authorization server at the origin, and a second (third-party)
 * authorization server for the delegated flow. Admin verbs under
 * /_emulator/protocol/<verb>.
 */
import { createPublicKey } from 'node:crypto';
import type { AdminVerb, EmulatorEnv, EmulatorService } from '../../service.js';
import { ProtocolContent } from './content.js';
import { MCP_PATH, ProtocolAuthServer } from './oauth.js';
import { ProtocolServer } from './mcp.js';
import { DEFAULT_SETTINGS, EMU_REVISIONS, ProtocolState, SCOPES, SEED_CLIENTS, type EmuRevision, type ProtocolSettings } from './state.js';
import { ThirdPartyAuthServer, THIRD_PARTY_PREFIX } from './third-party.js';
import { protocolConsole } from '../../console/views/protocol.js';

const BOOL_KEYS = [
  'metadata',
  'registration',
  'resourceMetadata',
  'thirdParty',
  'sse',
  'rejectAllTokens',
  'loseNextSession',
  'open',
  'breakNextStream',
  'dpop',
  'dpopRequired',
  'dpopNonce',
  'deviceAuthorization',
  'workloadIdentity',
] as const;
const TTL_KEYS = {
  accessTokenTtl: 'accessTokenTtlSec',
  refreshTokenTtl: 'refreshTokenTtlSec',
  thirdPartyTokenTtl: 'thirdPartyTokenTtlSec',
  deviceCodeTtl: 'deviceCodeTtlSec',
  deviceInterval: 'deviceIntervalSec',
} as const;

export function createProtocolService(env: EmulatorEnv): EmulatorService {
  const state = new ProtocolState(env.clock);
  const thirdParty = new ThirdPartyAuthServer(env.clock, () => env.baseUrl() + '/oauth/third-party/callback');
  const as = new ProtocolAuthServer(state, thirdParty, () => env.baseUrl());
  const content = new ProtocolContent();
  const server = new ProtocolServer(state, as, thirdParty, content);

  return {
    name: 'protocol',
    register(router) {
      as.register(router);
      server.register(router);
      thirdParty.register(router);
    },
    reset() {
      state.reset();
      thirdParty.reset();
      as.dpop.reset();
      content.reset();
      server.reset();
    },
    info() {
      const base = env.baseUrl();
      return {
        serverUrl: base + MCP_PATH,
        authorizationServer: base,
        thirdPartyAuthorizationServer: base + THIRD_PARTY_PREFIX,
        scopes: [...SCOPES],
        revisions: [...EMU_REVISIONS],
        settings: state.settings,
        clients: SEED_CLIENTS.map((c) => ({ ...c })),
        profile: { 'protocol.serverUrl': base + MCP_PATH },
      };
    },
    admin: {
      ...protocolAdmin(state, thirdParty, as),
      'update-resource': (b) => content.update(b.uri, b.text),
      /** Closes the connections of the sessions' server-initiated streams, as a proxy would; the streams are kept for a resumption. */
      'cut-session-streams': () => ({ cut: server.cutSessionStreams() }),
    },
    console: () => protocolConsole(state, as),
  };
}

/** Applies the admin verb `configure`'s switches, lifetimes and choices; an Error names a bad or unknown one. */
function configure(state: ProtocolState, thirdParty: ThirdPartyAuthServer, b: Record<string, unknown>): ProtocolSettings {
  const next: ProtocolSettings = { ...state.settings };
  for (const k of BOOL_KEYS) {
    if (b[k] === undefined) continue;
    if (typeof b[k] !== 'boolean') throw new Error(`${k} must be true or false`);
    next[k] = b[k] as boolean;
  }
  for (const [k, target] of Object.entries(TTL_KEYS)) {
    if (b[k] === undefined) continue;
    const n = Number(b[k]);
    if (!Number.isInteger(n) || n < 1 || n > 31_536_000) throw new Error(`${k} must be a whole number of seconds (1 to 1 year)`);
    next[target] = n;
  }
  if (b.endpointOrigin !== undefined) {
    if (b.endpointOrigin === null || b.endpointOrigin === '') delete next.endpointOrigin;
    else next.endpointOrigin = new URL(String(b.endpointOrigin)).origin;
  }
  if (b.revision !== undefined) {
    if (!(EMU_REVISIONS as readonly unknown[]).includes(b.revision)) throw new Error(`revision must be one of ${EMU_REVISIONS.join(', ')}`);
    next.revision = b.revision as EmuRevision;
  }
  if (b.redirectMatching !== undefined) {
    if (b.redirectMatching !== 'exact' && b.redirectMatching !== 'loopback-any-port') throw new Error('redirectMatching must be exact or loopback-any-port');
    next.redirectMatching = b.redirectMatching;
  }
  const OTHER = ['endpointOrigin', 'revision', 'redirectMatching'];
  const unknown = Object.keys(b).filter((k) => !(BOOL_KEYS as readonly string[]).includes(k) && !(k in TTL_KEYS) && !OTHER.includes(k));
  if (unknown.length) throw new Error(`unknown setting(s): ${unknown.join(', ')}`);
  state.settings = next;
  thirdParty.ttlSec = next.thirdPartyTokenTtlSec;
  return next;
}

/** Admin verbs: settings, statistics, nonces, clients, revocations. */
function protocolAdmin(state: ProtocolState, thirdParty: ThirdPartyAuthServer, as: ProtocolAuthServer): Record<string, AdminVerb> {
  return {
    /** Switches and lifetimes; see the README (protocol section). */
    configure: (b) => ({ settings: configure(state, thirdParty, b) }),
    /** Back to the default switches (state kept). */
    defaults: () => {
      state.settings = { ...DEFAULT_SETTINGS };
      thirdParty.ttlSec = DEFAULT_SETTINGS.thirdPartyTokenTtlSec;
      return { settings: state.settings };
    },
    stats: () => state.stats,
    /** New DPoP nonces (the authorization server's and the resource's): the next proof with an old one gets use_dpop_nonce (with the `dpopNonce` switch). */
    'rotate-dpop-nonce': () => {
      as.dpop.rotateNonces();
      return { rotated: true };
    },
    /** A JWT of the stand-in platform issuer for a workload (`subject`, `ttl` seconds on the emulator clock, default 600): the grant of `workloadIdentity`. */
    'workload-token': (b) => as.workload.admin(b),
    /** Forgets a (dynamically registered) client: its next token request gets invalid_client. */
    'delete-client': (b) => {
      const id = String(b.client_id ?? '');
      const c = state.clients.get(id);
      if (!c) throw new Error(`no client ${id}`);
      state.clients.delete(id);
      return { deleted: id };
    },
    /** Revokes every access token (the next protocol request gets 401 invalid_token). */
    'revoke-access-tokens': () => {
      let n = 0;
      for (const t of state.accessTokens.values()) if (!t.revoked) (t.revoked = true), n++;
      return { revoked: n };
    },
    /** Revokes every refresh token (the next refresh gets invalid_grant). */
    'revoke-refresh-tokens': () => {
      let n = 0;
      for (const t of state.refreshTokens.values()) if (!t.revoked) (t.revoked = true), n++;
      return { revoked: n };
    },
    /** Revokes the third-party tokens: tokens bound to them stop working. */
    'third-party-revoke': () => ({ revoked: thirdParty.revokeAll() }),
    /** Registers a service client that signs in with a private key (private_key_jwt, client credentials): `client_id`, `public_key` (PEM). */
    'key-client': (b) => {
      const id = String(b.client_id ?? '');
      if (!id || typeof b.public_key !== 'string') throw new Error('client_id and public_key (PEM) are required');
      const public_key = createPublicKey(b.public_key).export({ type: 'spki', format: 'pem' }).toString();
      state.clients.set(id, {
        client_id: id,
        redirect_uris: [],
        grant_types: ['client_credentials'],
        token_endpoint_auth_method: 'private_key_jwt',
        scope: typeof b.scope === 'string' ? b.scope : SCOPES.join(' '),
        public_key,
        client_id_issued_at: Math.floor(state.clock.now() / 1000),
        preRegistered: true,
      });
      return { client_id: id };
    },
    clients: () => ({ clients: [...state.clients.values()].map(({ client_secret: _s, ...c }) => c) }),
  };
}
