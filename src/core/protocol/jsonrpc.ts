/**
 * JSON-RPC 2.0 over the protocol's streamable HTTP transport: POST with
 * `Accept: application/json, text/event-stream` (the answer is a JSON body or
 * an event stream), GET with `Last-Event-ID` to resume a stream, DELETE to end
 * a session. Every request after `initialize` carries the session id and the
 * negotiated version in the header its revision defines; in a stateless
 * revision every request carries the version (stateless.ts adds the rest).
 */
import type { HttpClient, HttpResponse } from '../http/client.js';
import { LanyardError } from '../errors.js';
import { Protocol, protocolVersionHeader, type ProtocolRevision } from '../../shared/constants.js';
import type { JsonRpcRequestWire, JsonRpcResponseWire } from '../../shared/protocol.js';
import type { RequestSpec, Timeouts } from '../http/types.js';
import type { DpopProver } from './dpop.js';

export interface TransportState {
  accessToken?: string;
  /** The signer of a DPoP-bound access token (RFC 9449): every request carries a fresh proof. */
  dpop?: DpopProver;
  sessionId?: string;
  /** The negotiated revision (undefined until initialize answered). */
  revision?: ProtocolRevision;
  signal?: AbortSignal;
  /**
   * The caller bounds and cancels each message's wait itself (the bridge: its
   * host's own timeouts and `notifications/cancelled`, which aborts the
   * request): no request deadline, only the idle bound of an answer's body.
   * Otherwise the HTTP client's deadline (`--timeout`, default 5 min) bounds
   * each exchange, the wait for the answer's head included.
   */
  callerBounded?: boolean;
  /**
   * A message Lanyard sends on its own, not on a caller's behalf (initialize,
   * notifications/initialized, what a new session is told again): bounded as
   * any request whatever `callerBounded` says — the HTTP client's bound for a
   * head (30 s) and its request deadline — for no caller would end its wait.
   */
  own?: boolean;
}

/** A stream may be quiet for this long (a server waiting on a slow tool or on our answer to a prompt). */
const STREAM_IDLE_MS = 300_000;
/**
 * No bound of its own on the answer's head: a tool may work for minutes before
 * it answers with JSON. The longest a timer waits (24.8 days) stands for none;
 * the request deadline or the caller's signal is what ends such a wait.
 */
const NO_HEAD_BOUND_MS = 2 ** 31 - 1;

/** The bounds of a protocol exchange: connect as usual; head and total as the caller says (Lanyard's own: the client's); the body's idle bound. */
function protocolTimeouts(s: Pick<TransportState, 'callerBounded' | 'own'>): RequestSpec['timeouts'] {
  if (s.own) return { bodyMs: STREAM_IDLE_MS };
  return s.callerBounded ? { headersMs: NO_HEAD_BOUND_MS, bodyMs: STREAM_IDLE_MS, totalMs: 0 } : { headersMs: NO_HEAD_BOUND_MS, bodyMs: STREAM_IDLE_MS };
}

function headers(s: TransportState, accept: string): Record<string, string> {
  const h: Record<string, string> = { accept };
  if (s.sessionId) h[Protocol.sessionHeader] = s.sessionId;
  if (s.revision) h[protocolVersionHeader(s.revision)] = s.revision;
  return h;
}

/**
 * The token of a request: a bearer one as it is; a DPoP-bound one as a
 * provider whose proof the HTTP client makes for each exchange, once its URL
 * is final (a followed redirect gets a proof of its own URL). Its 401s, and
 * the nonces, are the session's to handle: the provider neither refreshes nor
 * asks for a request to be sent again.
 */
function credential(s: TransportState): Pick<RequestSpec, 'credential' | 'auth'> {
  const { accessToken: token, dpop } = s;
  if (!token) return { credential: { scheme: 'none' } };
  if (!dpop) return { credential: { scheme: 'bearer', token } };
  return { auth: { source: 'protocol', perRequest: true, credential: (r) => dpop.credential(token, r) } };
}

/** The common part of the transport's streamed requests. */
function streamed(s: TransportState, accept: string) {
  return {
    headers: headers(s, accept),
    ...credential(s),
    signal: s.signal,
    okStatus: () => true,
    streamResponse: true,
    retry: false,
    timeouts: protocolTimeouts(s),
  };
}

/** POSTs one message; `extra` adds headers (a stateless revision's `Mcp-*` headers). */
export async function rpcPost(
  http: HttpClient,
  url: string,
  message: JsonRpcRequestWire | JsonRpcResponseWire,
  s: TransportState,
  extra?: Record<string, string>,
): Promise<HttpResponse> {
  const spec = streamed(s, 'application/json, text/event-stream');
  return http.request({ method: 'POST', url, json: message, ...spec, headers: { ...spec.headers, ...extra } });
}

/** Resumes (or opens) the server's event stream; `lastEventId` names where the broken one stopped; `timeouts` replace the stream's bounds. */
export async function rpcGet(http: HttpClient, url: string, s: TransportState, lastEventId?: string, timeouts?: Partial<Timeouts>): Promise<HttpResponse> {
  const spec = streamed(s, 'text/event-stream');
  if (lastEventId !== undefined) spec.headers['last-event-id'] = lastEventId;
  return http.request({ method: 'GET', url, ...spec, ...(timeouts ? { timeouts: { ...spec.timeouts, ...timeouts } } : {}) });
}

/** Ends a session; a server may refuse (405) or have forgotten it (404): both are fine. */
export async function rpcDelete(http: HttpClient, url: string, s: TransportState): Promise<number> {
  const res = await http.request({
    method: 'DELETE',
    url,
    headers: headers(s, 'application/json'),
    ...credential(s),
    signal: s.signal,
    okStatus: () => true,
    retry: false,
  });
  await res.dump();
  return res.status;
}

/**
 * An answer that says "not now" (5xx, 408 Request Timeout, 429 Too Many Requests): a stream's GET so
 * answered is asked again later — a request's resumption (authorized-transport.ts) and the session's
 * own stream (session-stream.ts) alike. What they do with the other statuses differs, each in its place.
 */
export function asksAgainLater(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** The body of a refusal, parsed when it is JSON. */
export async function refusalBody(res: HttpResponse): Promise<unknown> {
  const body = await res.text().catch(() => '');
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

/** Session id of a reply, when the server assigned one. */
export function sessionIdOf(res: HttpResponse): string | undefined {
  const v = res.headers[Protocol.sessionHeader.toLowerCase()];
  // Visible ASCII only (the transport's rule); anything else is ignored rather than echoed.
  return v && /^[\x21-\x7e]+$/.test(v) ? v : undefined;
}

export function isEventStream(res: HttpResponse): boolean {
  return (res.headers['content-type'] ?? '').toLowerCase().startsWith('text/event-stream');
}

export type IncomingMessage =
  | { kind: 'response'; message: JsonRpcResponseWire }
  | { kind: 'request'; message: JsonRpcRequestWire & { id: string | number } }
  | { kind: 'notification'; message: JsonRpcRequestWire };

/** Sorts a parsed JSON-RPC value (one message or a batch) into responses, requests and notifications. */
export function classify(v: unknown): IncomingMessage[] {
  const out: IncomingMessage[] = [];
  for (const x of Array.isArray(v) ? v : [v]) {
    if (!x || typeof x !== 'object' || (x as { jsonrpc?: unknown }).jsonrpc !== '2.0') continue;
    const m = x as Record<string, unknown>;
    if (typeof m.method === 'string') {
      if (typeof m.id === 'string' || typeof m.id === 'number')
        out.push({ kind: 'request', message: m as unknown as JsonRpcRequestWire & { id: string | number } });
      else out.push({ kind: 'notification', message: m as unknown as JsonRpcRequestWire });
    } else if ('result' in m || 'error' in m) out.push({ kind: 'response', message: m as unknown as JsonRpcResponseWire });
  }
  return out;
}

/** The messages of a JSON body. */
export async function jsonMessages(res: HttpResponse): Promise<IncomingMessage[]> {
  const text = await res.text();
  try {
    return classify(JSON.parse(text));
  } catch {
    throw new LanyardError('protocol_error', `${res.url} answered HTTP ${res.status} with a body that is not JSON`);
  }
}

export interface SseEvent {
  /** The `id` field, when the event set one. */
  readonly id?: string;
  /** The `retry` field (milliseconds), when the event set one. */
  readonly retry?: number;
  /** The joined `data` lines ('' for a priming event). */
  readonly data: string;
}

/**
 * The longest event Lanyard takes from an event stream: 16 MiB of `data`
 * (and of any one line). A longer one ends the request with a protocol error
 * (exit 1) instead of growing memory without bound.
 */
export const MAX_SSE_EVENT_CHARS = 16 * 1024 * 1024;

/**
 * Server-sent events as they arrive (the HTML standard's parsing rules for the
 * fields the transport uses). Linear in the stream's length: each chunk is
 * scanned once, the unfinished line kept as pieces, never rescanned.
 */
export async function* sseEvents(res: HttpResponse, maxEventChars = MAX_SSE_EVENT_CHARS): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let data: string[] = [];
  let dataChars = 0;
  let id: string | undefined;
  let retry: number | undefined;
  let any = false;
  const tooLong = () =>
    new LanyardError('protocol_error', `${res.url} sent an event longer than ${maxEventChars / 1024 / 1024} MiB; refusing it (the stream was closed)`);
  const line = (l: string): SseEvent | undefined => {
    if (l === '') {
      const ev = any ? { id, retry, data: data.join('\n') } : undefined;
      data = [];
      dataChars = 0;
      id = undefined;
      retry = undefined;
      any = false;
      return ev;
    }
    if (l.startsWith(':')) return undefined;
    const i = l.indexOf(':');
    const field = i < 0 ? l : l.slice(0, i);
    const value = i < 0 ? '' : l.slice(i + 1).replace(/^ /, '');
    if (field === 'data') {
      dataChars += value.length + 1;
      if (dataChars > maxEventChars) throw tooLong();
      data.push(value), (any = true);
    } else if (field === 'id' && !value.includes('\0')) (id = value), (any = true);
    else if (field === 'retry' && /^\d+$/.test(value)) (retry = Number(value)), (any = true);
    return undefined;
  };
  // The unfinished line: pieces of earlier chunks, their length, and whether the last chunk ended on a CR (maybe half of CRLF).
  let pieces: string[] = [];
  let pending = 0;
  let afterCr = false;
  for await (const chunk of res.body) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array, { stream: true });
    let from = afterCr && text.startsWith('\n') ? 1 : 0;
    afterCr = false;
    const eol = /\r\n|\r|\n/g;
    eol.lastIndex = from;
    for (let m = eol.exec(text); m; m = eol.exec(text)) {
      const l = pieces.length ? pieces.join('') + text.slice(from, m.index) : text.slice(from, m.index);
      pieces = [];
      pending = 0;
      from = m.index + m[0].length;
      if (m[0] === '\r' && from === text.length) afterCr = true;
      const ev = line(l);
      if (ev) yield ev;
    }
    if (from < text.length) {
      pending += text.length - from;
      if (pending + dataChars > maxEventChars) throw tooLong();
      pieces.push(text.slice(from));
    }
  }
}
