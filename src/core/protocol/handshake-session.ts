/**
 * A session in a handshake revision (2025-03-26 to 2025-11-25) over the
 * shared AuthorizedTransport: `initialize` (offering the newest revision
 * Lanyard speaks and accepting the server's choice when Lanyard speaks it
 * too), `notifications/initialized`, the requests with the session id and
 * the version header, the session's own event stream listened to in the
 * background (session-stream.ts), a lost session recovered, DELETE to end.
 *
 * A server forgets sessions (a restart, a session TTL) many times in a
 * bridge's day. A 404 to a POST sent with the session id that is still the
 * session's starts one re-initialization for that id, which every request
 * that meets the loss meanwhile joins (twenty concurrent calls make one
 * `initialize`); requests wait for it before they go out; a 404 for an id
 * already replaced is simply sent again. Each request goes through one
 * re-initialization at most: a new session lost again at once is an error,
 * not a loop. A re-initialization that fails fails the requests sent before
 * it failed; a later request meets the 404 again and tries once more.
 *
 * The messages Lanyard sends on its own — initialize, notifications/initialized,
 * what a new session is told again — are bounded as ordinary requests even
 * when the caller bounds its own (the bridge): nobody else would end a
 * re-initialization the server never answers, and every later request waits
 * for it. Closing waits for one under way a short while, then gives it up.
 */
import { randomUUID } from 'node:crypto';
import { CancelledError, LanyardError } from '../errors.js';
import { isProtocolRevision, Protocol, type ProtocolRevision } from '../../shared/constants.js';
import type { JsonRpcRequestWire, JsonRpcResponseWire } from '../../shared/protocol.js';
import { waitFor, type AuthorizedTransport } from './authorized-transport.js';
import { rpcDelete } from './jsonrpc.js';
import { sendAnswer } from './server-answers.js';
import { listenToSession, type SessionStream } from './session-stream.js';

/** A re-initialization after the server lost the session `lost`, shared by the requests that meet the loss meanwhile. */
interface Recovery {
  readonly lost: string;
  done: Promise<void>;
  settled: boolean;
  /** Ends its exchanges (the session closes and waits for it no longer). */
  readonly cancel: AbortController;
  /** When it failed: its error, and the POSTs sent by then (they share it; later ones may try again). */
  failed?: { readonly error: unknown; readonly upTo: number };
}

/** Losses of the session one request meets (each but one for an id already replaced) before it gives up. */
const MAX_LOSSES_PER_REQUEST = 4;
/** How long closing waits for a re-initialization under way before giving it up (a bridge whose host has gone exits). */
export const CLOSE_WAIT_MS = 5000;

export class HandshakeSession {
  #initParams?: unknown;
  #listener?: SessionStream & { readonly sessionId: string };
  #recovery?: Recovery;
  /** POSTs sent so far: a request knows whether it went out before a re-initialization failed. */
  #posts = 0;
  /** Closed: a re-initialization still under way starts no stream. */
  #closed = false;
  /**
   * What the server keeps per session and a new session must be told again: the resources subscribed to
   * (by URI) and the log level — the requests that set them, as last answered without an error.
   */
  readonly #kept = new Map<string, JsonRpcRequestWire>();

  /** `defaultParams`: the params of an initialize the caller does not give (Lanyard's own). */
  constructor(
    readonly transport: AuthorizedTransport,
    readonly defaultParams: () => unknown,
  ) {}

  /** initialize + notifications/initialized; checks the version the server chose. */
  initialize(params?: unknown): Promise<JsonRpcResponseWire> {
    this.#closed = false;
    return this.#initialize(params ?? this.defaultParams(), false);
  }

  /** `recovering`: the re-initialization of a lost session (its messages neither wait for it nor recover; `signal` ends them). */
  async #initialize(params: unknown, recovering: boolean, signal?: AbortSignal): Promise<JsonRpcResponseWire> {
    const { state, o } = this.transport;
    this.#initParams = params;
    state.sessionId = undefined;
    state.revision = undefined;
    const init = (await this.#call({ jsonrpc: '2.0', id: randomUUID(), method: 'initialize', params }, signal, recovering, true))!;
    if (init.error) return init;
    const v = (init.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    if (!isProtocolRevision(v)) {
      // (A re-initialization fails instead: closing would wait for itself.)
      if (!recovering) await this.close();
      throw new LanyardError(
        'protocol_error',
        `${o.serverUrl} answered initialize with protocol version ${typeof v === 'string' ? JSON.stringify(v) : 'none'} (field result.protocolVersion); Lanyard speaks ${Protocol.revisions.join(', ')}`,
      );
    }
    state.revision = v;
    await this.#call({ jsonrpc: '2.0', method: 'notifications/initialized' }, signal, recovering, true);
    if (state.sessionId) this.#listen(state.sessionId);
    return init;
  }

  /** Listens to the stream of the session `sessionId` (once), in place of an earlier session's. */
  #listen(sessionId: string): void {
    if (this.#closed || this.#listener?.sessionId === sessionId) return;
    this.#listener?.stop();
    this.#listener = { sessionId, ...listenToSession(this.transport, sessionId, () => this.#streamLost(sessionId)) };
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
    this.#closed = true;
    const r = this.#recovery;
    if (r && !r.settled) await this.#giveUp(r, signal);
    for (let l = this.#listener; l; l = this.#listener) {
      l.stop();
      await l.done;
      if (this.#listener === l) this.#listener = undefined;
    }
    const { state, deps, o } = this.transport;
    if (!state.sessionId) return;
    try {
      await rpcDelete(deps.http, o.serverUrl, signal ? { ...state, signal } : state);
    } catch {
      /* the answer is already in hand */
    }
    state.sessionId = undefined;
  }

  /** Waits for the re-initialization `r` at most CLOSE_WAIT_MS (less when `signal` aborts), then ends it. */
  async #giveUp(r: Recovery, signal: AbortSignal | undefined): Promise<void> {
    const timer = new AbortController();
    const bound = this.transport.deps.clock.sleep(CLOSE_WAIT_MS, timer.signal).catch(() => undefined);
    await waitFor(Promise.race([r.done, bound]), signal).catch(() => undefined);
    timer.abort();
    if (!r.settled) r.cancel.abort(new CancelledError(`closing the session: gave up the new session with ${this.transport.o.serverUrl}`));
  }

  /** `own`: a message Lanyard sends on its own (bounded as any request, whoever bounds the others). */
  async #call(
    message: JsonRpcRequestWire | JsonRpcResponseWire,
    signal?: AbortSignal,
    recovering = false,
    own = recovering,
  ): Promise<JsonRpcResponseWire | undefined> {
    const { transport } = this;
    const method = 'method' in message ? message.method : undefined;
    const withSignal = transport.stateWith(signal);
    const stateNow = own ? () => ({ ...withSignal(), own: true }) : withSignal;
    // The session id the POST went out with (the last one sent, after a sign-in on the way).
    let sentWith: string | undefined;
    const sending = () => {
      const s = stateNow();
      sentWith = s.sessionId;
      return s;
    };
    let recovered = false;
    for (let losses = 0; ; losses++) {
      if (!recovering) await this.#pastRecovery(signal);
      const seq = ++this.#posts;
      const post = () => transport.post(message, undefined, sending);
      // An answer to a server's request (the bridge's host answering sampling, roots, elicitation) is sent again when the network fails it.
      const what = `the answer to the server's request ${String(message.id)}`;
      const resend = { clock: transport.deps.clock, signal: stateNow().signal, serverUrl: transport.o.serverUrl, what };
      const res = method === undefined ? await sendAnswer(post, resend) : await post();
      if (res.status === 404 && sentWith !== undefined && method !== 'initialize') {
        await res.dump();
        if (recovering || losses >= MAX_LOSSES_PER_REQUEST) throw this.#lostAgain();
        // A response to a request of the lost session: nobody there waits for it any more.
        if (method === undefined) return undefined;
        recovered = await this.#afterLoss(sentWith, seq, recovered, signal);
        // The new session's initialize already sent this one.
        if (method === 'notifications/initialized') return undefined;
        continue;
      }
      if (res.status < 200 || res.status > 299) throw await transport.refused(res);
      if (message.id === undefined || message.id === null || method === undefined) {
        await res.dump();
        return undefined;
      }
      const answer = await transport.answerOf(res, message.id, stateNow);
      if (!answer.error) this.#keep(message as JsonRpcRequestWire);
      return answer;
    }
  }

  /** Keeps a subscription, an unsubscription or a log level the server took (sent again in a new session). */
  #keep(m: JsonRpcRequestWire): void {
    const uri = (m.params as { uri?: unknown } | undefined)?.uri;
    if (m.method === 'logging/setLevel') this.#kept.set(m.method, m);
    else if (m.method === 'resources/subscribe' && typeof uri === 'string') this.#kept.set(`resource ${uri}`, m);
    else if (m.method === 'resources/unsubscribe' && typeof uri === 'string') this.#kept.delete(`resource ${uri}`);
  }

  /** Tells a new session what the lost one had been told (subscriptions, the log level); what it refuses is said on stderr. */
  async #restore(signal: AbortSignal): Promise<void> {
    const { deps, o } = this.transport;
    const sent = [...this.#kept.values()].map(async (m) => {
      const r = await this.#call({ ...m, id: randomUUID() }, signal, true).catch((e: unknown) => ({ error: { message: String(e) } }));
      if (r?.error) deps.notify?.(`${o.serverUrl} refused ${m.method} in the new session: ${r.error.message}`);
    });
    await Promise.all(sent);
  }

  /** Waits for the re-initialization under way, if any (its failure is this request's too). */
  async #pastRecovery(signal: AbortSignal | undefined): Promise<void> {
    for (let r = this.#recovery; r && !r.settled; r = this.#recovery) await waitFor(r.done, signal);
  }

  /**
   * After a 404 to a POST (the `seq`th) sent with the session `lost`: joins
   * the re-initialization of `lost` under way, or starts it when `lost` is
   * still the session; an id already replaced is just sent again. True once
   * the request went through a re-initialization (`recovered`: it already
   * had, and may not again).
   */
  async #afterLoss(lost: string, seq: number, recovered: boolean, signal: AbortSignal | undefined): Promise<boolean> {
    const r = this.#recovery;
    if (r?.lost === lost && r.failed && seq <= r.failed.upTo) throw r.failed.error;
    const joining = r?.lost === lost && !r.settled;
    if (!joining && this.transport.state.sessionId !== lost) return recovered;
    if (recovered) throw this.#lostAgain();
    await waitFor(joining ? r.done : this.#recover(lost), signal);
    return true;
  }

  /** The session's stream met a 404: the session `lost` recovers (once, shared) when it is still the session. */
  #streamLost(lost: string): Promise<void> {
    const r = this.#recovery;
    if (r?.lost === lost && !r.settled) return r.done.catch(() => undefined);
    if (this.#closed || this.transport.state.sessionId !== lost) return Promise.resolve();
    return this.#recover(lost).catch(() => undefined);
  }

  /** Starts the one re-initialization after the loss of `lost`; when it fails, the session stays `lost` (a later 404 tries again). */
  #recover(lost: string): Promise<void> {
    const { transport } = this;
    const { state } = transport;
    const revision = state.revision;
    transport.deps.notify?.(`${transport.o.serverUrl} no longer knows the session; starting a new one`);
    const r: Recovery = { lost, settled: false, done: Promise.resolve(), cancel: new AbortController() };
    const run = async () => {
      const init = await this.#initialize(this.#initParams, true, r.cancel.signal);
      if (init.error) throw new LanyardError('rpc_error', `initialize failed: server error ${init.error.code}: ${init.error.message}`);
      await this.#restore(r.cancel.signal);
    };
    r.done = run().then(
      () => {
        r.settled = true;
      },
      (error: unknown) => {
        r.settled = true;
        throw this.#failed(r, error, revision);
      },
    );
    this.#recovery = r;
    // Nobody may be waiting (a loss the stream found): its failure is kept in `failed`, not unhandled.
    r.done.catch(() => undefined);
    return r.done;
  }

  /** Records a failed re-initialization; later requests go out with the lost session again (their 404 tries once more). */
  #failed(r: Recovery, error: unknown, revision: ProtocolRevision | undefined): unknown {
    r.failed = { error, upTo: this.#posts };
    this.transport.state.sessionId = r.lost;
    this.transport.state.revision = revision;
    return error;
  }

  #lostAgain(): LanyardError {
    return new LanyardError('session_expired', `${this.transport.o.serverUrl} lost the new session too (HTTP 404); run the command again`);
  }
}
