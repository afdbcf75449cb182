/**
 * One conversation with a protocol server. First as a stateless revision
 * (2026-07-28: no handshake, `_meta` and the `Mcp-*` headers on every
 * request, a tool call answered in several rounds when the server needs
 * input); a refusal that is not one of the stateless revisions' errors marks
 * a server that needs the handshake, and the call goes on as follows:
 * `initialize` (offering the newest
 * revision Lanyard speaks and accepting the server's choice when Lanyard
 * speaks it too), `notifications/initialized`, the requested method, then
 * DELETE to end the session. Every request carries the Bearer token, the
 * session id and the negotiated version header. A 401 runs the authorization
 * flow (or a refresh on `invalid_token`) and retries once; a 403
 * `insufficient_scope` re-authorizes with the wider scope (a bounded number
 * of times); a 404 for a known session re-initializes once. Requests the
 * server sends on a stream (elicitation, ping) are answered; event streams
 * that break are resumed with `Last-Event-ID` after the server's `retry`.
 */
import { randomUUID } from 'node:crypto';
import { AuthRequiredError, HttpError, LanyardError } from '../errors.js';
import { isProtocolRevision, isStatelessRevision, Protocol, type ProtocolRevision } from '../../shared/constants.js';
import type { JsonRpcRequestWire, JsonRpcResponseWire } from '../../shared/protocol.js';
import type { HttpResponse } from '../http/client.js';
import { parseBearerChallenge } from './discovery.js';
import { proverOf, USE_DPOP_NONCE } from './dpop.js';
import { authorize, currentTokens, refreshTokens, renewable, unauthorizedAgain, type AuthorizeOptions, type ProtocolAuthDeps } from './flow.js';
import {
  classify,
  isEventStream,
  jsonMessages,
  rpcDelete,
  rpcGet,
  rpcPost,
  sessionIdOf,
  sseEvents,
  type IncomingMessage,
  type TransportState,
} from './jsonrpc.js';
import type { StoredTokens } from './store.js';
import { OAuthErrorCode } from './token.js';
import { checkWire } from '../wire/check.js';
import { rpcAnswerSchema } from '../wire/schemas.js';
import { keepValidTools, paramHeaders, standardHeaders, statelessError, withRequestMeta, type ClientDescription } from './stateless.js';

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
   */
  relay?(message: JsonRpcRequestWire): void;
  /** Told when the session starts to refresh or authorize; the returned function when that is over. */
  authorizing?(): () => void;
  /**
   * Answers a stateless server's input requests (SEP-2322: elicitation,
   * sampling, roots) instead of `elicit` — the bridge asks its host;
   * undefined leaves the request unanswered.
   */
  answerInput?(method: string, params: unknown, signal?: AbortSignal): Promise<unknown>;
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

/** Where a stream stands: the last event id (for Last-Event-ID), the server's retry, reconnections since the last message. */
interface StreamCursor {
  lastEventId?: string;
  retryMs: number;
  reconnects: number;
}

/** Authorization attempts for one request after `insufficient_scope` (the revisions ask for a limit). */
export const MAX_STEP_UP = 2;
/** Reconnections of one stream without a message in between. */
const MAX_RECONNECTS = 5;
/** The reconnection delay when the server named none (the HTML standard leaves it to the client). */
const DEFAULT_RETRY_MS = 1000;
/** Rounds of one stateless request that the server answers with input_required. */
export const MAX_INPUT_ROUNDS = 8;
/** Pages of tools/list read to find a tool's input schema before calling it. */
const MAX_TOOL_PAGES = 20;
/** The requests a server may answer with input_required (multi round-trip requests, SEP-2322). */
const INPUT_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);
/** Marks a server that needs the handshake. */
const HANDSHAKE = Symbol('handshake');

// Elicitation is always answered (a decline is an answer), so it is declared.
const CAPABILITIES = { elicitation: {} };

export function initializeParams(clientInfo: { name: string; version: string }, revision?: ProtocolRevision): Record<string, unknown> {
  return { protocolVersion: revision ?? Protocol.revisions[0], capabilities: CAPABILITIES, clientInfo };
}

export async function callProtocolServer(deps: ProtocolSessionDeps, o: ProtocolCallOptions): Promise<ProtocolCallResult> {
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
  const s = new AuthorizedSession(deps, o);
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

/** A session kept open for many messages (callProtocolServer's, and the bridge's). */
export class AuthorizedSession {
  readonly state: TransportState;
  authorized = false;
  #tokens?: StoredTokens;
  /** The refresh or authorization under way, shared by the requests that got a 401 meanwhile. */
  #authorizing?: Promise<void>;
  #reinitialized = false;
  #initParams?: unknown;
  /** A stateless server answered (a refusal is now an error, not a sign of the handshake). */
  #statelessKnown = false;
  #listener?: { stop(): void; done: Promise<unknown> };
  /** Who stateless requests speak for (`_meta` clientInfo and capabilities): Lanyard, or the bridge's host. */
  client: ClientDescription;

  constructor(
    readonly deps: ProtocolSessionDeps,
    readonly o: ProtocolCallOptions,
  ) {
    this.state = { signal: deps.signal };
    this.client = { clientInfo: o.clientInfo, capabilities: CAPABILITIES };
  }

  async start(): Promise<void> {
    this.#tokens = await this.#whileAuthorizing(() => currentTokens(this.deps, this.o.serverUrl));
    this.state.accessToken = this.#tokens?.accessToken;
    this.state.dpop = proverOf(this.#tokens, this.deps.clock);
  }

  async #whileAuthorizing<T>(f: () => Promise<T>): Promise<T> {
    const done = this.deps.authorizing?.();
    try {
      return await f();
    } finally {
      done?.();
    }
  }

  /**
   * One request in a stateless revision, or undefined when the server needs
   * the handshake. A tool call first reads the tool's input schema
   * (tools/list) for the `Mcp-Param-*` headers; an input_required answer is
   * met (the user answers elicitations) and the request sent again with the
   * answers and the server's request state, up to MAX_INPUT_ROUNDS.
   */
  async stateless(method: string, params?: unknown, signal?: AbortSignal): Promise<JsonRpcResponseWire | undefined> {
    this.state.revision = this.o.revision ?? Protocol.statelessRevisions[0];
    let extra: Record<string, string> = {};
    if (method === 'tools/call') {
      const p = (params ?? {}) as { name?: unknown; arguments?: unknown };
      const tool = await this.#findTool(p.name, signal);
      if (tool === HANDSHAKE) return undefined;
      extra = paramHeaders(tool?.inputSchema, p.arguments);
    }
    let next = params;
    for (let round = 0; ; round++) {
      const r = await this.#statelessRequest(method, next, extra, signal);
      if (r === HANDSHAKE) return undefined;
      // A server that answers server/discover without the versions it speaks took the request under an older revision's rules.
      if (method === 'server/discover' && !Array.isArray((r.result as { supportedVersions?: unknown } | undefined)?.supportedVersions)) {
        if (this.o.revision) throw new LanyardError('protocol_error', `${this.o.serverUrl} answered server/discover without supportedVersions`);
        return undefined;
      }
      if (method === 'tools/list' && r.result) return { ...r, result: keepValidTools(r.result, (m) => this.deps.notify?.(m)) as Record<string, unknown> };
      const result = r.result as { resultType?: unknown; inputRequests?: unknown; requestState?: unknown } | undefined;
      if (result?.resultType !== 'input_required' || !INPUT_METHODS.has(method)) return r;
      if (round + 1 >= MAX_INPUT_ROUNDS) {
        throw new LanyardError('protocol_error', `${this.o.serverUrl} still asked for input after ${MAX_INPUT_ROUNDS} rounds of ${method}`);
      }
      // Each retry starts from the original params: answers and state belong to this round only.
      const base = params && typeof params === 'object' ? (params as Record<string, unknown>) : {};
      const inputResponses = await this.#inputResponses(result.inputRequests, signal);
      next = {
        ...base,
        ...(inputResponses ? { inputResponses } : {}),
        ...(typeof result.requestState === 'string' ? { requestState: result.requestState } : {}),
      };
    }
  }

  /**
   * One request of a client that speaks a stateless revision itself (the
   * bridge's host): its params, `_meta` included, go out as they are, with
   * the version header its `_meta` names, the `Mcp-*` headers and the token;
   * the answer comes back as the server gave it (an error of the revision, an
   * input_required result: the client's to handle). Undefined when the
   * server needs the handshake. `tool`: the called tool's definition when
   * the caller knows it fresh (else it is read with tools/list).
   */
  async passThrough(method: string, params: unknown, signal?: AbortSignal, tool?: { inputSchema?: unknown }): Promise<JsonRpcResponseWire | undefined> {
    const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
    // What the lookup of a tool's schema says about the client: the same as its request (no progress token, no log level).
    const own = { _meta: Object.fromEntries(Object.values(Protocol.meta).flatMap((k) => (meta?.[k] === undefined ? [] : [[k, meta[k]]]))) };
    // The revision a sign-in on the way asks the server's metadata under.
    if (isStatelessRevision(own._meta[Protocol.meta.protocolVersion])) this.state.revision = own._meta[Protocol.meta.protocolVersion] as ProtocolRevision;
    let extra: Record<string, string> = {};
    if (method === 'tools/call') {
      const p = (params ?? {}) as { name?: unknown; arguments?: unknown };
      const found = tool ?? (await this.#findTool(p.name, signal, own));
      if (found === HANDSHAKE) return undefined;
      extra = paramHeaders(found?.inputSchema, p.arguments);
    }
    const r = await this.#statelessRequest(method, params, extra, signal, own);
    return r === HANDSHAKE ? undefined : r;
  }

  /** The tool's definition from tools/list (following pages), undefined when not listed; `asIs`: a client's own request (passThrough). */
  async #findTool(name: unknown, signal?: AbortSignal, asIs?: Record<string, unknown>): Promise<{ inputSchema?: unknown } | undefined | typeof HANDSHAKE> {
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_PAGES; page++) {
      const r = await this.#statelessRequest('tools/list', cursor === undefined ? asIs : { ...asIs, cursor }, {}, signal, asIs);
      if (r === HANDSHAKE) return HANDSHAKE;
      const result = (r.result ?? {}) as { tools?: unknown; nextCursor?: unknown };
      const tools = Array.isArray(result.tools) ? (result.tools as Array<{ name?: unknown; inputSchema?: unknown }>) : [];
      const found = tools.find((t) => t && t.name === name);
      if (found) return found;
      if (typeof result.nextCursor !== 'string' || !result.nextCursor) return undefined;
      cursor = result.nextCursor;
    }
    return undefined;
  }

  /** The client's answers to an input_required result's requests, by key (a request Lanyard cannot answer is left out). */
  async #inputResponses(requests: unknown, signal?: AbortSignal): Promise<Record<string, unknown> | undefined> {
    if (!requests || typeof requests !== 'object') return undefined;
    const out: Record<string, unknown> = {};
    for (const [key, req] of Object.entries(requests as Record<string, unknown>)) {
      const r = (req ?? {}) as { method?: unknown; params?: unknown };
      const answer =
        typeof r.method !== 'string'
          ? undefined
          : this.deps.answerInput
            ? await this.deps.answerInput(r.method, r.params, signal)
            : await this.#inputAnswer(r.method, r.params);
      if (answer !== undefined) out[key] = answer;
    }
    return out;
  }

  /** What Lanyard answers to a request of the server (elicitation asked or declined, ping), undefined when it cannot. */
  async #inputAnswer(method: string, params: unknown): Promise<unknown> {
    if (method === 'elicitation/create') {
      const p = (params ?? {}) as { message?: string; requestedSchema?: unknown; mode?: string; url?: string };
      return this.deps.elicit ? await this.deps.elicit(p) : { action: 'decline' };
    }
    if (method === 'ping') return {};
    return undefined;
  }

  /**
   * One POST of a stateless revision, signing in on the way. A refusal with
   * one of the stateless revisions' errors shows a stateless server: an
   * unsupported version is retried once with a stateless revision the server
   * lists; any other refusal before that shows a server that needs the
   * handshake (HANDSHAKE). `asIs` (a client's own request, passThrough):
   * the params go out untouched, with the version its `_meta` names in the
   * header, and every refusal of the revision is the client's to handle.
   */
  async #statelessRequest(
    method: string,
    params: unknown,
    extra: Record<string, string>,
    signal?: AbortSignal,
    asIs?: { _meta?: Record<string, unknown> },
  ): Promise<JsonRpcResponseWire | typeof HANDSHAKE> {
    const withSignal = this.#stateWith(signal);
    const version = asIs?._meta?.[Protocol.meta.protocolVersion];
    // The client's version goes into a header only as visible ASCII (a CR/LF in it must not start a header of its own).
    const header = typeof version === 'string' && /^[\x21-\x7e]{1,64}$/.test(version) ? (version as ProtocolRevision) : undefined;
    const stateNow = asIs ? () => ({ ...withSignal(), revision: header }) : withSignal;
    for (let retried = false; ; retried = true) {
      const revision = this.state.revision!;
      const message: JsonRpcRequestWire = { jsonrpc: '2.0', id: randomUUID(), method, params: asIs ? params : withRequestMeta(params, revision, this.client) };
      const res = await this.#send(message, { ...standardHeaders(method, params), ...extra }, stateNow);
      if (res.status >= 200 && res.status <= 299) {
        this.#statelessKnown = true;
        return this.#answerOf(res, message.id!, stateNow);
      }
      const body = await res.text().catch(() => '');
      let parsed: unknown = body;
      try {
        parsed = JSON.parse(body);
      } catch {
        /* text */
      }
      const err = statelessError(res.status, parsed);
      if (!err) {
        if (this.#statelessKnown || this.o.revision) throw new HttpError(res.status, 'POST', this.o.serverUrl, parsed, res.headers);
        return HANDSHAKE;
      }
      this.#statelessKnown = true;
      if (asIs || err.code !== Protocol.statelessErrors.unsupportedVersion) return parsed as JsonRpcResponseWire;
      const data = (err.data ?? {}) as { supported?: unknown };
      const supported = Array.isArray(data.supported) ? data.supported.filter((v): v is string => typeof v === 'string') : [];
      const choice = Protocol.statelessRevisions.find((v) => supported.includes(v) && (!this.o.revision || v === this.o.revision));
      if (choice && !retried) {
        this.state.revision = choice;
        continue;
      }
      // A server that speaks a handshake revision Lanyard speaks too (and nothing stateless in common).
      if (!choice && !this.o.revision && Protocol.revisions.some((v) => supported.includes(v))) return HANDSHAKE;
      throw new LanyardError(
        'protocol_error',
        `${this.o.serverUrl} refused protocol version ${revision} (it speaks ${supported.join(', ') || 'none it named'}; Lanyard speaks ${[...Protocol.statelessRevisions, ...Protocol.revisions].join(', ')})`,
      );
    }
  }

  /** initialize + notifications/initialized; checks the version the server chose. */
  async initialize(params?: unknown): Promise<JsonRpcResponseWire> {
    this.#initParams = params ?? initializeParams(this.o.clientInfo, this.o.revision);
    this.state.sessionId = undefined;
    this.state.revision = undefined;
    const init = (await this.#call({ jsonrpc: '2.0', id: randomUUID(), method: 'initialize', params: this.#initParams }))!;
    if (init.error) return init;
    const v = (init.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    if (!isProtocolRevision(v)) {
      await this.close();
      throw new LanyardError(
        'protocol_error',
        `${this.o.serverUrl} answered initialize with protocol version ${typeof v === 'string' ? JSON.stringify(v) : 'none'} (field result.protocolVersion); Lanyard speaks ${Protocol.revisions.join(', ')}`,
      );
    }
    this.state.revision = v;
    await this.#call({ jsonrpc: '2.0', method: 'notifications/initialized' });
    if (this.state.sessionId) this.#listen();
    return init;
  }

  /**
   * The session's own event stream (GET): servers send requests that belong
   * to no particular call there (an elicitation from inside a tool, say).
   * Listened to in the background until the session ends; a server without
   * one (405, 404) or any failure just ends the listening.
   */
  #listen(): void {
    this.#listener?.stop();
    const ac = new AbortController();
    const signal = this.deps.signal ? AbortSignal.any([this.deps.signal, ac.signal]) : ac.signal;
    const run = async () => {
      const cursor: StreamCursor = { retryMs: DEFAULT_RETRY_MS, reconnects: 0 };
      while (!signal.aborted) {
        const res = await rpcGet(this.deps.http, this.o.serverUrl, { ...this.state, signal }, cursor.lastEventId);
        if (res.status < 200 || res.status > 299 || !isEventStream(res)) return res.dump();
        await this.#drain(res, cursor);
        if (cursor.lastEventId === undefined || ++cursor.reconnects > MAX_RECONNECTS) return;
        await this.deps.clock.sleep(cursor.retryMs, signal);
      }
    };
    this.#listener = { stop: () => ac.abort(), done: run().catch(() => undefined) };
  }

  async request(method: string, params?: unknown): Promise<JsonRpcResponseWire> {
    return (await this.#call({ jsonrpc: '2.0', id: randomUUID(), method, ...(params === undefined ? {} : { params }) }))!;
  }

  /**
   * Sends one message as it is: a request (resolves to its response), a
   * notification or a response to a server's request (resolve to undefined).
   * `signal` gives up on this message only (a cancelled request).
   */
  send(message: JsonRpcRequestWire | JsonRpcResponseWire, signal?: AbortSignal): Promise<JsonRpcResponseWire | undefined> {
    return this.#call(message, signal);
  }

  /** Ends the session (DELETE) when the server gave one; failures are not the user's problem. `signal` replaces the session's (an interrupted bridge still ends it). */
  async close(signal?: AbortSignal): Promise<void> {
    if (this.#listener) {
      this.#listener.stop();
      await this.#listener.done;
      this.#listener = undefined;
    }
    if (!this.state.sessionId) return;
    try {
      await rpcDelete(this.deps.http, this.o.serverUrl, signal ? { ...this.state, signal } : this.state);
    } catch {
      /* the answer is already in hand */
    }
    this.state.sessionId = undefined;
  }

  /** POSTs a message, signing in (401) or stepping up the scope (403 insufficient_scope) and sending it again; any other answer is returned. */
  async #send(
    message: JsonRpcRequestWire | JsonRpcResponseWire,
    extra?: Record<string, string>,
    stateNow: () => TransportState = () => this.state,
  ): Promise<HttpResponse> {
    const method = 'method' in message ? message.method : undefined;
    const signal = stateNow().signal;
    let retried401 = false;
    let stepUps = 0;
    let nonces = 0;
    for (;;) {
      const sent = stateNow();
      const res = await rpcPost(this.deps.http, this.o.serverUrl, message, sent, extra);
      if (method === 'initialize') this.state.sessionId = sessionIdOf(res);
      // RFC 9449 §9: a resource server's use_dpop_nonce 401 is answered with a proof carrying its new nonce (twice at most).
      const newNonce = sent.dpop?.remember(res, this.o.serverUrl) ?? false;
      if (res.status === 401 && newNonce && nonces < 2 && parseBearerChallenge(res.headers['www-authenticate'])?.error === USE_DPOP_NONCE) {
        await res.dump();
        nonces++;
        continue;
      }
      if (res.status === 401) {
        await res.dump();
        if (retried401) throw unauthorizedAgain(this.o.serverUrl, res.headers['www-authenticate']);
        retried401 = true;
        await this.#on401(res.headers['www-authenticate'], sent.accessToken);
        signal?.throwIfAborted();
        continue;
      }
      if (res.status === 403) {
        const challenge = parseBearerChallenge(res.headers['www-authenticate']);
        if (challenge?.error === OAuthErrorCode.insufficientScope) {
          await res.dump();
          await this.#onInsufficientScope(challenge.scope, res.headers['www-authenticate'], stepUps++);
          signal?.throwIfAborted();
          continue;
        }
      }
      return res;
    }
  }

  async #call(message: JsonRpcRequestWire | JsonRpcResponseWire, signal?: AbortSignal): Promise<JsonRpcResponseWire | undefined> {
    const method = 'method' in message ? message.method : undefined;
    const stateNow = this.#stateWith(signal);
    for (;;) {
      const res = await this.#send(message, undefined, stateNow);
      if (res.status === 404 && this.state.sessionId && method !== 'initialize') {
        await res.dump();
        if (this.#reinitialized) {
          throw new LanyardError('session_expired', `${this.o.serverUrl} lost the new session too (HTTP 404); run the command again`);
        }
        this.#reinitialized = true;
        this.deps.notify?.(`${this.o.serverUrl} no longer knows the session; starting a new one`);
        const init = await this.initialize(this.#initParams);
        if (init.error) throw new LanyardError('rpc_error', `initialize failed: server error ${init.error.code}: ${init.error.message}`);
        // The new session's initialize already sent this one.
        if (method === 'notifications/initialized') return undefined;
        continue;
      }
      if (res.status < 200 || res.status > 299) {
        const body = await res.text().catch(() => '');
        let parsed: unknown = body;
        try {
          parsed = JSON.parse(body);
        } catch {
          /* text */
        }
        throw new HttpError(res.status, 'POST', this.o.serverUrl, parsed, res.headers);
      }
      if (message.id === undefined || message.id === null || method === undefined) {
        await res.dump();
        return undefined;
      }
      return this.#answerOf(res, message.id, stateNow);
    }
  }

  /** The session's state, with the signal of one message when it has its own. */
  #stateWith(signal: AbortSignal | undefined): () => TransportState {
    if (!signal) return () => this.state;
    const both = this.deps.signal ? AbortSignal.any([this.deps.signal, signal]) : signal;
    return () => ({ ...this.state, signal: both });
  }

  /** The response to `id` from a JSON body or an event stream, answering server requests on the way and resuming a broken stream. */
  async #answerOf(first: HttpResponse, id: string | number, stateNow: () => TransportState = () => this.state): Promise<JsonRpcResponseWire> {
    if (!isEventStream(first)) {
      const found = await this.#handle(await jsonMessages(first), id);
      if (!found) throw new LanyardError('protocol_error', `${first.url} answered without a JSON-RPC response to request ${id}`);
      return found;
    }
    let res = first;
    const cursor: StreamCursor = { retryMs: DEFAULT_RETRY_MS, reconnects: 0 };
    for (;;) {
      const found = await this.#drain(res, cursor, id);
      if (found) return found;
      // The stream ended without our response: resumable only if the server gave an event id (a server that
      // took a stateless request under an older revision's rules may still do that).
      if (cursor.lastEventId === undefined)
        throw new LanyardError('protocol_error', `the event stream from ${this.o.serverUrl} ended without a response to request ${id}`);
      if (++cursor.reconnects > MAX_RECONNECTS) {
        throw new LanyardError('protocol_error', `the event stream from ${this.o.serverUrl} broke ${MAX_RECONNECTS} times without a response to request ${id}`);
      }
      const state = stateNow();
      await this.deps.clock.sleep(cursor.retryMs, state.signal);
      res = await rpcGet(this.deps.http, this.o.serverUrl, state, cursor.lastEventId);
      if (res.status < 200 || res.status > 299 || !isEventStream(res)) {
        await res.dump();
        throw new LanyardError('protocol_error', `resuming the event stream of ${this.o.serverUrl} (GET with Last-Event-ID) failed: HTTP ${res.status}`);
      }
    }
  }

  /**
   * Reads one event stream to its end (or to the response to `id`), keeping
   * the last event id and the server's retry in `cursor`, answering the
   * server's requests and passing notifications on.
   */
  async #drain(res: HttpResponse, cursor: StreamCursor, id?: string | number): Promise<JsonRpcResponseWire | undefined> {
    try {
      for await (const ev of sseEvents(res)) {
        if (ev.id !== undefined) cursor.lastEventId = ev.id;
        if (ev.retry !== undefined) cursor.retryMs = ev.retry;
        if (!ev.data) continue;
        cursor.reconnects = 0;
        let parsed: unknown;
        try {
          parsed = JSON.parse(ev.data);
        } catch {
          continue;
        }
        const found = await this.#handle(classify(parsed), id);
        if (found) return found;
      }
      return undefined;
    } finally {
      res.body.destroy();
    }
  }

  /** Answers requests, passes notifications on; returns the response to `id` when it is among the messages. */
  async #handle(messages: IncomingMessage[], id?: string | number): Promise<JsonRpcResponseWire | undefined> {
    let found: JsonRpcResponseWire | undefined;
    for (const m of messages) {
      if (m.kind === 'response') {
        if (id !== undefined && m.message.id === id) found = m.message;
      } else if (this.deps.relay) this.deps.relay(m.message);
      else if (m.kind === 'notification') this.deps.onNotification?.(m.message.method, m.message.params);
      else if (m.kind === 'request') await this.#answer(m.message);
    }
    return found;
  }

  /** A request from the server: elicitation is asked (or declined), ping answered, anything else is method-not-found. */
  async #answer(req: JsonRpcRequestWire & { id: string | number }): Promise<void> {
    const result = await this.#inputAnswer(req.method, req.params);
    const reply: JsonRpcResponseWire =
      result === undefined
        ? { jsonrpc: '2.0', id: req.id, error: { code: -32601, message: `Method not found: ${req.method}` } }
        : { jsonrpc: '2.0', id: req.id, result: result as Record<string, unknown> };
    const res = await rpcPost(this.deps.http, this.o.serverUrl, reply, this.state);
    await res.dump();
    if (res.status < 200 || res.status > 299) this.deps.notify?.(`${this.o.serverUrl} refused Lanyard's answer to ${req.method} (HTTP ${res.status})`);
  }

  #authorizeOptions(scopes: string | undefined, challenge: AuthorizeOptions['challenge']): AuthorizeOptions {
    return {
      ...this.o.auth,
      serverUrl: this.o.serverUrl,
      scopes,
      clientId: this.o.clientId,
      clientCredentials: this.o.clientCredentials ?? this.#tokens?.grant === 'client_credentials',
      challenge,
      revision: this.state.revision,
    };
  }

  /** After a 401 to a request sent with `used`: refresh or authorize, once for all the requests that got one meanwhile. */
  async #on401(header: string | undefined, used: string | undefined): Promise<void> {
    // Another request already got a new token since this one was sent.
    if (this.state.accessToken !== used) return;
    this.#authorizing ??= this.#whileAuthorizing(async () => {
      const challenge = parseBearerChallenge(header);
      const t = this.#tokens;
      let next: StoredTokens | undefined;
      if (t && renewable(t) && (!challenge?.error || challenge.error === OAuthErrorCode.invalidToken)) {
        this.deps.notify?.('The access token was refused; refreshing it');
        next = await refreshTokens(this.deps, t);
      }
      next ??= await authorize(this.deps, { ...this.#authorizeOptions(this.o.scopes, challenge), insteadOf: { accessToken: used } });
      this.#use(next);
    }).finally(() => {
      this.#authorizing = undefined;
    });
    await this.#authorizing;
  }

  async #onInsufficientScope(scope: string | undefined, header: string | undefined, stepUps: number): Promise<void> {
    if (stepUps >= MAX_STEP_UP || !scope) {
      throw new AuthRequiredError(`${this.o.serverUrl} refused the request: insufficient scope${scope ? ` (needs "${scope}")` : ''}`, {
        ...(scope ? { remedy: { kind: 'sign-in', service: 'protocol', serverUrl: this.o.serverUrl, scopes: scope } } : {}),
        service: 'protocol',
      });
    }
    const wider = unionScopes(this.#tokens?.scope, scope);
    this.deps.notify?.(`The server needs the scope "${scope}"; authorizing again with "${wider}"`);
    this.#use(await this.#whileAuthorizing(() => authorize(this.deps, this.#authorizeOptions(wider, { ...parseBearerChallenge(header), scope: wider }))));
  }

  #use(t: StoredTokens): void {
    this.#tokens = t;
    this.state.accessToken = t.accessToken;
    this.state.dpop = proverOf(t, this.deps.clock, this.state.dpop);
    this.authorized = true;
  }
}

export function unionScopes(...lists: Array<string | undefined>): string {
  const out: string[] = [];
  for (const l of lists) for (const s of (l ?? '').split(/\s+/)) if (s && !out.includes(s)) out.push(s);
  return out.join(' ');
}
