/**
 * What every session with a protocol server shares, whatever its revision:
 * the tokens and the POST that signs in on the way (a 401 refreshes or
 * authorizes and sends again once; a 403 `insufficient_scope` re-authorizes
 * with the wider scope a bounded number of times; a DPoP nonce is answered),
 * and the reading of an answer — a JSON body or an event stream, answering
 * the server's requests on it and resuming a broken stream with
 * `Last-Event-ID` after the server's `retry`.
 */
import { AuthRequiredError, HttpError, LanyardError } from '../errors.js';
import type { JsonRpcRequestWire, JsonRpcResponseWire } from '../../shared/protocol.js';
import type { HttpResponse } from '../http/client.js';
import { parseBearerChallenge } from './discovery.js';
import { DpopNonces, nonceAsked, proverOf } from './dpop.js';
import { authorize, coversScope, currentTokens, refreshTokens, renewable, unauthorizedAgain } from './flow.js';
import type { AuthorizeOptions } from './flow-options.js';
import {
  asksAgainLater,
  classify,
  isEventStream,
  jsonMessages,
  refusalBody,
  rpcGet,
  rpcPost,
  sessionIdOf,
  sseEvents,
  type IncomingMessage,
  type TransportState,
} from './jsonrpc.js';
import { broken, inputAnswer, sendAnswer } from './server-answers.js';
import type { StoredTokens } from './store.js';
import { OAuthErrorCode } from './token.js';
import type { ProtocolCallOptions, ProtocolSessionDeps } from './session-types.js';

/** A 403 insufficient_scope: the scope the challenge names, the challenge, the token and the number of the request refused (POST or resumption GET). */
interface StepUpRefusal {
  readonly scope?: string;
  readonly header?: string;
  readonly used?: string;
  readonly seq: number;
}

/** What one request's resumptions have used of their bounds: the one refresh or sign-in after a 401, the step-ups after a 403 insufficient_scope, the DPoP nonces answered. */
interface Renewals {
  refreshed: boolean;
  stepUps: number;
  nonces: number;
}

/** Where a stream stands: the last event id (for Last-Event-ID), the server's retry, reconnections since the last new event. */
export interface StreamCursor {
  lastEventId?: string;
  retryMs: number;
  reconnects: number;
}

/** Authorization attempts for one request after `insufficient_scope` (the revisions ask for a limit). */
export const MAX_STEP_UP = 2;
/**
 * Reconnections of one stream in a row that bring no new event — no message, not even a new event id (a
 * server that closes the stream on purpose primes each resumption with one, SEP-1699: it is alive).
 */
export const MAX_RECONNECTS = 5;
/** The shortest wait before a resumption, whatever the server's `retry` (a `retry: 0` with a stream that closes at once is no busy loop). */
const RESUME_FLOOR_MS = 100;
/** The reconnection delay when the server named none (the HTML standard leaves it to the client). */
export const DEFAULT_RETRY_MS = 1000;

export class AuthorizedTransport {
  readonly state: TransportState;
  authorized = false;
  #tokens?: StoredTokens;
  /**
   * The refresh, authorization or step-up under way, shared by the requests that need it meanwhile (a 401
   * joins any; a 403 insufficient_scope one whose scope covers what it needs): one flight, one outcome for all.
   */
  #authorizing?: { readonly done: Promise<void>; readonly scope?: string };
  /** POSTs and resumption GETs sent so far: a request knows whether it went out before a step-up failed. */
  #sends = 0;
  /** The last step-up that failed, and the requests sent before it did: their refusals share its error, not ask again. */
  #failedStepUp?: { readonly scope: string; readonly error: unknown; readonly upTo: number };

  readonly deps: ProtocolSessionDeps;

  constructor(
    deps: ProtocolSessionDeps,
    readonly o: ProtocolCallOptions,
  ) {
    // The DPoP nonces of the session's servers, kept through its refreshes, sign-ins and step-ups.
    this.deps = deps.dpopNonces ? deps : { ...deps, dpopNonces: new DpopNonces() };
    this.state = { signal: deps.signal, ...(deps.callerBounded ? { callerBounded: true } : {}) };
  }

  async start(): Promise<void> {
    this.#tokens = await this.#whileAuthorizing(() => currentTokens(this.deps, this.o.serverUrl));
    this.state.accessToken = this.#tokens?.accessToken;
    this.state.dpop = proverOf(this.#tokens, this.deps.clock, undefined, this.deps.dpopNonces);
  }

  async #whileAuthorizing<T>(f: () => Promise<T>): Promise<T> {
    const done = this.deps.authorizing?.();
    try {
      return await f();
    } finally {
      done?.();
    }
  }

  /** The session's state, with the signal of one message when it has its own. */
  stateWith(signal: AbortSignal | undefined): () => TransportState {
    if (!signal) return () => this.state;
    const both = this.deps.signal ? AbortSignal.any([this.deps.signal, signal]) : signal;
    return () => ({ ...this.state, signal: both });
  }

  /** POSTs a message, signing in (401) or stepping up the scope (403 insufficient_scope) and sending it again; any other answer is returned. */
  async post(
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
      const seq = ++this.#sends;
      const nonceSent = sent.dpop?.nonces.get(this.o.serverUrl);
      const res = await rpcPost(this.deps.http, this.o.serverUrl, message, sent, extra);
      if (method === 'initialize') this.state.sessionId = sessionIdOf(res);
      // RFC 9449 §9: a resource server's use_dpop_nonce 401 is answered with a proof carrying its new nonce (twice at most).
      if (nonceAsked(sent.dpop, res, this.o.serverUrl, nonceSent) && nonces < 2) {
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
          const refusal = { scope: challenge.scope, header: res.headers['www-authenticate'], used: sent.accessToken, seq };
          await this.#onInsufficientScope(refusal, stepUps++, signal);
          signal?.throwIfAborted();
          continue;
        }
      }
      return res;
    }
  }

  /** The HttpError of a refused POST. */
  async refused(res: HttpResponse): Promise<HttpError> {
    return new HttpError(res.status, 'POST', this.o.serverUrl, await refusalBody(res), res.headers);
  }

  /** The response to `id` from a JSON body or an event stream, answering server requests on the way and resuming a broken stream. */
  async answerOf(first: HttpResponse, id: string | number, stateNow: () => TransportState = () => this.state): Promise<JsonRpcResponseWire> {
    if (!isEventStream(first)) {
      const found = await this.#handle(await jsonMessages(first), id);
      if (!found) throw new LanyardError('protocol_error', `${first.url} answered without a JSON-RPC response to request ${id}`);
      return found;
    }
    let res: HttpResponse | undefined = first;
    const cursor: StreamCursor = { retryMs: DEFAULT_RETRY_MS, reconnects: 0 };
    const renewals: Renewals = { refreshed: false, stepUps: 0, nonces: 0 };
    for (;;) {
      const found = res && (await this.#drainUnbroken(res, cursor, id, stateNow));
      if (found) return found;
      // The stream ended without our response: resumable only if the server gave an event id (a server that
      // took a stateless request under an older revision's rules may still do that).
      if (cursor.lastEventId === undefined)
        throw new LanyardError('protocol_error', `the event stream from ${this.o.serverUrl} ended without a response to request ${id}`);
      if (++cursor.reconnects > MAX_RECONNECTS) {
        throw new LanyardError('protocol_error', `the event stream from ${this.o.serverUrl} broke ${MAX_RECONNECTS} times without a response to request ${id}`);
      }
      const state = stateNow();
      await this.deps.clock.sleep(Math.max(cursor.retryMs, RESUME_FLOOR_MS), state.signal);
      res = await this.#resume(state, cursor.lastEventId, renewals);
    }
  }

  /** drain(), a stream cut by the network or the idle bound counting as an end (it is resumed); undefined then. */
  async #drainUnbroken(res: HttpResponse, cursor: StreamCursor, id: string | number, stateNow: () => TransportState): Promise<JsonRpcResponseWire | undefined> {
    try {
      return await this.drain(res, cursor, id);
    } catch (err) {
      if (stateNow().signal?.aborted || !broken(err)) throw err;
      return undefined;
    }
  }

  /**
   * The GET with Last-Event-ID; undefined when another try may mend what failed: the network, an answer that
   * asks to come back later, a DPoP nonce asked for, a 401 (refresh or sign-in, once per request), a 403
   * insufficient_scope (a step-up: the POST's rules and bound). A 401 or 403 of another origin a redirect led
   * to (no token went there) is thrown by the HTTP client (HttpError.otherOrigin): no refresh, no step-up.
   */
  async #resume(state: TransportState, lastEventId: string, renewals: Renewals): Promise<HttpResponse | undefined> {
    const seq = ++this.#sends;
    const nonceSent = state.dpop?.nonces.get(this.o.serverUrl);
    let res: HttpResponse;
    try {
      res = await rpcGet(this.deps.http, this.o.serverUrl, state, lastEventId);
    } catch (err) {
      if (state.signal?.aborted || !broken(err)) throw err;
      return undefined;
    }
    // A DPoP nonce asked for: sent again with it (twice at most), as a POST is.
    const nonce = nonceAsked(state.dpop, res, this.o.serverUrl, nonceSent) && renewals.nonces++ < 2;
    if (res.status >= 200 && res.status <= 299 && isEventStream(res)) return res;
    await res.dump();
    if (asksAgainLater(res.status) || nonce) return undefined;
    const header = res.headers['www-authenticate'];
    if (res.status === 401) {
      if (renewals.refreshed) throw unauthorizedAgain(this.o.serverUrl, header);
      renewals.refreshed = true;
      await this.#on401(header, state.accessToken);
      return undefined;
    }
    const challenge = res.status === 403 ? parseBearerChallenge(header) : undefined;
    if (challenge?.error === OAuthErrorCode.insufficientScope) {
      await this.#onInsufficientScope({ scope: challenge.scope, header, used: state.accessToken, seq }, renewals.stepUps++, state.signal);
      return undefined;
    }
    throw new LanyardError('protocol_error', `resuming the event stream of ${this.o.serverUrl} (GET with Last-Event-ID) failed: HTTP ${res.status}`);
  }

  /**
   * Reads one event stream to its end (or to the response to `id`), keeping
   * the last event id and the server's retry in `cursor`, answering the
   * server's requests and passing notifications on.
   */
  async drain(res: HttpResponse, cursor: StreamCursor, id?: string | number): Promise<JsonRpcResponseWire | undefined> {
    try {
      for await (const ev of sseEvents(res)) {
        if (ev.id !== undefined && ev.id !== cursor.lastEventId) (cursor.lastEventId = ev.id), (cursor.reconnects = 0);
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
      } else if (this.deps.relay) this.deps.relay(m.message, id);
      else if (m.kind === 'notification') this.deps.onNotification?.(m.message.method, m.message.params);
      else if (m.kind === 'request') await this.#answer(m.message);
    }
    return found;
  }

  /**
   * A request from the server: elicitation is asked (or declined), ping answered, anything else is
   * method-not-found; the answer is sent again when the network fails it (server-answers.ts).
   */
  async #answer(req: JsonRpcRequestWire & { id: string | number }): Promise<void> {
    const result = await this.inputAnswer(req.method, req.params);
    const reply: JsonRpcResponseWire =
      result === undefined
        ? { jsonrpc: '2.0', id: req.id, error: { code: -32601, message: `Method not found: ${req.method}` } }
        : { jsonrpc: '2.0', id: req.id, result: result as Record<string, unknown> };
    const what = `Lanyard's answer to ${req.method}`;
    const send = () => rpcPost(this.deps.http, this.o.serverUrl, reply, this.state);
    const res = await sendAnswer(send, { clock: this.deps.clock, signal: this.state.signal, serverUrl: this.o.serverUrl, what });
    await res.dump();
    if (res.status < 200 || res.status > 299) this.deps.notify?.(`${this.o.serverUrl} refused Lanyard's answer to ${req.method} (HTTP ${res.status})`);
  }

  /** What Lanyard answers to a request of the server (elicitation asked or declined, ping), undefined when it cannot. */
  inputAnswer(method: string, params: unknown): Promise<unknown> {
    return inputAnswer(this.deps, method, params);
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
    if (this.#authorizing) return this.#authorizing.done;
    await this.#fly(undefined, async () => {
      const challenge = parseBearerChallenge(header);
      const t = this.#tokens;
      let next: StoredTokens | undefined;
      if (t && renewable(t) && (!challenge?.error || challenge.error === OAuthErrorCode.invalidToken)) {
        this.deps.notify?.('The access token was refused; refreshing it');
        next = await refreshTokens(this.deps, t);
      }
      return next ?? (await authorize(this.deps, { ...this.#authorizeOptions(this.o.scopes, challenge), insteadOf: { accessToken: used } }));
    });
  }

  /**
   * After a 403 insufficient_scope to a request (the `seq`th POST or resumption GET sent, with the token `used`): authorize
   * again with the scope it names added, once for every request that needs it meanwhile — an agent's twenty
   * concurrent calls of a tool that needs a wider scope make one sign-in, not twenty. A step-up under way that
   * asks for the scope is joined; one that does not is waited out first; a token got since `used` that has the
   * scope is used as it is. When the step-up fails, the requests that were sent before it failed fail with its
   * error (the user is not asked once per call); later ones may try again. `signal` stops this request's wait,
   * not the shared sign-in.
   */
  async #onInsufficientScope(r: StepUpRefusal, stepUps: number, signal?: AbortSignal): Promise<void> {
    const { scope, used } = r;
    if (stepUps >= MAX_STEP_UP || !scope) {
      throw new AuthRequiredError(`${this.o.serverUrl} refused the request: insufficient scope${scope ? ` (needs "${scope}")` : ''}`, {
        ...(scope ? { remedy: { kind: 'sign-in', service: 'protocol', serverUrl: this.o.serverUrl, scopes: scope } } : {}),
        service: 'protocol',
      });
    }
    for (let flight = this.#authorizing; flight; flight = this.#authorizing) {
      if (flight.scope !== undefined && coversScope(flight.scope, scope)) return waitFor(flight.done, signal);
      await waitFor(
        flight.done.catch(() => undefined),
        signal,
      );
    }
    if (this.state.accessToken !== used && coversScope(this.#tokens?.scope, scope)) return;
    const failed = this.#failedStepUp;
    if (failed && r.seq <= failed.upTo && coversScope(failed.scope, scope)) throw failed.error;
    const wider = unionScopes(this.#tokens?.scope, scope);
    this.deps.notify?.(`The server needs the scope "${scope}"; authorizing again with "${wider}"`);
    const options = this.#authorizeOptions(wider, { ...parseBearerChallenge(r.header), scope: wider });
    const done = this.#fly(wider, () => authorize(this.deps, { ...options, insteadOf: { accessToken: used, scope: wider } }));
    done.catch((error: unknown) => {
      this.#failedStepUp = { scope: wider, error, upTo: this.#sends };
    });
    await waitFor(done, signal);
  }

  /** Runs one refresh, authorization or step-up as the flight the requests that need it share; its tokens are used. */
  #fly(scope: string | undefined, get: () => Promise<StoredTokens>): Promise<void> {
    const done = this.#whileAuthorizing(get)
      .then((t) => this.#use(t))
      .finally(() => {
        if (this.#authorizing?.done === done) this.#authorizing = undefined;
      });
    this.#authorizing = { done, scope };
    return done;
  }

  #use(t: StoredTokens): void {
    this.#tokens = t;
    this.state.accessToken = t.accessToken;
    this.state.dpop = proverOf(t, this.deps.clock, this.state.dpop, this.deps.dpopNonces);
    this.authorized = true;
  }
}

/** `p`, or the abort of `signal` (the caller stops waiting; `p` goes on for the others). */
export function waitFor<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p;
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export function unionScopes(...lists: Array<string | undefined>): string {
  const out: string[] = [];
  for (const l of lists) for (const s of (l ?? '').split(/\s+/)) if (s && !out.includes(s)) out.push(s);
  return out.join(' ');
}
