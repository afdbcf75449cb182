/**
 * The one transport: node:http(s) with keep-alive agents (HTTP/1.1).
 *
 * Node's own HTTP stack, not undici: its native parser hands socket buffers
 * over without copies (the mailbox downloads measured faster with it than
 * with undici), it needs no WebAssembly compile at start-up, and it is part
 * of Node — nothing to bundle, pin or patch.
 *
 * Bounds of one exchange: a connect timeout, a timeout for the response
 * head, a bound on the body's silence (no data for the idle timeout, or the
 * deadline when shorter), and a deadline (`--timeout`): from the first byte
 * sent to the last byte received, so that a body that trickles cannot hold
 * a command without end — or, for a download, to the response head: a
 * successful download's body goes on as long as data flows (as curl's and
 * the code host's CLI's do), bounded by its silence and by the download's
 * own total when one is given.
 */
import type { ClientRequest, Agent as HttpAgent, IncomingMessage, RequestOptions } from 'node:http';
import type { TraceSink } from '../deps.js';
import { TimeoutError } from '../errors.js';
import { ProxyError, proxyDisplay, proxyFor, type ProxySettings, withoutProxyCredential } from './proxy.js';
import { adoptSecureContext, secureContextFor, type TrustSettings } from './trust.js';
import { trustKey } from './trust-context.js';
import { mapError } from './errors.js';
import type { PreparedRequest } from './pipeline.js';
import { redactUrl } from './redact.js';
import { tunnelAgent, tunnelOnSignal } from './tunnel.js';
import { wrapResponse } from './stream.js';
import type { HttpResponse, Preconnected, RequestSpec, Timeouts } from './types.js';
import { type TimerClock, Watch, watchBody } from './watch.js';
import { boundTimers } from '../system-clock.js';

export type { Preconnected } from './types.js';

/** A download (requestStream): the deadline bounds the wait for the head; a 2xx body, its silence and `totalMs` from the head (0: none). */
export interface Download {
  totalMs: number;
}

/** Sends one prepared request; the answer's body is not read yet. */
export interface Transport {
  send(req: PreparedRequest, spec: RequestSpec, timeouts: Timeouts, download?: Download): Promise<HttpResponse>;
  close(): Promise<void>;
}

/** How a deadline is said: `90 s`, `5 min`, `2 h`. */
export function formatDuration(ms: number): string {
  if (ms < 120_000) return `${Math.ceil(ms / 1000)} s`;
  if (ms < 2 * 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}

/** What a transport is given besides its pool size. */
export interface TransportOptions {
  /** Proxies (proxy.ts); without them every connection is direct. */
  proxy?: ProxySettings;
  /** Trust beyond Node's defaults (trust.ts). */
  trust?: TrustSettings;
  trace?: TraceSink;
  /** An https connection opened before the client was made, taken by the first connection to its origin (see {@link Preconnected}). */
  preconnected?: Preconnected;
  /**
   * The clock of the deadline and of a body's silence: the process's timers
   * by default (not the client's clock, which tests fast-forward through
   * rate-limit waits); a test's, to drive them.
   */
  clock?: TimerClock;
}

export class NodeHttpTransport implements Transport {
  /** Keep-alive agents, by protocol (and proxy). */
  readonly #agents = new Map<string, HttpAgent>();
  /** node:http and node:https, loaded once: an import() per request copied the module's exports into a new namespace object each time. */
  #http?: typeof import('node:http');
  #https?: typeof import('node:https');

  constructor(
    private readonly maxSockets: number,
    private readonly o: TransportOptions = {},
  ) {}

  /**
   * The agent of a connection: node's keep-alive agent, or through a proxy a
   * CONNECT tunnel (https-proxy-agent) or absolute-form requests
   * (http-proxy-agent), loaded only when a proxy applies.
   */
  async #agent(url: URL, proxy: URL | undefined): Promise<HttpAgent> {
    const key = proxy ? `${url.protocol} ${proxy.href}` : url.protocol;
    let agent = this.#agents.get(key);
    if (agent) return agent;
    const options = { keepAlive: true, maxSockets: this.maxSockets };
    if (!proxy) {
      const https = url.protocol === 'https:';
      agent = new (https ? await import('node:https') : await import('node:http')).Agent(options);
      // Only under the trust it was verified under (the same added bundles, to the byte), whose context it brings.
      const pre = this.o.preconnected;
      if (https && pre && trustKey(pre.trust) === trustKey(this.o.trust)) {
        if (pre.trust && pre.secureContext) adoptSecureContext(pre.trust, pre.secureContext);
        adopt(agent, pre, this.o.trace);
      }
    } else {
      // A TLS proxy is trusted as the servers are (a company proxy under the company CA of LANYARD_CA_FILE).
      const secureContext = proxy.protocol === 'https:' && this.o.trust ? await secureContextFor(this.o.trust) : undefined;
      const proxied = { ...options, ...(secureContext ? { secureContext } : {}) };
      agent = url.protocol === 'https:' ? await tunnelAgent(proxy, proxied) : new (await import('http-proxy-agent')).HttpProxyAgent(proxy, proxied);
    }
    this.#agents.set(key, agent);
    return agent;
  }

  async send(req: PreparedRequest, spec: RequestSpec, t: Timeouts, download?: Download): Promise<HttpResponse> {
    const { method, url } = req;
    const safeUrl = redactUrl(url.toString());
    const mod = url.protocol === 'https:' ? (this.#https ??= await import('node:https')) : (this.#http ??= await import('node:http'));
    const proxy = this.o.proxy ? proxyFor(url, this.o.proxy) : undefined;
    if (proxy) this.o.trace?.(`* via proxy ${proxyDisplay(proxy)}${url.protocol === 'https:' ? ' (CONNECT tunnel)' : ''}`);
    const agent = await this.#agent(url, proxy);
    // One secure context per process for the trust settings (trust.ts), not a `ca` list parsed again per connection.
    const secureContext = url.protocol === 'https:' && this.o.trust ? await secureContextFor(this.o.trust) : undefined;
    // The deadline: armed now, cleared when the body is over (or never read); a download's, at its head.
    const deadline = new Deadline(this.o.clock ?? boundTimers, t.totalMs, (ms, what) =>
      Object.assign(new TimeoutError(method, safeUrl, 'total', `${method} ${safeUrl}: no complete answer within ${formatDuration(ms)} (${what})`), {
        remedy: { kind: 'longer-deadline' } as const,
      }),
    );
    let raw: IncomingMessage;
    try {
      raw = await exchange(
        mod.request,
        req,
        { agent, signal: spec.signal, ...(secureContext ? { secureContext } : {}) },
        { timeouts: t, deadline, proxy, safeUrl, download },
      );
    } catch (err) {
      deadline.clear();
      if (err instanceof ProxyError) throw err;
      if (proxy && isProxyUnreachable(err, proxy)) {
        throw new ProxyError(`cannot reach the proxy ${proxyDisplay(proxy)} (${(err as { code?: string }).code})`, PROXY_HINT);
      }
      throw mapError(err, method, url.toString(), spec.signal);
    }
    return wrapResponse(raw, url.toString(), method, spec.signal);
  }

  async close(): Promise<void> {
    for (const a of this.#agents.values()) a.destroy();
  }
}

/**
 * The agent's first connection to the preconnected origin is that connection
 * (an https agent's own options: host, port, the server name it computed);
 * any other, or once it is gone, a new one as usual.
 */
function adopt(agent: HttpAgent, preconnected: Preconnected, trace: TraceSink | undefined): void {
  const own = agent.createConnection.bind(agent) as (options: object, callback: (err: Error | null, socket?: unknown) => void) => unknown;
  type AgentOptions = { host?: string; port?: number | string; servername?: string };
  Object.assign(agent, {
    createConnection(options: AgentOptions, callback: (err: Error | null, socket?: unknown) => void) {
      const socket = preconnected.take(options.host ?? 'localhost', Number(options.port ?? 443), options.servername ?? '');
      if (!socket) return own(options, callback);
      trace?.(`* connection to ${options.host}:${options.port}: the one opened ahead`);
      return socket;
    },
  });
}

/**
 * The deadline of one exchange: armed when made, it destroys what `aim` last
 * named (the request, then the response) with the error `over` makes;
 * cleared when the body is over. A download's is armed again at its head,
 * for the body's own total (`rearm`).
 */
class Deadline {
  #watch: Watch;
  #target?: { destroy(err: Error): void };

  constructor(
    readonly clock: TimerClock,
    ms: number,
    private readonly over: (ms: number, what: string) => Error,
  ) {
    this.#watch = this.#arm(ms, 'the request deadline');
  }

  #arm(ms: number, what: string): Watch {
    return new Watch(this.clock, ms, () => this.#target?.destroy(this.over(ms, what)));
  }

  aim(target: { destroy(err: Error): void }): void {
    this.#target = target;
  }

  rearm(ms: number): void {
    this.#watch.clear();
    this.#watch = this.#arm(ms, "the download's deadline");
  }

  clear(): void {
    this.#watch.clear();
  }
}

/** What an exchange is bounded by and goes through. */
interface ExchangeBounds {
  timeouts: Timeouts;
  deadline: Deadline;
  proxy: URL | undefined;
  /** The URL as errors show it. */
  safeUrl: string;
  /** A download (requestStream): the deadline ends at a successful head. */
  download?: Download;
}

/**
 * Sends the request and resolves with the response head: the connect and
 * head timeouts, then the bound on the body's silence; a proxy's
 * refusal (the tunnel's answer, or a 407) rejects as the proxy's.
 */
function exchange(request: typeof import('node:http').request, r: PreparedRequest, options: RequestOptions, b: ExchangeBounds): Promise<IncomingMessage> {
  const { method, url, headers } = r;
  const { timeouts: t, deadline, proxy } = b;
  return new Promise<IncomingMessage>((resolve, reject) => {
    const req = request(url, { method, headers, ...options });
    // Until the request has a socket (through a proxy: until the tunnel is up),
    // destroying it neither emits nor closes anything: every way out also
    // rejects here and ends the tunnel's connection to the proxy.
    const tunnel = new AbortController();
    if (proxy) tunnelOnSignal(req, tunnel.signal);
    let settled = false;
    const detach = () => {
      timer.clear();
      options.signal?.removeEventListener('abort', onAbort);
    };
    const settle = (err: Error) => {
      detach();
      tunnel.abort(err);
      if (!settled) {
        settled = true;
        reject(err);
      }
    };
    const end = (err: Error) => {
      settle(err);
      req.destroy(err);
    };
    const onAbort = () => end(Object.assign(new Error('The operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' }));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    deadline.aim({ destroy: end });
    if (proxy) {
      // The tunnel's answer (https-proxy-agent): anything but 200 is the proxy's refusal, not the server's.
      req.once('proxyConnect', ({ statusCode, statusText }: { statusCode?: number; statusText?: string }) => {
        if (statusCode !== undefined && statusCode !== 200) end(proxyRefusal(proxy, statusCode, statusText, url));
      });
    }
    const timer = phaseTimer(req, t, (phase) => end(phaseTimeout(phase, r, b)));
    req.once('response', (res) => {
      detach();
      settled = true;
      // Absolute-form requests (http-proxy-agent): a 407 is the proxy's.
      if (proxy && res.statusCode === 407) {
        res.resume();
        reject(proxyRefusal(proxy, 407, res.statusMessage ?? '', url));
        return;
      }
      deadline.aim(res);
      // A download's body goes on while data flows: no deadline, unless it has its own.
      if (b.download && (res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300) deadline.rearm(b.download.totalMs);
      watchBody(res, deadline.clock, silenceBound(t), (ms) => silenceError(r, b, ms), deadline, !!b.download);
      resolve(res);
    });
    // `on`: a request destroyed before its socket came may still hear of the failed tunnel.
    req.on('error', settle);
    sendBody(req, r.body);
  });
}

/** The connect bound, then the head bound from the moment the socket is connected. */
function phaseTimer(req: ClientRequest, t: Timeouts, fail: (phase: 'connect' | 'headers') => void): { clear(): void } {
  let timer = setTimeout(() => fail('connect'), t.connectMs);
  req.once('socket', (socket) => {
    const awaitHeaders = () => {
      clearTimeout(timer);
      timer = setTimeout(() => fail('headers'), t.headersMs);
    };
    if (socket.connecting) socket.once('connect', awaitHeaders);
    else awaitHeaders();
  });
  return { clear: () => clearTimeout(timer) };
}

/** Through a proxy, the connect bound covers the proxy's connection and its answer to CONNECT. */
function phaseTimeout(phase: 'connect' | 'headers', r: PreparedRequest, b: ExchangeBounds): TimeoutError {
  const { method, url } = r;
  if (phase === 'connect' && b.proxy && url.protocol === 'https:')
    return new TimeoutError(
      method,
      b.safeUrl,
      'connect',
      `the proxy ${proxyDisplay(b.proxy)} did not open a tunnel to ${url.host} within ${formatDuration(b.timeouts.connectMs)}`,
    );
  return new TimeoutError(method, b.safeUrl, phase);
}

/**
 * One framing of the body, never both (RFC 9112 §6.2; a server answers 400
 * to both). A caller's `Transfer-Encoding` ending in `chunked` (`api -H`) is
 * honoured as curl does: chunks, and no Content-Length (the caller's either).
 * Any other (`gzip` alone) cannot frame a request and is dropped. Then a
 * buffered body of `length` bytes gets its Content-Length unless the caller
 * gave one; a stream without one goes chunked (Node's default).
 */
function frameBody(req: ClientRequest, length: number | undefined): void {
  const te = req.getHeader('transfer-encoding');
  if (te !== undefined && /(?:^|,)\s*chunked\s*$/i.test(String(te))) return void req.removeHeader('content-length');
  if (te !== undefined) req.removeHeader('transfer-encoding');
  if (length !== undefined && !req.hasHeader('content-length')) req.setHeader('content-length', length);
}

function sendBody(req: ClientRequest, body: PreparedRequest['body']): void {
  const buffered = typeof body === 'string' || body instanceof Uint8Array;
  // Node frames a DELETE's or an OPTIONS's body by nothing unless told its length: the server read it as the next request.
  frameBody(req, buffered ? Buffer.byteLength(body) : undefined);
  if (body === undefined || buffered) req.end(body);
  else
    void import('node:stream/promises')
      .then(({ pipeline }) => pipeline(body as AsyncIterable<Uint8Array>, req))
      .catch((err: unknown) => req.destroy(err as Error));
}

/** The longest silence of a body: the idle timeout, or the deadline when that is shorter (a download has no other bound). */
function silenceBound(t: Timeouts): number {
  return t.totalMs > 0 ? Math.min(t.bodyMs, t.totalMs) : t.bodyMs;
}

/** A body silent for `ms`: one line (a longer deadline is no remedy: it bounds silences only up to the idle timeout). */
function silenceError(r: PreparedRequest, b: ExchangeBounds, ms: number): TimeoutError {
  return new TimeoutError(r.method, b.safeUrl, 'body', `${r.method} ${b.safeUrl}: the answer stalled: no data for ${formatDuration(ms)}`);
}

const PROXY_HINT = 'check HTTPS_PROXY / HTTP_PROXY / ALL_PROXY (or the profile setting network.proxy), or list the host in NO_PROXY';

/** A proxy's refusal as one line naming the proxy (without its password). */
function proxyRefusal(proxy: URL, status: number, statusText: string | undefined, url: URL): ProxyError {
  const shown = proxyDisplay(proxy);
  if (status === 407) {
    return new ProxyError(
      `the proxy ${shown} refused the credentials (407 Proxy Authentication Required)`,
      "check the user name and password in the proxy URL's user-info (percent-encoded)",
    );
  }
  // The reason phrase is the proxy's text: it may echo the request's Proxy-Authorization.
  const reason = statusText ? ` ${withoutProxyCredential(statusText, proxy).slice(0, 200)}` : '';
  return new ProxyError(`the proxy ${shown} refused the connection to ${url.host} (${status}${reason})`, PROXY_HINT);
}

/** A connection error that is the proxy's (refused, not found) rather than the server's. */
function isProxyUnreachable(err: unknown, proxy: URL): boolean {
  const e = err as { code?: string; hostname?: string; address?: string; port?: number };
  if (!['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ETIMEDOUT'].includes(e?.code ?? '')) return false;
  const host = proxy.hostname.replace(/^\[|\]$/g, '');
  return e.hostname === host || e.address === host || (e.port !== undefined && String(e.port) === (proxy.port || (proxy.protocol === 'https:' ? '443' : '80')));
}
