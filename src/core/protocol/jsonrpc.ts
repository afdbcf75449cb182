/**
 * JSON-RPC 2.0 over the protocol's HTTP transport: POST with
 * `Accept: application/json, text/event-stream`; the answer is a JSON body or
 * an event stream in which the response with our id is found.
 */
import type { HttpClient, HttpResponse } from '../http/client.js';
import { LanyardError } from '../errors.js';
import { Protocol } from '../../shared/constants.js';
import type { JsonRpcRequestWire, JsonRpcResponseWire } from '../../shared/protocol.js';

export function rpcPost(
  http: HttpClient,
  url: string,
  message: JsonRpcRequestWire,
  o: { accessToken?: string; sessionId?: string; signal?: AbortSignal },
): Promise<HttpResponse> {
  const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
  if (o.sessionId) headers[Protocol.sessionHeader] = o.sessionId;
  return http.request({
    method: 'POST',
    url,
    json: message,
    headers,
    credential: o.accessToken ? { scheme: 'bearer', token: o.accessToken } : { scheme: 'none' },
    signal: o.signal,
    okStatus: () => true,
    streamResponse: true,
    retry: false,
  });
}

/** Session id of a reply, when the server assigned one. */
export function sessionIdOf(res: HttpResponse): string | undefined {
  return res.headers[Protocol.sessionHeader.toLowerCase()] || undefined;
}

/** Reads the response to request `id` from a 2xx reply (JSON or event stream). */
export async function processRpcResponse(res: HttpResponse, id: string | number): Promise<JsonRpcResponseWire> {
  const ct = (res.headers['content-type'] ?? '').toLowerCase();
  if (ct.startsWith('text/event-stream')) {
    const found = await firstMatchingEvent(res, id);
    if (!found) throw new LanyardError('protocol_error', `the event stream from ${res.url} ended without a response to request ${id}`);
    return found;
  }
  const text = await res.text();
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new LanyardError('protocol_error', `${res.url} answered HTTP ${res.status} with a body that is not JSON`);
  }
  const list = Array.isArray(v) ? v : [v];
  const m = list.find((x) => isResponse(x) && x.id === id);
  if (!m) throw new LanyardError('protocol_error', `${res.url} answered without a JSON-RPC response to request ${id}`);
  return m as JsonRpcResponseWire;
}

function isResponse(x: unknown): x is JsonRpcResponseWire {
  return !!x && typeof x === 'object' && (x as JsonRpcResponseWire).jsonrpc === '2.0' && ('result' in x || 'error' in x);
}

/** Parses server-sent events as they arrive; stops (closing the stream) at the first response with our id. */
async function firstMatchingEvent(res: HttpResponse, id: string | number): Promise<JsonRpcResponseWire | undefined> {
  let buf = '';
  const decoder = new TextDecoder();
  const check = (block: string): JsonRpcResponseWire | undefined => {
    const data = block
      .split(/\r?\n/)
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).replace(/^ /, ''))
      .join('\n');
    if (!data) return undefined;
    try {
      const v = JSON.parse(data) as unknown;
      const list = Array.isArray(v) ? v : [v];
      return list.find((x): x is JsonRpcResponseWire => isResponse(x) && x.id === id);
    } catch {
      return undefined;
    }
  };
  try {
    for await (const chunk of res.body) {
      buf += typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array, { stream: true });
      let sep: RegExpExecArray | null;
      while ((sep = /\r?\n\r?\n/.exec(buf))) {
        const block = buf.slice(0, sep.index);
        buf = buf.slice(sep.index + sep[0].length);
        const hit = check(block);
        if (hit) return hit;
      }
    }
    return check(buf);
  } finally {
    res.body.destroy();
  }
}
