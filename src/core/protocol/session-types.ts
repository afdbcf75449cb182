/** The ports and options of a conversation with a protocol server (session.ts and the sessions it composes). */
import type { ProtocolRevision } from '../../shared/constants.js';
import type { JsonRpcRequestWire, JsonRpcResponseWire } from '../../shared/protocol.js';
import type { ProtocolAuthDeps } from './deps.js';
import type { AuthorizeOptions } from './flow-options.js';

/** What the user answers to a server's `elicitation/create` (the protocol's ElicitResult). */
export interface ElicitResult {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

export interface ProtocolSessionDeps extends ProtocolAuthDeps {
  /** Answers a server's elicitation request; without it every elicitation is declined. */
  elicit?(params: { message?: string; requestedSchema?: unknown; mode?: string; url?: string }): Promise<ElicitResult>;
  /** Notifications the server sends on a stream (log messages, progress). */
  onNotification?(method: string, params: unknown): void;
  /**
   * Takes the server's requests and notifications instead of the answers and
   * notices above (the bridge hands them to its host, whose answers go back
   * with `send`); never awaited, so a stream is read on while the host thinks.
   * `stream`: the id of the request whose answer carried the message (undefined
   * on the session's own GET stream).
   */
  relay?(message: JsonRpcRequestWire, stream?: string | number): void;
  /**
   * Where the lines of the session's GET stream go when it stops or pauses (a server that refuses it);
   * default `notify`. A one-off call (callProtocolServer) says them nowhere unless given this: the session
   * ends with the call, so what the server would send on its own there concerns no one (as with the
   * protocol SDK's clients, for which a refused GET stream is no error the user sees).
   */
  sessionStreamNotice?(line: string): void;
  /** Told when the session starts to refresh or authorize; the returned function when that is over. */
  authorizing?(): () => void;
  /**
   * Answers a stateless server's input requests (SEP-2322: elicitation,
   * sampling, roots) instead of `elicit` — the bridge asks its host;
   * undefined leaves the request unanswered.
   */
  answerInput?(method: string, params: unknown, signal?: AbortSignal): Promise<unknown>;
  /**
   * The caller bounds and cancels each request's wait itself (the bridge: its
   * host's timeouts and `notifications/cancelled`): a protocol request then has
   * no deadline, only the idle bound of its answer's body (5 min). Otherwise the
   * HTTP client's request deadline (`--timeout`) bounds each; neither has the
   * client's 30 s bound on the answer's head (a tool may work long before it answers).
   */
  readonly callerBounded?: boolean;
}

export interface ProtocolCallOptions {
  readonly serverUrl: string;
  /** Default `initialize`. */
  readonly method?: string;
  readonly params?: unknown;
  readonly scopes?: string;
  readonly clientId?: string;
  readonly clientCredentials?: boolean;
  readonly clientInfo: { name: string; version: string };
  /** Extra AuthorizeOptions (client metadata URL, key, identity provider). */
  readonly auth?: Partial<AuthorizeOptions>;
  /**
   * The revision to speak. Default: the newest stateless one the server
   * takes, else what `initialize` negotiates. A stateless revision here
   * fails against a server that needs the handshake; a handshake revision
   * is offered in `initialize` without trying the stateless ones.
   */
  readonly revision?: ProtocolRevision;
}

export interface ProtocolCallResult {
  readonly response: JsonRpcResponseWire;
  /** The answer to `initialize`; absent in a stateless revision (no handshake). */
  readonly initialize?: JsonRpcResponseWire;
  readonly sessionId?: string;
  /** The negotiated protocol revision. */
  readonly revision?: ProtocolRevision;
  /** True when the call had to sign in (or refresh) on the way. */
  readonly authorized: boolean;
}
