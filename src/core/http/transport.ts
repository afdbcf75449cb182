/**
 * The one transport: node:http(s) with keep-alive agents (HTTP/1.1).
 *
 * Node's own HTTP stack, not undici: its native parser hands socket buffers
 * over without copies (the mailbox downloads measured faster with it than
 * with undici), it needs no WebAssembly compile at start-up, and it is part
 * of Node — nothing to bundle, pin or patch.
 *
 * Bounds of one exchange: a connect timeout, a timeout for the response
 * head, an idle timeout between body chunks, and a total deadline from the
 * first byte sent to the last byte received (`--timeout`), so that a body
 * that trickles cannot hold a command without end.
 */
import type { Agent as HttpAgent, IncomingMessage } from 'node:http';
import { TimeoutError } from '../errors.js';
import { mapError } from './errors.js';
import type { PreparedRequest } from './pipeline.js';
import { redactUrl } from './redact.js';
import { wrapResponse } from './stream.js';
import type { HttpResponse, RequestSpec, Timeouts } from './types.js';

/** Sends one prepared request; the answer's body is not read yet. */
export interface Transport {
  send(req: PreparedRequest, spec: RequestSpec, timeouts: Timeouts): Promise<HttpResponse>;
  close(): Promise<void>;
}

/** How a deadline is said: `90 s`, `5 min`, `2 h`. */
export function formatDuration(ms: number): string {
  if (ms < 120_000) return `${Math.ceil(ms / 1000)} s`;
  if (ms < 2 * 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}

export class NodeHttpTransport implements Transport {
  /** Keep-alive agents, by protocol. */
  readonly #agents = new Map<string, HttpAgent>();

  constructor(private readonly maxSockets: number) {}

  async send(req: PreparedRequest, spec: RequestSpec, t: Timeouts): Promise<HttpResponse> {
    const { method, url, headers, body } = req;
    const safeUrl = redactUrl(url.toString());
    const mod = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
    let agent = this.#agents.get(url.protocol);
    if (!agent) this.#agents.set(url.protocol, (agent = new mod.Agent({ keepAlive: true, maxSockets: this.maxSockets })));
    let raw: IncomingMessage;
    // The total deadline: armed now, cleared when the body is over (or never read).
    let deadline: NodeJS.Timeout | undefined;
    let onDeadline: () => void = () => {};
    if (t.totalMs > 0) {
      deadline = setTimeout(() => onDeadline(), t.totalMs);
      deadline.unref();
    }
    const overDeadline = () =>
      Object.assign(
        new TimeoutError(method, safeUrl, 'total', `${method} ${safeUrl}: no complete answer within ${formatDuration(t.totalMs)} (the request deadline)`),
        {
          remedy: { kind: 'longer-deadline' } as const,
        },
      );
    try {
      raw = await new Promise<IncomingMessage>((resolve, reject) => {
        const req = mod.request(url, { method, headers, agent, signal: spec.signal });
        onDeadline = () => req.destroy(overDeadline());
        const fail = (phase: 'connect' | 'headers') => req.destroy(new TimeoutError(method, safeUrl, phase));
        let timer = setTimeout(() => fail('connect'), t.connectMs);
        req.once('socket', (socket) => {
          const awaitHeaders = () => {
            clearTimeout(timer);
            timer = setTimeout(() => fail('headers'), t.headersMs);
          };
          if (socket.connecting) socket.once('connect', awaitHeaders);
          else awaitHeaders();
        });
        req.once('response', (r) => {
          clearTimeout(timer);
          onDeadline = () => r.destroy(overDeadline());
          // Idle timeout between body chunks.
          const socket = r.socket;
          const idle = () => r.destroy(new TimeoutError(method, safeUrl, 'body'));
          socket.setTimeout(t.bodyMs, idle);
          // The socket may go back to the pool: no timer, no listener left on it.
          r.once('close', () => {
            socket.setTimeout(0, idle);
            clearTimeout(deadline);
          });
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
      clearTimeout(deadline);
      throw mapError(err, method, url.toString(), spec.signal);
    }
    return wrapResponse(raw, url.toString(), method, spec.signal);
  }

  async close(): Promise<void> {
    for (const a of this.#agents.values()) a.destroy();
  }
}
