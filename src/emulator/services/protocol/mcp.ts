/**
 * The emulated protocol server at /mcp: JSON-RPC 2.0 over HTTP POST, JSON or
 * event-stream answers, `Mcp-Session-Id` sessions, Bearer tokens validated
 * on every request (401 with WWW-Authenticate; 403 insufficient_scope);
 * tools, resources and prompts (content.ts). A session's `GET` without
 * `Last-Event-ID` opens its server-initiated stream, which carries
 * `notifications/resources/updated` for the resources it subscribed to.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Protocol } from '../../../shared/constants.js';
import type { JsonRpcRequestWire } from '../../../shared/protocol.js';
import type { EmuRequest, EmuResponse, Router } from '../../router.js';
import { MCP_PATH, isLoopbackHost, type ProtocolAuthServer } from './oauth.js';
import { DEFAULT_SCOPE, type EmuAccessToken, type EmuRevision, type ProtocolState } from './state.js';
import { CONTENT_CAPABILITIES, type ProtocolContent, resourceNotFoundCode } from './content.js';
import { DPOP_ALGS } from './dpop.js';
import { STATELESS_REVISION, StatelessServer } from './stateless.js';
import { EventStreams, type EventStream } from './streams.js';
import type { ThirdPartyAuthServer } from './third-party.js';
import { CONFIRM_SCHEMA, SERVER_INFO, callTool, toolsOf } from './tools.js';

/** How long the confirm tool waits for the client's answer. */
const ELICITATION_WAIT_MS = 30_000;
/** Scope each method needs. */
const METHOD_SCOPE: Record<string, string | undefined> = { 'tools/list': 'tools:read', 'tools/call': 'tools:call' };
/** The caller of a server that asks for no token (the `open` switch). */
const OPEN_CALLER: EmuAccessToken = { clientId: 'anonymous', scope: 'tools:read tools:call', expiresAt: Number.POSITIVE_INFINITY, family: '', revoked: false };

export class ProtocolServer {
  /** Elicitations in flight: request id → what to do with the client's answer. */
  readonly #pending = new Map<string, (answer: { result?: unknown; error?: unknown }) => void>();
  readonly #streams = new EventStreams();
  readonly #stateless: StatelessServer;
  /** The resources each session subscribed to. */
  readonly #subscriptions = new Map<string, Set<string>>();
  /**
   * Each session's server-initiated streams (GET without Last-Event-ID), until the session ends: one whose
   * connection closed keeps what is written to it for a resumption (its last KEPT_EVENTS events), until
   * the session opens a new one without Last-Event-ID.
   */
  readonly #sessionStreams = new Map<string, Set<EventStream>>();
  /** The server-initiated streams ever opened: one resumed with Last-Event-ID goes on carrying the session's updates. */
  readonly #serverInitiated = new WeakSet<EventStream>();

  constructor(
    readonly state: ProtocolState,
    readonly as: ProtocolAuthServer,
    readonly thirdParty: ThirdPartyAuthServer,
    readonly content: ProtocolContent,
  ) {
    this.#stateless = new StatelessServer(state, content);
    content.onUpdate((uri) => this.#resourceUpdated(uri));
  }

  /** Forgets the subscriptions and closes the sessions' streams (the emulator's reset). */
  reset(): void {
    for (const session of [...this.#sessionStreams.keys()]) this.#endSession(session);
    this.#subscriptions.clear();
    this.#stateless.reset();
  }

  /** A resource changed: each session subscribed to it is told on one of its server-initiated streams. */
  #resourceUpdated(uri: string): void {
    for (const [session, uris] of this.#subscriptions) {
      if (uris.has(uri)) this.#carrier(session)?.write({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri } });
    }
  }

  /**
   * The one stream a message of the session goes on (the transport: never the same message on several
   * streams): the newest (opened or resumed) that a connection carries, else the newest kept for a resumption.
   */
  #carrier(session: string): EventStream | undefined {
    const streams = [...(this.#sessionStreams.get(session) ?? [])].filter((s) => !s.ended);
    return streams.findLast((s) => !s.detached) ?? streams.at(-1);
  }

  /** Closes the connections of the sessions' server-initiated streams (the admin's cut); how many were open. */
  cutSessionStreams(): number {
    let n = 0;
    for (const streams of this.#sessionStreams.values()) for (const s of streams) if (s.cut()) n++;
    return n;
  }

  #endSession(session: string): void {
    this.#subscriptions.delete(session);
    for (const stream of this.#sessionStreams.get(session) ?? []) stream.end();
    this.#sessionStreams.delete(session);
  }

  register(router: Router): void {
    router.post(MCP_PATH, (req, res) => this.#post(req, res));
    router.get(MCP_PATH, (req, res) => this.#get(req, res));
    router.delete(MCP_PATH, async (req, res) => {
      // 2026-07-28 has no sessions to end.
      if (this.state.settings.revision === STATELESS_REVISION) return res.json(405, { message: 'this server has no sessions' }, { allow: 'POST' });
      const id = req.header(Protocol.sessionHeader);
      if (!(await this.#bearer(req, res, 'DELETE'))) return;
      if (!id || !this.state.sessions.delete(id)) return res.json(404, { message: 'unknown session' });
      this.#endSession(id);
      this.state.stats.sessionsEnded++;
      res.empty(204);
    });
  }

  #challenge(extra = '', dpop = false): string {
    const rm = this.as.servesResourceMetadata() ? `, resource_metadata="${this.as.baseUrl()}${Protocol.resourceMetadataPath}${MCP_PATH}"` : '';
    // From 2025-11-25 on: the scope a request needs is named in the challenge (unless the error names its own).
    const scope =
      (this.state.settings.revision === '2025-11-25' || this.state.settings.revision === STATELESS_REVISION) && !extra.includes('scope=')
        ? `, scope="${DEFAULT_SCOPE}"`
        : '';
    const params = `realm="ctx-emulator"${rm}${scope}${extra}`;
    const algs = `DPoP algs="${DPOP_ALGS.join(' ')}"`;
    // RFC 9449 §7.1: a server that takes DPoP tokens says so in its challenge — the DPoP scheme alone where it
    // requires them, beside Bearer where it takes both.
    if (dpop || this.state.settings.dpopRequired) return `${algs}, ${params}`;
    return `Bearer ${params}${this.state.settings.dpop ? `, ${algs}` : ''}`;
  }

  /** The caller's token, or undefined after answering 401: a Bearer token, or a DPoP-bound one with its proof (RFC 9449 §7). */
  async #bearer(req: EmuRequest, res: EmuResponse, method: string): Promise<EmuAccessToken | undefined> {
    if (this.state.settings.open) {
      this.state.stats.mcpRequests.push({ method, status: 200, auth: 'none' });
      return OPEN_CALLER;
    }
    const auth = req.header('authorization') ?? '';
    const m = /^(Bearer|DPoP) ([A-Za-z0-9\-._~+/]+=*)$/i.exec(auth.trim());
    const kind = m?.[1]?.toLowerCase() === 'dpop' ? 'dpop' : 'bearer';
    const record = (status: number, k: 'none' | 'bearer' | 'dpop') => this.state.stats.mcpRequests.push({ method, status, auth: k });
    if (!m) {
      record(401, 'none');
      res.json(401, { error: 'unauthorized', error_description: 'authorization required' }, { 'www-authenticate': this.#challenge() });
      return undefined;
    }
    const t = this.state.accessTokens.get(m[2]!);
    let why: string | undefined;
    if (this.state.settings.rejectAllTokens) why = 'the server refuses every token (admin switch)';
    else if (!t || t.revoked) why = 'unknown or revoked token';
    else if (t.expiresAt <= this.state.clock.now()) why = 'token expired';
    else if (t.resource !== undefined && t.resource !== this.as.resourceUrl()) why = 'token issued for another resource';
    else if (t.jkt && kind !== 'dpop') why = 'the token is DPoP-bound: it must be sent with the DPoP scheme and a proof';
    else if (!t.jkt && kind === 'dpop') why = 'the token is not DPoP-bound: it must be sent as Bearer';
    else if (!t.jkt && this.state.settings.dpopRequired) why = 'this server accepts DPoP-bound tokens only';
    else if (t.jkt) {
      const d = await this.as.dpop.check('resource', req.header('dpop'), {
        method: req.method,
        url: this.as.resourceUrl(),
        accessToken: m[2]!,
        requireNonce: this.state.settings.dpopNonce,
      });
      if ('error' in d) {
        record(401, kind);
        const nonce: Record<string, string> = d.error === 'use_dpop_nonce' ? { 'dpop-nonce': this.as.dpop.nonces.resource } : {};
        res.json(
          401,
          { error: d.error, error_description: d.description },
          { 'www-authenticate': `DPoP algs="${DPOP_ALGS.join(' ')}", error="${d.error}", error_description="${quotable(d.description)}"`, ...nonce },
        );
        return undefined;
      }
      if (d.jkt !== t.jkt) why = 'the DPoP proof is signed by another key than the one the token is bound to';
    }
    if (!why && t?.thirdPartyToken) {
      this.state.stats.thirdPartyChecks++;
      if (!this.thirdParty.introspect(t.thirdPartyToken).active) why = 'the third-party authorization behind this token is no longer active';
    }
    if (why || !t) {
      record(401, kind);
      res.json(
        401,
        { error: 'invalid_token', error_description: why },
        { 'www-authenticate': this.#challenge(`, error="invalid_token", error_description="${why}"`, t?.jkt !== undefined) },
      );
      return undefined;
    }
    record(200, kind);
    return t;
  }

  async #post(req: EmuRequest, res: EmuResponse): Promise<void> {
    const read = await this.#readMessage(req, res);
    if (!read) return;
    const { msg } = read;
    if (msg?.jsonrpc === '2.0' && typeof msg.method !== 'string' && msg.id !== undefined && ('result' in msg || 'error' in msg))
      return this.#clientAnswer(req, res, msg);
    if (msg?.jsonrpc !== '2.0' || typeof msg.method !== 'string') {
      return res.json(400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } });
    }
    const token = await this.#bearer(req, res, msg.method);
    if (!token) return;
    const need = METHOD_SCOPE[msg.method];
    if (need && !token.scope.split(' ').includes(need)) {
      this.state.stats.mcpRequests.at(-1)!.status = 403;
      return res.json(
        403,
        { error: 'insufficient_scope', error_description: `${msg.method} needs the scope ${need}` },
        {
          'www-authenticate': this.#challenge(`, error="insufficient_scope", scope="${need}", error_description="${msg.method} needs the scope ${need}"`),
        },
      );
    }
    const revision = this.state.settings.revision;
    if (revision === STATELESS_REVISION) {
      const last = this.state.stats.mcpRequests.at(-1)!;
      return this.#stateless.handle(req, res, msg, token.clientId, (status, version) => {
        last.status = status;
        last.version = version;
      });
    }
    const sessionHeader = this.#session(req, res, msg, token, revision);
    if (sessionHeader) this.#reply(req, res, msg, sessionHeader, revision);
  }

  /** The request's JSON-RPC message, after the Origin and Accept checks; undefined after answering a refusal. */
  async #readMessage(req: EmuRequest, res: EmuResponse): Promise<{ msg: JsonRpcRequestWire } | undefined> {
    // DNS-rebinding protection (the transport requires servers to validate Origin).
    const origin = req.header('origin');
    if (origin && !this.#originAllowed(origin)) {
      res.json(403, { jsonrpc: '2.0', id: null, error: { code: -32000, message: `Origin ${origin} is not allowed` } });
      return undefined;
    }
    const accept = (req.header('accept') ?? '').toLowerCase();
    if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
      res.json(406, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Accept must list application/json and text/event-stream' } });
      return undefined;
    }
    try {
      return { msg: await req.json<JsonRpcRequestWire>() };
    } catch {
      res.json(400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      return undefined;
    }
  }

  /**
   * The session of a request: a new one for `initialize` (its header to send),
   * else the one `Mcp-Session-Id` names, with the version header of its
   * revision; undefined after answering 400 or 404.
   */
  #session(req: EmuRequest, res: EmuResponse, msg: JsonRpcRequestWire, token: EmuAccessToken, revision: EmuRevision): Record<string, string> | undefined {
    if (msg.method === 'initialize') {
      const id = randomUUID();
      this.state.sessions.set(id, { clientId: token.clientId, revision });
      return { [Protocol.sessionHeader]: id };
    }
    const refuse = (status: number, code: number, message: string) => {
      this.state.stats.mcpRequests.at(-1)!.status = status;
      res.json(status, { jsonrpc: '2.0', id: msg.id ?? null, error: { code, message } });
      return undefined;
    };
    const id = req.header(Protocol.sessionHeader);
    if (!id) return refuse(400, -32000, 'Bad Request: Mcp-Session-Id header required');
    const session = this.state.sessions.get(id);
    if (this.state.settings.loseNextSession && session) {
      this.state.settings.loseNextSession = false;
      this.state.sessions.delete(id);
      this.#endSession(id);
    }
    if (this.state.sessions.get(id)?.clientId !== token.clientId) return refuse(404, -32001, 'Session not found');
    // The version header of the negotiated revision: required from 2025-06-18 on, checked when sent for 2025-03-26.
    const name = session!.revision === '2025-03-26' ? Protocol.versionHeader : Protocol.laterVersionHeader;
    const sent = req.header(name);
    this.state.stats.mcpRequests.at(-1)!.version = sent;
    if ((sent === undefined && session!.revision !== '2025-03-26') || (sent !== undefined && sent !== session!.revision)) {
      return refuse(400, -32600, `Bad Request: ${name} must be ${session!.revision} (got ${sent ?? 'none'})`);
    }
    return {};
  }

  /** The answer of a request in a session: 202 for a notification, an event stream (confirm, the `sse` switch) or JSON. */
  #reply(req: EmuRequest, res: EmuResponse, msg: JsonRpcRequestWire, sessionHeader: Record<string, string>, revision: EmuRevision): void {
    if (msg.id === undefined) return res.empty(202, sessionHeader);
    const session = sessionHeader[Protocol.sessionHeader] ?? req.header(Protocol.sessionHeader);
    if (msg.method === 'tools/call' && (msg.params as { name?: unknown } | undefined)?.name === 'confirm' && revision !== '2025-03-26') {
      return this.#confirm(this.#openStream(res, sessionHeader, session), msg);
    }
    const reply = { jsonrpc: '2.0', id: msg.id, ...this.#dispatch(msg, session, revision) };
    if (this.state.settings.sse) {
      const stream = this.#openStream(res, sessionHeader, session);
      const note = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `handling ${msg.method}` } };
      // A stream about to break names a short reconnection delay.
      stream.write(note, stream.breakAfter ? 200 : undefined);
      stream.write(reply);
      stream.end();
      return;
    }
    res.json(200, reply, sessionHeader);
  }

  /**
   * The confirm tool: an event stream that primes (id + retry), asks the
   * client (elicitation/create) and answers the call once the client's answer
   * arrives as its own POST — or with an error after ELICITATION_WAIT_MS.
   */
  #confirm(out: EventStream, msg: JsonRpcRequestWire): void {
    const question = String((msg.params as { arguments?: { question?: unknown } } | undefined)?.arguments?.question ?? 'Go ahead?');
    const elicitId = `elicit-${randomUUID()}`;
    out.write(undefined, out.breakAfter ? 200 : 1000);
    const ask = {
      jsonrpc: '2.0',
      id: elicitId,
      method: 'elicitation/create',
      params: {
        message: question,
        requestedSchema: CONFIRM_SCHEMA,
      },
    };
    out.write(ask);
    const finish = (result: unknown) => {
      clearTimeout(timer);
      this.#pending.delete(elicitId);
      if (out.ended) return;
      out.write({ jsonrpc: '2.0', id: msg.id, result });
      out.end();
    };
    const timer = setTimeout(() => finish({ content: [{ type: 'text', text: 'no answer' }], isError: true }), ELICITATION_WAIT_MS);
    timer.unref();
    out.onAbandon(() => {
      clearTimeout(timer);
      this.#pending.delete(elicitId);
    });
    this.#pending.set(elicitId, (a) => {
      const r = (a.result ?? {}) as { action?: string; content?: { confirm?: unknown } };
      const text = a.error
        ? 'the client could not answer'
        : r.action === 'accept'
          ? `confirmed: ${r.content?.confirm === true}`
          : `the user chose ${String(r.action)}`;
      finish({ content: [{ type: 'text', text }], isError: false });
    });
  }

  /**
   * GET of one of the caller's sessions: with Last-Event-ID, the resumption of
   * a stream; without, the session's server-initiated stream (its resource
   * updates). 2026-07-28 has neither (subscriptions/listen instead).
   */
  async #get(req: EmuRequest, res: EmuResponse): Promise<void> {
    const last = req.header('last-event-id');
    if (this.state.settings.revision === STATELESS_REVISION) {
      return res.json(405, { message: 'this server offers no server-initiated stream' }, { allow: 'POST' });
    }
    const token = await this.#bearer(req, res, 'GET');
    if (!token) return;
    const session = req.header(Protocol.sessionHeader);
    if (last === undefined) return this.#sessionStream(res, session, token);
    const mine = session !== undefined && this.state.sessions.get(session)?.clientId === token.clientId;
    const stream = mine ? ([...(this.#sessionStreams.get(session) ?? [])].find((s) => s.has(last)) ?? this.#streams.find(last, session)) : undefined;
    if (!stream) {
      this.state.stats.mcpRequests.at(-1)!.status = 404;
      return res.json(404, { message: `no stream of this session has the event ${last}` });
    }
    this.state.stats.streamsResumed.push({ lastEventId: last });
    const out = res.head(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    out.flushHeaders();
    stream.resume(out, Number(last));
    if (this.#serverInitiated.has(stream) && !stream.ended) this.#carry(session!, stream, out);
  }

  /** The session's server-initiated stream, open until the client closes it or the session ends; 400 or 404 without a session of the caller. */
  #sessionStream(res: EmuResponse, session: string | undefined, token: EmuAccessToken): void {
    if (!session || this.state.sessions.get(session)?.clientId !== token.clientId) {
      this.state.stats.mcpRequests.at(-1)!.status = session ? 404 : 400;
      return res.json(session ? 404 : 400, { message: session ? 'Session not found' : 'Mcp-Session-Id header required' });
    }
    const out = res.head(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', [Protocol.sessionHeader]: session });
    // Its head goes now: a quiet stream is open (the client's wait for the head ends), not pending.
    out.flushHeaders();
    // A new stream, not a resumption: the session's streams left without a connection are given up.
    const kept = this.#sessionStreams.get(session);
    for (const s of kept ?? []) if (s.detached) kept!.delete(s);
    const stream = this.#streams.open(out, session);
    // From 2025-11-25 on a stream is primed with an event id (empty data): a client cut off before any
    // message still has a Last-Event-ID to resume with (older clients are not sent one, as the SDKs do).
    if (this.state.sessions.get(session)?.revision === '2025-11-25') stream.write(undefined);
    this.#serverInitiated.add(stream);
    this.#carry(session, stream, out);
  }

  /**
   * A server-initiated stream carries the session's updates on `out` (its
   * first connection, or a resumption) and keeps them when `out` closes: the
   * resumption with Last-Event-ID sends those written meanwhile (the
   * transport's resumability), whether the server noticed the old socket die
   * before the client resumed or after.
   */
  #carry(session: string, stream: EventStream, out: ServerResponse): void {
    const streams = this.#sessionStreams.get(session) ?? new Set<EventStream>();
    // (Last in the set: the newest.)
    streams.delete(stream);
    streams.add(stream);
    this.#sessionStreams.set(session, streams);
    out.on('close', () => void this.state.stats.sessionStreamsClosed++);
  }

  /** An event stream for one request; the `breakNextStream` switch closes it after its first event (once). */
  #openStream(res: EmuResponse, sessionHeader: Record<string, string>, session: string | undefined): EventStream {
    const breakIt = this.state.settings.breakNextStream;
    this.state.settings.breakNextStream = false;
    const out = res.head(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...sessionHeader });
    return this.#streams.open(out, session, breakIt ? 1 : undefined);
  }

  /** A JSON-RPC response from the client to one of the server's requests. */
  async #clientAnswer(req: EmuRequest, res: EmuResponse, msg: JsonRpcRequestWire & { result?: unknown; error?: unknown }): Promise<void> {
    if (!(await this.#bearer(req, res, 'response'))) return;
    const done = this.#pending.get(String(msg.id));
    if (!done) return res.json(400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: `no request ${String(msg.id)} is waiting for an answer` } });
    this.state.stats.clientAnswers.push({ method: 'elicitation/create', result: msg.result, error: msg.error });
    done({ result: msg.result, error: msg.error });
    res.empty(202);
  }

  #originAllowed(origin: string): boolean {
    try {
      const u = new URL(origin);
      return u.origin === this.as.baseUrl() || isLoopbackHost(u.hostname);
    } catch {
      return false;
    }
  }

  /** resources/subscribe and resources/unsubscribe of a session: an unknown resource is -32002. */
  #subscribe(
    on: boolean,
    uri: unknown,
    session: string | undefined,
    revision: EmuRevision,
  ): { result: unknown } | { error: { code: number; message: string } } {
    if (typeof uri !== 'string' || !uri) return { error: { code: -32602, message: 'Invalid params: params.uri (string) is required' } };
    if (!this.content.exists(uri)) return { error: { code: resourceNotFoundCode(revision), message: 'Resource not found' } };
    if (!session) return { result: {} };
    const uris = this.#subscriptions.get(session) ?? new Set<string>();
    if (on) uris.add(uri);
    else uris.delete(uri);
    this.#subscriptions.set(session, uris);
    return { result: {} };
  }

  #dispatch(msg: JsonRpcRequestWire, session: string | undefined, revision: EmuRevision): { result: unknown } | { error: { code: number; message: string } } {
    const p = (msg.params ?? {}) as Record<string, unknown>;
    const content = this.content.dispatch(msg.method, p, revision);
    if (content) return content;
    switch (msg.method) {
      case 'initialize':
        return {
          result: {
            // The server speaks one revision (its admin setting) and answers with it (version negotiation).
            protocolVersion: this.state.settings.revision,
            capabilities: { tools: { listChanged: false }, ...CONTENT_CAPABILITIES },
            serverInfo: SERVER_INFO,
            instructions: 'Emulated tools: echo, time. Resources: readme, notes (subscribable), pixel, users/{login}. Prompts: greeting, summarize.',
          },
        };
      case 'ping':
        return { result: {} };
      case 'resources/subscribe':
      case 'resources/unsubscribe':
        return this.#subscribe(msg.method === 'resources/subscribe', p.uri, session, revision);
      case 'tools/list':
        return { result: { tools: toolsOf(this.state.settings.revision) } };
      case 'tools/call':
        return callTool(p.name, p.arguments, this.state.clock.now(), this.state.settings.revision);
      default:
        return { error: { code: -32601, message: `Method not found: ${msg.method}` } };
    }
  }
}

/** A description inside a quoted header parameter: no quotes or backslashes. */
function quotable(text: string): string {
  return text.replace(/["\\\r\n]/g, "'");
}
