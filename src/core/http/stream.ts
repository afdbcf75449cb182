/**
 * The streaming transport, for large downloads (requestStream): node:http(s),
 * whose native parser hands socket buffers over without copies. Same
 * timeouts and error mapping as the request transport.
 */
import type { Agent as HttpAgent, IncomingMessage } from 'node:http';
import { parseRateLimitHeaders } from '../ratelimit/headers.js';
import { mapError } from './errors.js';
import { flattenHeaders, type PreparedRequest } from './pipeline.js';
import type { Transport } from './transport.js';
import type { HttpResponse, RequestSpec, Timeouts } from './types.js';

export class NodeHttpTransport implements Transport {
  /** Keep-alive agents, by protocol. */
  readonly #agents = new Map<string, HttpAgent>();

  constructor(private readonly maxSockets: number) {}

  async send(req: PreparedRequest, spec: RequestSpec, d: Timeouts): Promise<HttpResponse> {
    const { method, url, headers, body } = req;
    const t = {
      connectMs: spec.timeouts?.connectMs ?? d.connectMs,
      headersMs: spec.timeouts?.headersMs ?? d.headersMs,
      bodyMs: spec.timeouts?.bodyMs ?? d.bodyMs,
    };
    const mod = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
    let agent = this.#agents.get(url.protocol);
    if (!agent) this.#agents.set(url.protocol, (agent = new mod.Agent({ keepAlive: true, maxSockets: this.maxSockets })));
    let raw: IncomingMessage;
    try {
      raw = await new Promise<IncomingMessage>((resolve, reject) => {
        const req = mod.request(url, { method, headers, agent, signal: spec.signal });
        const fail = (code: string, what: string) => req.destroy(Object.assign(new Error(`${what} timeout`), { code }));
        let timer = setTimeout(() => fail('UND_ERR_CONNECT_TIMEOUT', 'connect'), t.connectMs);
        req.once('socket', (socket) => {
          const awaitHeaders = () => {
            clearTimeout(timer);
            timer = setTimeout(() => fail('UND_ERR_HEADERS_TIMEOUT', 'headers'), t.headersMs);
          };
          if (socket.connecting) socket.once('connect', awaitHeaders);
          else awaitHeaders();
        });
        req.once('response', (r) => {
          clearTimeout(timer);
          // Idle timeout between body chunks, like undici's bodyTimeout.
          const socket = r.socket;
          const idle = () => r.destroy(Object.assign(new Error('body timeout'), { code: 'UND_ERR_BODY_TIMEOUT' }));
          socket.setTimeout(t.bodyMs, idle);
          // The socket may go back to the pool: no timer, no listener left on it.
          r.once('close', () => socket.setTimeout(0, idle));
          resolve(r);
        });
        req.once('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
        if (body === undefined || typeof body === 'string' || body instanceof Uint8Array) req.end(body);
        else
          void import('node:stream/promises')
            .then(({ pipeline }) => pipeline(body as AsyncIterable<Uint8Array>, req))
            .catch((err: unknown) => req.destroy(err as Error));
      });
    } catch (err) {
      throw mapError(err, method, url.toString(), spec.signal);
    }
    return wrapNative(raw, url.toString(), method, spec.signal);
  }

  async close(): Promise<void> {
    for (const a of this.#agents.values()) a.destroy();
  }
}

function wrapNative(raw: IncomingMessage, url: string, method: string, signal?: AbortSignal): HttpResponse {
  const headers = flattenHeaders(raw.headers);
  const read = async (): Promise<Buffer> => {
    try {
      const chunks: Buffer[] = [];
      for await (const c of raw) chunks.push(c as Buffer);
      return Buffer.concat(chunks);
    } catch (err) {
      // node:http reports a body cut short as "aborted" (ECONNRESET).
      throw mapError(err, method, url, signal, 'body');
    }
  };
  return {
    status: raw.statusCode ?? 0,
    headers,
    url,
    rateLimit: parseRateLimitHeaders(headers),
    body: raw,
    text: async () => (await read()).toString('utf8'),
    json: async <T>() => JSON.parse((await read()).toString('utf8')) as T,
    bytes: async () => new Uint8Array(await read()),
    dump: async () => {
      if (raw.readableEnded || raw.destroyed) return;
      await new Promise<void>((r) => {
        for (const e of ['end', 'close', 'error']) raw.once(e, () => r());
        raw.resume();
      });
    },
  };
}
