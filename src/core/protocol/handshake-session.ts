/**
 * A session in a handshake revision (2025-03-26 to 2025-11-25) over the
 * shared AuthorizedTransport: `initialize` (offering the newest revision
 * Lanyard speaks and accepting the server's choice when Lanyard speaks it
 * too), `notifications/initialized`, the requests with the session id and
 * the version header, the session's own event stream listened to in the
 * background, a 404 for a known session re-initialized once, DELETE to end.
 */
import { randomUUID } from 'node:crypto';
import { LanyardError } from '../errors.js';
import { isProtocolRevision, Protocol } from '../../shared/constants.js';
import type { JsonRpcRequestWire, JsonRpcResponseWire } from '../../shared/protocol.js';
import { DEFAULT_RETRY_MS, MAX_RECONNECTS, type AuthorizedTransport, type StreamCursor } from './authorized-transport.js';
import { isEventStream, rpcDelete, rpcGet } from './jsonrpc.js';

export class HandshakeSession {
  #reinitialized = false;
  #initParams?: unknown;
  #listener?: { stop(): void; done: Promise<unknown> };

  /** `defaultParams`: the params of an initialize the caller does not give (Lanyard's own). */
  constructor(
    readonly transport: AuthorizedTransport,
    readonly defaultParams: () => unknown,
  ) {}

  /** initialize + notifications/initialized; checks the version the server chose. */
  async initialize(params?: unknown): Promise<JsonRpcResponseWire> {
    const { state, o } = this.transport;
    this.#initParams = params ?? this.defaultParams();
    state.sessionId = undefined;
    state.revision = undefined;
    const init = (await this.#call({ jsonrpc: '2.0', id: randomUUID(), method: 'initialize', params: this.#initParams }))!;
    if (init.error) return init;
    const v = (init.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    if (!isProtocolRevision(v)) {
      await this.close();
      throw new LanyardError(
        'protocol_error',
        `${o.serverUrl} answered initialize with protocol version ${typeof v === 'string' ? JSON.stringify(v) : 'none'} (field result.protocolVersion); Lanyard speaks ${Protocol.revisions.join(', ')}`,
      );
    }
    state.revision = v;
    await this.#call({ jsonrpc: '2.0', method: 'notifications/initialized' });
    if (state.sessionId) this.#listen();
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
    const { deps, o } = this.transport;
    const ac = new AbortController();
    const signal = deps.signal ? AbortSignal.any([deps.signal, ac.signal]) : ac.signal;
    const run = async () => {
      const cursor: StreamCursor = { retryMs: DEFAULT_RETRY_MS, reconnects: 0 };
      while (!signal.aborted) {
        const res = await rpcGet(deps.http, o.serverUrl, { ...this.transport.state, signal }, cursor.lastEventId);
        if (res.status < 200 || res.status > 299 || !isEventStream(res)) return res.dump();
        await this.transport.drain(res, cursor);
        if (cursor.lastEventId === undefined || ++cursor.reconnects > MAX_RECONNECTS) return;
        await deps.clock.sleep(cursor.retryMs, signal);
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
    const { state, deps, o } = this.transport;
    if (!state.sessionId) return;
    try {
      await rpcDelete(deps.http, o.serverUrl, signal ? { ...state, signal } : state);
    } catch {
      /* the answer is already in hand */
    }
    state.sessionId = undefined;
  }

  async #call(message: JsonRpcRequestWire | JsonRpcResponseWire, signal?: AbortSignal): Promise<JsonRpcResponseWire | undefined> {
    const { transport } = this;
    const method = 'method' in message ? message.method : undefined;
    const stateNow = transport.stateWith(signal);
    for (;;) {
      const res = await transport.post(message, undefined, stateNow);
      if (res.status === 404 && transport.state.sessionId && method !== 'initialize') {
        await res.dump();
        if (this.#reinitialized) {
          throw new LanyardError('session_expired', `${transport.o.serverUrl} lost the new session too (HTTP 404); run the command again`);
        }
        this.#reinitialized = true;
        transport.deps.notify?.(`${transport.o.serverUrl} no longer knows the session; starting a new one`);
        const init = await this.initialize(this.#initParams);
        if (init.error) throw new LanyardError('rpc_error', `initialize failed: server error ${init.error.code}: ${init.error.message}`);
        // The new session's initialize already sent this one.
        if (method === 'notifications/initialized') return undefined;
        continue;
      }
      if (res.status < 200 || res.status > 299) throw await transport.refused(res);
      if (message.id === undefined || message.id === null || method === undefined) {
        await res.dump();
        return undefined;
      }
      return transport.answerOf(res, message.id, stateNow);
    }
  }
}
