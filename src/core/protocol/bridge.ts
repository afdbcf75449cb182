/**
 * The bridge between a host that speaks the protocol's stdio transport
 * (newline-delimited JSON-RPC) and a server on the streamable HTTP transport.
 * Every message of the host goes to the server through one AuthorizedSession
 * (session.ts: tokens, refresh and sign-in after a 401, resumed streams, the
 * session id and version headers); every message of the server — responses,
 * its requests (elicitation, sampling, roots) and notifications — goes to the
 * host, whose answers are posted back. A host request that waits on a sign-in
 * longer than `signInWaitMs` is answered with an error (the host would time
 * out otherwise) while the sign-in goes on. Takes its ports; prints nothing.
 *
 * A server of the stateless revision 2026-07-28 (no handshake, no session)
 * is found by the probe the revision names for stdio, `server/discover`, sent
 * when the host says `initialize`: the host (which speaks a revision with
 * the handshake) gets an `initialize` answer made from the discovery, each
 * of its requests goes out statelessly with `_meta` (its own client info and
 * capabilities) and the `Mcp-*` headers, and the server's input requests
 * (SEP-2322) become requests to the host whose answers go back with the
 * request state. A server that refuses the probe gets the handshake as before.
 *
 * A host that speaks 2026-07-28 itself (no initialize: its first request is
 * `server/discover`, or names that revision in `_meta`) is passed through: its
 * requests go out as they are (the bridge adds the transport's headers and
 * the token), the answers come back as they are, input_required included. A
 * server that needs the handshake makes the bridge answer such a request with
 * an error that is none of that revision's (method not found to
 * `server/discover`), which tells the host to fall back to `initialize`.
 */
import { AuthRequiredError, HttpError, LanyardError } from '../errors.js';
import type { JsonRpcRequestWire, JsonRpcResponseWire } from '../../shared/protocol.js';
import { AuthorizedSession, type ProtocolCallOptions, type ProtocolSessionDeps } from './session.js';
import { classify } from './jsonrpc.js';
import { AuthWatch, OVERDUE } from './bridge-auth-watch.js';
import { initializeAnswer, isClientInfo, messageOf, speaksStateless } from './bridge-messages.js';
import { ListenedResources } from './bridge-subscriptions.js';

/** JSON-RPC error codes the bridge answers with itself (the implementation-defined range). */
export const BridgeErrorCode = {
  /** A sign-in (or refresh) is waiting for the user; try again once it is done. */
  signInPending: -32050,
  /** The server could not be reached or refused the message (HTTP, authorization). */
  serverUnavailable: -32051,
  parseError: -32700,
  invalidRequest: -32600,
  /** A host of 2026-07-28 asked a server that needs the initialize handshake (not one of that revision's errors: the host falls back). */
  handshakeRequired: -32052,
  methodNotFound: -32601,
} as const;

export interface BridgePorts {
  /** The host's lines (stdin), ending when the host closes it. */
  readonly lines: AsyncIterable<string>;
  /** One message to the host (stdout). */
  send(message: JsonRpcRequestWire | JsonRpcResponseWire): void;
  /**
   * The host wants the bridge gone (SIGTERM): it ends as when stdin closes,
   * finishing a sign-in under way first. `deps.signal` stops everything at once.
   */
  readonly stop?: AbortSignal;
}

export interface BridgeOptions extends Omit<ProtocolCallOptions, 'method' | 'params'> {
  /** How long a host request may wait on a sign-in or refresh before it is answered with an error. */
  readonly signInWaitMs: number;
}

type Deps = Omit<ProtocolSessionDeps, 'relay' | 'authorizing' | 'elicit' | 'onNotification' | 'answerInput' | 'callerBounded'>;

type HostRequest = JsonRpcRequestWire & { id: string | number };

/** Runs until the host closes stdin (or the signal aborts); then ends the server's session. */
export async function runBridge(deps: Deps, o: BridgeOptions, ports: BridgePorts): Promise<void> {
  await new Bridge(deps, o, ports).run();
}

/** One bridge's state: the session, the host's requests in flight and how the server is spoken to. */
class Bridge {
  readonly #watch: AuthWatch;
  /** Whether the user was shown an authorization URL (what a sign-in that keeps a request waiting is waiting for). */
  #userAsked = false;
  /**
   * How the server is spoken to: not known before the host's first request, then with a session, stateless
   * (2026-07-28) for a host with the handshake, or passed through for a host that speaks 2026-07-28 itself.
   */
  #mode: 'unknown' | 'session' | 'stateless' | 'passthrough' = 'unknown';
  /** The host spoke 2026-07-28 first (its notifications are not posted); it may fall back to initialize. */
  #statelessHost = false;
  /** The server refused a 2026-07-28 request as a server with the handshake does (the host's initialize needs no probe). */
  #needsHandshake = false;
  /** The host's `logging/setLevel`, carried in each stateless request's `_meta` (the revision has no such method). */
  #logLevel: unknown;
  /** Input requests of a stateless server put to the host, by the id the bridge gave them. */
  readonly #asked = new Map<string, (answer: JsonRpcResponseWire) => void>();
  #askedSeq = 0;
  readonly #session: AuthorizedSession;
  /** A handshake host's list changes and resource subscriptions, on a stateless server's subscriptions/listen stream. */
  readonly #resources: ListenedResources;
  readonly #inFlight = new Map<string | number, AbortController>();
  /** The host's `subscriptions/listen` requests in flight (2026-07-28): streams with no end of their own. */
  readonly #listening = new Set<AbortController>();
  readonly #tasks = new Set<Promise<void>>();
  #initialized = false;
  /** What a host message waits for before it goes out: the stored tokens, then the host's initialize. */
  #gate: Promise<unknown>;

  constructor(
    private readonly deps: Deps,
    private readonly o: BridgeOptions,
    private readonly ports: BridgePorts,
  ) {
    this.#watch = new AuthWatch(deps);
    this.#session = new AuthorizedSession(
      {
        ...deps,
        relay: (m, stream) => this.#relay(m, stream),
        // The host bounds its requests and cancels them (notifications/cancelled aborts the POST): no deadline of ours.
        callerBounded: true,
        authorizing: () => this.#watch.begin(),
        answerInput: (method, params, signal) => this.#askHost(method, params, signal),
        presentAuthorizationUrl: async (url) => {
          this.#userAsked = true;
          await deps.presentAuthorizationUrl(url);
        },
      },
      o,
    );
    this.#resources = new ListenedResources({
      listen: async (params, signal, id) => {
        const r = await this.#session.stateless('subscriptions/listen', params, signal, id);
        if (r?.error) throw new LanyardError('protocol_error', `subscriptions/listen: ${String(r.error.message)}`);
      },
      sleep: (ms, signal) => deps.clock.sleep(ms, signal),
      notify: (line) => deps.notify?.(line),
    });
    // Stored tokens, refreshed when due; a failure here is met again (and reported) by the first 401.
    this.#gate = this.#session.start().catch((err: unknown) => deps.notify?.(`could not use the stored tokens: ${messageOf(err, o.serverUrl)}`));
  }

  async run(): Promise<void> {
    const { deps, o } = this;
    const stop = new Promise<void>((resolve) => {
      for (const s of [this.ports.stop, deps.signal]) {
        if (s?.aborted) resolve();
        s?.addEventListener('abort', () => resolve(), { once: true });
      }
    });
    await Promise.race([this.#read(), stop]);
    // A host that closed stdin listens no more: its subscription streams are closed, not waited for.
    for (const ac of this.#listening) ac.abort();
    this.#resources.close();
    // stdin's end: what is in flight is still answered; a signal: nothing more is.
    void stop.then(() => {
      for (const ac of this.#inFlight.values()) ac.abort();
    });
    await Promise.allSettled([...this.#tasks]);
    // A sign-in under way is finished, so the next start finds the tokens.
    if (this.#watch.busy && !deps.signal?.aborted) {
      deps.notify?.(`the host has gone while a sign-in to ${o.serverUrl} is under way; finishing it before exiting (a second signal stops it)`);
      await this.#watch.idle();
    }
    await this.#session.close(new AbortController().signal);
  }

  /** A message of the server's to the host (on the answer stream of the request `stream`); a stateless server's tool list changed: its schemas are read again. */
  #relay(m: JsonRpcRequestWire, stream?: string | number): void {
    if (m.method === 'notifications/tools/list_changed') this.#session.forgetTools();
    // The stream the bridge listens on for a handshake host, which knows no such notification.
    if (this.#mode === 'stateless' && m.method === 'notifications/subscriptions/acknowledged') return this.#resources.acknowledged(m.params, stream);
    this.ports.send(m);
  }

  /** The host's lines, each parsed and handed on, until stdin ends. */
  async #read(): Promise<void> {
    for await (const line of this.ports.lines) {
      if (!line.trim()) continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        this.#fail(null, BridgeErrorCode.parseError, 'Parse error: a line of stdin is not JSON');
        continue;
      }
      this.#onMessage(value);
    }
  }

  #fail(id: string | number | null, code: number, message: string, data?: unknown): void {
    this.ports.send({ jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } });
  }

  #onMessage(value: unknown): void {
    const messages = classify(value);
    if (!messages.length) return this.#fail(null, BridgeErrorCode.invalidRequest, 'Invalid Request: not a JSON-RPC 2.0 message');
    for (const { kind, message } of messages) {
      if (kind === 'request' && this.#mode === 'unknown' && speaksStateless(message)) this.#statelessHost = true;
      if (kind === 'notification') {
        if (message.method === 'notifications/cancelled') {
          const rid = (message.params as { requestId?: unknown } | undefined)?.requestId;
          const ac = typeof rid === 'string' || typeof rid === 'number' ? this.#inFlight.get(rid) : undefined;
          // The server hears of it; the host expects no answer any more.
          if (ac) queueMicrotask(() => ac.abort());
        }
      }
      const t = this.#forward(message, this.#gate);
      // What follows an initialize waits for its answer (a host writing ahead must not overtake the session).
      if (kind === 'request' && message.method === 'initialize') this.#gate = t;
      this.#tasks.add(t);
      void t.finally(() => this.#tasks.delete(t));
    }
  }

  /** Sends one host message on once `after` has settled, answering a host request with what came back (or an error). */
  #forward(m: JsonRpcRequestWire | JsonRpcResponseWire, after: Promise<unknown>): Promise<void> {
    const id = 'method' in m ? m.id : undefined;
    if (!('method' in m) || id === undefined || id === null) return this.#pass(m, after);
    return this.#request(m as HostRequest, after);
  }

  /** A host notification, or the host's answer to a request of the server's: passed on, answering nothing. */
  async #pass(m: JsonRpcRequestWire | JsonRpcResponseWire, after: Promise<unknown>): Promise<void> {
    try {
      await after;
      const statelessServer = this.#mode === 'stateless' || this.#mode === 'passthrough' || (this.#statelessHost && this.#mode === 'unknown');
      if (statelessServer || (!('method' in m) && m.id !== null && this.#asked.has(String(m.id)))) {
        // The host's answer to an input request; a stateless server takes no notifications (cancellation closes the stream).
        if (!('method' in m)) this.#asked.get(String(m.id))?.(m);
        return;
      }
      // The session's initialize has sent it already.
      if ('method' in m && m.method === 'notifications/initialized' && this.#initialized) return;
      await this.#session.send(m);
    } catch (err) {
      this.deps.notify?.(`could not pass on ${'method' in m ? m.method : `the answer to ${String(m.id)}`}: ${messageOf(err, this.o.serverUrl)}`);
    }
  }

  /** A host request: answered with the server's answer, or with an error when it fails or waits on a sign-in too long. */
  async #request(req: HostRequest, after: Promise<unknown>): Promise<void> {
    const ac = new AbortController();
    // The sign-in watch, ended once answered or cancelled. Neither AbortSignal.any() (its signals are held through
    // weak references, which young-generation collections keep) nor a second controller aborted at the end of each
    // call (on Node 20 an abort left its objects for the next full collection): docs/bridge.md, Memory.
    const watch = this.#watch.overdue(this.o.signInWaitMs);
    const cancelled = () => watch.cancel();
    ac.signal.addEventListener('abort', cancelled, { once: true });
    this.#inFlight.set(req.id, ac);
    // (A method of 2026-07-28 only.)
    const listen = req.method === 'subscriptions/listen';
    if (listen) this.#listening.add(ac);
    try {
      const answer = this.#answer(req, after, ac.signal);
      const r = await Promise.race([answer, watch.promise]);
      if (r === OVERDUE) {
        ac.abort();
        answer.catch(() => undefined);
        return this.#signInPending(req);
      }
      if (ac.signal.aborted) return;
      if (r) this.ports.send({ ...r, id: req.id });
    } catch (err) {
      if (ac.signal.aborted) return;
      this.deps.notify?.(`${req.method} failed: ${messageOf(err, this.o.serverUrl)}`);
      // A subscription stream that ends without a result ends on stdio as the revision says a server ends one.
      if (listen && !(err instanceof HttpError || err instanceof AuthRequiredError)) {
        return this.ports.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: req.id, reason: messageOf(err, this.o.serverUrl) } });
      }
      this.#fail(req.id, BridgeErrorCode.serverUnavailable, messageOf(err, this.o.serverUrl));
    } finally {
      this.#listening.delete(ac);
      ac.signal.removeEventListener('abort', cancelled);
      watch.cancel();
      if (this.#inFlight.get(req.id) === ac) this.#inFlight.delete(req.id);
    }
  }

  /** The server's answer to a host request, once `after` has settled. */
  async #answer(req: HostRequest, after: Promise<unknown>, signal: AbortSignal): Promise<JsonRpcResponseWire | undefined> {
    await after;
    if (this.#mode === 'stateless') return this.#statelessRequest(req, signal);
    if (this.#mode === 'passthrough' || (this.#mode === 'unknown' && speaksStateless(req))) return this.#passThrough(req, signal);
    if (req.method !== 'initialize') return this.#session.send(req, signal);
    return this.#initialize(req, signal);
  }

  /** A request of a host that speaks 2026-07-28 itself, as it is; a server that needs the handshake: an error that is none of that revision's. */
  async #passThrough(req: HostRequest, signal: AbortSignal): Promise<JsonRpcResponseWire> {
    const r = await this.#session.passThrough(req.method, req.params, signal);
    if (r) {
      // An error (a version the server does not speak, say) leaves the host free to fall back to initialize.
      if (!r.error && this.#mode === 'unknown') this.#mode = 'passthrough';
      return r;
    }
    this.#needsHandshake = true;
    const { serverUrl } = this.o;
    const revisions = 'it needs the initialize handshake of an older revision';
    this.deps.notify?.(`${serverUrl} does not speak 2026-07-28 (${revisions}); answered the host's ${req.method} with an error so that it sends initialize`);
    if (req.method === 'server/discover')
      return { jsonrpc: '2.0', id: req.id, error: { code: BridgeErrorCode.methodNotFound, message: 'Method not found: server/discover' } };
    return {
      jsonrpc: '2.0',
      id: req.id,
      error: {
        code: BridgeErrorCode.handshakeRequired,
        message: `${serverUrl} does not speak protocol revision 2026-07-28 (${revisions}): start with initialize`,
        data: { reason: 'handshake_required', server: serverUrl },
      },
    };
  }

  /** The host's initialize: the probe of 2026-07-28 (server/discover); a refusal that is not one of that revision's errors: the handshake. */
  async #initialize(req: HostRequest, signal: AbortSignal): Promise<JsonRpcResponseWire> {
    const host = (req.params ?? {}) as { protocolVersion?: unknown; capabilities?: unknown; clientInfo?: unknown };
    this.#session.client = {
      clientInfo: isClientInfo(host.clientInfo) ? host.clientInfo : this.o.clientInfo,
      capabilities: host.capabilities && typeof host.capabilities === 'object' ? (host.capabilities as Record<string, unknown>) : {},
    };
    this.#statelessHost = false;
    const discovered = this.#needsHandshake ? undefined : await this.#session.stateless('server/discover', undefined, signal);
    if (discovered) {
      this.#mode = 'stateless';
      // What the server promises to say unasked (list changes) comes over a subscriptions/listen stream.
      if (!discovered.error) this.#resources.lists((discovered.result as { capabilities?: unknown } | undefined)?.capabilities);
      return discovered.error ? discovered : { ...discovered, result: initializeAnswer(discovered.result, host.protocolVersion) };
    }
    this.#mode = 'session';
    const r = await this.#session.initialize(req.params);
    this.#initialized = !r.error;
    return r;
  }

  /** A host request that has waited on a sign-in for `signInWaitMs`: answered with an error while the sign-in goes on. */
  #signInPending(req: HostRequest): void {
    const { serverUrl } = this.o;
    const where = this.#userAsked ? 'in the browser (the URL is in the log above)' : 'in this or another Lanyard process';
    this.deps.notify?.(
      `answered ${req.method} with an error: the sign-in to ${serverUrl} waits for you ${where}; finish it, then try again in the host, or sign in to the server once at a terminal first`,
      { kind: 'sign-in', service: 'protocol', serverUrl },
    );
    this.#fail(
      req.id,
      BridgeErrorCode.signInPending,
      `Lanyard is waiting for you to sign in to ${serverUrl}: finish the sign-in (see this server's log in the host), then try again`,
      { reason: 'sign_in_pending', server: serverUrl },
    );
  }

  /** One host request to a stateless server; ping and logging/setLevel (gone from the revision) are answered here. */
  async #statelessRequest(req: HostRequest, signal: AbortSignal): Promise<JsonRpcResponseWire> {
    if (req.method === 'ping') return { jsonrpc: '2.0', id: req.id, result: {} };
    if (req.method === 'logging/setLevel') {
      this.#logLevel = (req.params as { level?: unknown } | undefined)?.level;
      return { jsonrpc: '2.0', id: req.id, result: {} };
    }
    if (req.method === 'resources/subscribe' || req.method === 'resources/unsubscribe') {
      // Gone from the revision: the host's subscriptions are one subscriptions/listen stream (bridge-subscriptions.ts).
      const uri = (req.params as { uri?: unknown } | undefined)?.uri;
      if (typeof uri !== 'string') return { jsonrpc: '2.0', id: req.id, error: { code: -32602, message: 'Invalid params: uri (string) is required' } };
      // A host that cancels the request stops its wait (the stream carries on for the other subscriptions).
      await (req.method === 'resources/subscribe' ? this.#resources.subscribe(uri, signal) : this.#resources.unsubscribe(uri, signal));
      return { jsonrpc: '2.0', id: req.id, result: {} };
    }
    let params = req.params;
    if (this.#logLevel !== undefined) {
      const p = params && typeof params === 'object' ? (params as Record<string, unknown>) : {};
      params = { ...p, _meta: { ...((p._meta as object | undefined) ?? {}), 'io.modelcontextprotocol/logLevel': this.#logLevel } };
    }
    const r = await this.#session.stateless(req.method, params, signal);
    if (!r) throw new LanyardError('protocol_error', `${this.o.serverUrl} stopped answering as a stateless server`);
    return r;
  }

  /** An input request of a stateless server (SEP-2322) put to the host; its answer's result (undefined: none, or cancelled). */
  #askHost(method: string, params: unknown, signal: AbortSignal | undefined): Promise<unknown> {
    return new Promise<unknown>((resolve) => {
      const id = `lanyard-input-${++this.#askedSeq}`;
      const give = (r: JsonRpcResponseWire | undefined) => {
        this.#asked.delete(id);
        signal?.removeEventListener('abort', onAbort);
        resolve(r && !r.error ? r.result : undefined);
      };
      const onAbort = () => {
        this.ports.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'the request was cancelled' } });
        give(undefined);
      };
      if (signal?.aborted) return resolve(undefined);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#asked.set(id, give);
      this.ports.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    });
  }
}
