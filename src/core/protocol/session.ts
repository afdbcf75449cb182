/**
 * One conversation with a protocol server, composed of one session per kind
 * of revision over a shared transport:
 *   authorized-transport.ts  tokens, sign-in on a 401 / step-up on a 403
 *                            insufficient_scope, DPoP nonces, answers read
 *                            from JSON or event streams (resumed)
 *   stateless-session.ts     2026-07-28: no handshake, `_meta` and `Mcp-*`
 *                            headers, input_required rounds
 *   handshake-session.ts     initialize / notifications/initialized, session
 *                            id, a lost session (404) recovered, DELETE
 *   session-stream.ts        the session's GET stream, kept and reconnected
 * First stateless; a refusal that is not one of the stateless revisions'
 * errors marks a server that needs the handshake, and the call goes on there.
 */
import { presentOptions } from '../options.js';
import { LanyardError } from '../errors.js';
import { isStatelessRevision, Protocol, type ProtocolRevision } from '../../shared/constants.js';
import type { JsonRpcRequestWire, JsonRpcResponseWire } from '../../shared/protocol.js';
import { checkWire } from '../wire/check.js';
import { rpcAnswerSchema } from '../wire/schemas.js';
import { AuthorizedTransport } from './authorized-transport.js';
import { HandshakeSession } from './handshake-session.js';
import { StatelessSession } from './stateless-session.js';
import type { ClientDescription } from './stateless.js';
import type { TransportState } from './jsonrpc.js';
import type { ProtocolCallOptions, ProtocolCallResult, ProtocolSessionDeps } from './session-types.js';

export type { ElicitResult, ProtocolCallOptions, ProtocolCallResult, ProtocolSessionDeps } from './session-types.js';
export { MAX_STEP_UP, unionScopes } from './authorized-transport.js';
export { MAX_INPUT_ROUNDS } from './stateless-session.js';

// Elicitation is always answered (a decline is an answer), so it is declared.
const CAPABILITIES = { elicitation: {} };

export function initializeParams(clientInfo: { name: string; version: string }, revision?: ProtocolRevision): Record<string, unknown> {
  return { protocolVersion: revision ?? Protocol.revisions[0], capabilities: CAPABILITIES, clientInfo };
}

export async function callProtocolServer(deps: ProtocolSessionDeps, o: ProtocolCallOptions): Promise<ProtocolCallResult> {
  presentOptions(deps, ['http', 'credentials', 'clock'], 'deps');
  const r = await callUnchecked(deps, o);
  // The answers checked at the edge: the error object, and the results Lanyard reads (core/wire).
  const check = (method: string, answer: JsonRpcResponseWire) => checkWire('protocol', `the answer to ${method}`, rpcAnswerSchema(method), answer);
  if (r.initialize) check('initialize', r.initialize);
  const method = o.method ?? 'initialize';
  check(method === 'initialize' && !r.initialize ? 'server/discover' : method, r.response);
  return r;
}

async function callUnchecked(deps: ProtocolSessionDeps, o: ProtocolCallOptions): Promise<ProtocolCallResult> {
  const method = o.method ?? 'initialize';
  // The session's GET stream is opened, as the protocol SDK's clients open it, but its refusal says nothing: the session ends with the call.
  const s = new AuthorizedSession({ sessionStreamNotice: () => undefined, ...deps }, o);
  await s.start();
  try {
    const handshakeOnly = (method === 'initialize' && o.params !== undefined) || (o.revision !== undefined && !isStatelessRevision(o.revision));
    if (!handshakeOnly) {
      // Without a method, the stateless revisions' question about the server: server/discover.
      const response = await s.stateless(method === 'initialize' ? 'server/discover' : method, method === 'initialize' ? undefined : o.params);
      if (response) return { response, revision: s.state.revision, authorized: s.authorized };
      if (o.revision) {
        throw new LanyardError('protocol_error', `${o.serverUrl} does not speak the stateless revision ${o.revision} (it needs the initialize handshake)`);
      }
    }
    const init = await s.initialize(method === 'initialize' && o.params !== undefined ? o.params : undefined);
    if (init.error) return { response: init, initialize: init, sessionId: s.state.sessionId, authorized: s.authorized };
    const response = method === 'initialize' ? init : await s.request(method, o.params);
    return { response, initialize: init, sessionId: s.state.sessionId, revision: s.state.revision, authorized: s.authorized };
  } finally {
    await s.close();
  }
}

/**
 * A session kept open for many messages (callProtocolServer's, and the
 * bridge's): one transport (tokens, sign-in on the way, answers and streams)
 * shared by the session of each kind of revision — stateless first, the
 * handshake when the server needs it.
 */
export class AuthorizedSession {
  readonly #transport: AuthorizedTransport;
  readonly #stateless: StatelessSession;
  readonly #handshake: HandshakeSession;

  constructor(deps: ProtocolSessionDeps, o: ProtocolCallOptions) {
    this.#transport = new AuthorizedTransport(deps, o);
    this.#stateless = new StatelessSession(this.#transport, { clientInfo: o.clientInfo, capabilities: CAPABILITIES });
    this.#handshake = new HandshakeSession(this.#transport, () => initializeParams(o.clientInfo, o.revision));
  }

  get state(): TransportState {
    return this.#transport.state;
  }

  /** True when the session had to sign in (or refresh) on the way. */
  get authorized(): boolean {
    return this.#transport.authorized;
  }

  /** Who stateless requests speak for (`_meta` clientInfo and capabilities): Lanyard, or the bridge's host. */
  get client(): ClientDescription {
    return this.#stateless.client;
  }

  set client(c: ClientDescription) {
    this.#stateless.client = c;
  }

  start(): Promise<void> {
    return this.#transport.start();
  }

  /** One request in a stateless revision, or undefined when the server needs the handshake (StatelessSession.request). */
  stateless(method: string, params?: unknown, signal?: AbortSignal, id?: string): Promise<JsonRpcResponseWire | undefined> {
    return this.#stateless.request(method, params, signal, id);
  }

  /** A stateless client's own request, as it is (StatelessSession.passThrough). */
  passThrough(method: string, params: unknown, signal?: AbortSignal): Promise<JsonRpcResponseWire | undefined> {
    return this.#stateless.passThrough(method, params, signal);
  }

  /** The server said its tool list changed: the schemas kept for stateless tool calls are read again. */
  forgetTools(): void {
    this.#stateless.forgetTools();
  }

  initialize(params?: unknown): Promise<JsonRpcResponseWire> {
    return this.#handshake.initialize(params);
  }

  request(method: string, params?: unknown): Promise<JsonRpcResponseWire> {
    return this.#handshake.request(method, params);
  }

  send(message: JsonRpcRequestWire | JsonRpcResponseWire, signal?: AbortSignal): Promise<JsonRpcResponseWire | undefined> {
    return this.#handshake.send(message, signal);
  }

  close(signal?: AbortSignal): Promise<void> {
    return this.#handshake.close(signal);
  }
}
