/**
 * The session's own event stream (GET) in a handshake revision: servers send
 * there what belongs to no particular call — resource updates, list_changed
 * notifications, requests from inside a tool. It is kept open for the life of
 * the session, as the protocol SDK's client keeps it:
 * - no total deadline, only an idle bound (a connection that went dead while
 *   a laptop slept is noticed; servers send keep-alive comments well inside it);
 * - an end, a network failure, 5xx, 408 or 429 is followed by a new GET (with
 *   `Last-Event-ID` when the server gave event ids), after the server's
 *   `retry` (or `Retry-After`) or a backoff that grows on failures and starts
 *   again after a connection that was served;
 * - it stops on 405 (the server offers no such stream), an answer that is not
 *   an event stream, or 404 — a session lost once the stream was served is
 *   reported (`onLost`: the session recovers), a 404 to the first GET is a
 *   server without the stream — and when the session closes;
 * - any other 4xx stops it with one line on stderr (servers refuse the GET
 *   with 400 or 406 as often as with 405: asking again changes nothing) —
 *   its lines go through `sessionStreamNotice` when given (a one-off call's
 *   are silent);
 * - a 401 `use_dpop_nonce` with a new DPoP nonce is asked again with it
 *   (after the backoff: a server that hands out a new one every time is no
 *   busy loop);
 * - 401 or 403 pauses it, with one line, until the session has another token
 *   (a call signed in again or widened its scope): the GET never signs in
 *   itself (no browser opened, no refresh, behind no call), and an idle
 *   bridge with an expired token sends nothing meanwhile;
 * - a 401 or 403 of another origin a redirect led the GET to stops it with
 *   one line: no token went there (HttpError.otherOrigin), so neither a new
 *   token nor another try changes that answer.
 * Which statuses ask to come back later (5xx, 408, 429) is decided in one
 * place for this stream and a request's resumption (jsonrpc.ts,
 * asksAgainLater); the rest differs: a resumption refreshes on a 401 and
 * steps up on a 403 insufficient_scope itself, fails on a 404 or another 4xx.
 */
import type { Timeouts } from '../http/types.js';
import { parseRetryAfter } from '../ratelimit/headers.js';
import type { AuthorizedTransport, StreamCursor } from './authorized-transport.js';
import { HttpError } from '../errors.js';
import { nonceAsked } from './dpop.js';
import { asksAgainLater, isEventStream, rpcGet } from './jsonrpc.js';
import { AnswerNotSentError } from './server-answers.js';

/** Idle time allowed between two chunks of the stream (servers' keep-alive comments come every 15 to 30 s). */
export const SESSION_STREAM_IDLE_MS = 90_000;
/**
 * The bounds of the stream's GET: the idle bound for its head (servers send it at once) and between
 * chunks, no total deadline. A GET that meets a bound is reconnected like any other end.
 */
const STREAM_TIMEOUTS: Partial<Timeouts> = { headersMs: SESSION_STREAM_IDLE_MS, bodyMs: SESSION_STREAM_IDLE_MS, totalMs: 0 };
/** The reconnection backoff without a server's `retry`: 1 s, growing 1.5 times a failure, at most 30 s (the SDK's). */
export const RECONNECT = { firstMs: 1000, growth: 1.5, maxMs: 30_000 } as const;
/** The shortest wait honoured of a server's `retry` (a `retry: 0` with a stream that closes at once is no busy loop). */
const RETRY_FLOOR_MS = 100;
/** StreamCursor.retryMs until the server names one. */
const NO_RETRY = -1;
/** The longest `Retry-After` honoured as it is (a server's hour-long one is not a day). */
const RETRY_AFTER_MAX_MS = 3_600_000;

type Attempt = 'served' | 'failed' | 'lost' | 'unknown-event' | 'refused' | 'unauthorized' | 'none';

/** How one GET ended: the answer's status (and why, when the HTTP client refused it), its `Retry-After` (ms), the token it went with. */
interface Outcome {
  readonly kind: Attempt;
  readonly status?: number;
  readonly why?: string;
  readonly retryAfterMs?: number;
  readonly token?: string;
}

export interface SessionStream {
  stop(): void;
  readonly done: Promise<void>;
}

/** Listens to the stream of `sessionId` in the background until stopped; `onLost` when the server lost the session. */
export function listenToSession(t: AuthorizedTransport, sessionId: string, onLost: () => Promise<void>): SessionStream {
  const ac = new AbortController();
  const signal = t.deps.signal ? AbortSignal.any([t.deps.signal, ac.signal]) : ac.signal;
  const run = async () => {
    const cursor: StreamCursor = { retryMs: NO_RETRY, reconnects: 0 };
    let failures = 0;
    let served = false;
    const say = (line: string) => (t.deps.sessionStreamNotice ? t.deps.sessionStreamNotice(line) : t.deps.notify?.(line));
    while (!signal.aborted) {
      const { kind, status, why, retryAfterMs, token } = await attempt(t, sessionId, cursor, signal);
      if (signal.aborted || kind === 'none') return;
      if (kind === 'lost') return served ? onLost() : undefined;
      if (kind === 'refused') return void say(`${t.o.serverUrl} refused the session's event stream (${why ?? `GET: HTTP ${status}`}); ${UNHEARD}`);
      if (kind === 'unauthorized') {
        say(`${t.o.serverUrl} refused the session's event stream (GET: HTTP ${status}); it is opened again once a call signs in`);
        await anotherToken(t, token, signal);
        failures = 0;
        continue;
      }
      if (kind === 'unknown-event') {
        // The server no longer has the event: the stream goes on from now.
        cursor.lastEventId = undefined;
        continue;
      }
      if (kind === 'served') (served = true), (failures = 0);
      else failures++;
      const delay = reconnectDelay(cursor.retryMs, failures);
      await t.deps.clock.sleep(Math.max(delay, Math.min(retryAfterMs ?? 0, RETRY_AFTER_MAX_MS)), signal);
    }
  };
  return { stop: () => ac.abort(), done: run().catch(() => undefined) };
}

/** What a stopped stream means for the user. */
const UNHEARD = 'what the server sends on its own (resource updates, list changes) is not heard in this session';

/** Waits, sending nothing, until the session has a token other than `refused` (checked at the longest backoff). */
async function anotherToken(t: AuthorizedTransport, refused: string | undefined, signal: AbortSignal): Promise<void> {
  while (!signal.aborted && t.state.accessToken === refused) await t.deps.clock.sleep(RECONNECT.maxMs, signal);
}

/** The wait before the next GET: the server's `retry` after a served stream, at least the backoff after failures. */
export function reconnectDelay(retryMs: number, failures: number): number {
  const backoff = Math.min(RECONNECT.firstMs * RECONNECT.growth ** Math.max(failures - 1, 0), RECONNECT.maxMs);
  const named = retryMs === NO_RETRY ? undefined : Math.max(retryMs, RETRY_FLOOR_MS);
  if (failures === 0) return named ?? backoff;
  return Math.max(named ?? 0, backoff);
}

/** One GET of the stream, read to its end. */
async function attempt(t: AuthorizedTransport, sessionId: string, cursor: StreamCursor, signal: AbortSignal): Promise<Outcome> {
  const token = t.state.accessToken;
  const nonceSent = t.state.dpop?.nonces.get(t.o.serverUrl);
  let res: Awaited<ReturnType<typeof rpcGet>>;
  try {
    res = await rpcGet(t.deps.http, t.o.serverUrl, { ...t.state, sessionId, signal }, cursor.lastEventId, STREAM_TIMEOUTS);
  } catch (err) {
    // The HTTP client's own refusal of an answer (a 401 or 403 of another origin a redirect led to, sent
    // without the token: HttpError.otherOrigin) is no failure another GET mends, nor one a token would.
    if (err instanceof HttpError) return { kind: 'refused', status: err.status, why: err.message };
    return { kind: 'failed' };
  }
  const { status } = res;
  const ok = status >= 200 && status <= 299;
  // A DPoP nonce asked for is no refused token: asked again with it.
  const nonce = nonceAsked(t.state.dpop, res, t.o.serverUrl, nonceSent);
  if (!ok || !isEventStream(res)) {
    await res.dump().catch(() => undefined);
    if (status === 405 || ok) return { kind: 'none' };
    if (status === 404) return { kind: cursor.lastEventId === undefined ? 'lost' : 'unknown-event' };
    if (nonce) return { kind: 'failed' };
    if (status === 401 || status === 403) return { kind: 'unauthorized', status, token };
    if (status >= 400 && status <= 499 && !asksAgainLater(status)) return { kind: 'refused', status };
    return { kind: 'failed', retryAfterMs: parseRetryAfter(res.headers['retry-after'], t.deps.clock.now()) };
  }
  try {
    await t.drain(res, cursor);
  } catch (err) {
    // Cut, idle, or an event too long: the stream is opened again. A server's request whose answer could not be sent is said.
    if (err instanceof AnswerNotSentError) t.deps.notify?.(err.message);
  }
  return { kind: 'served' };
}
