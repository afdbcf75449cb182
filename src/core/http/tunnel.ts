/**
 * CONNECT tunnels through a forward proxy (https-proxy-agent), bounded by
 * the request that asked for them:
 *
 * - the connection to the proxy ends with the request: the agent waits for
 *   the proxy's answer to CONNECT without a bound of its own, and a request
 *   destroyed before it has a socket does not reach it. The agent opens that
 *   connection with `connectOpts` before its first await, so the request's
 *   signal is handed over there (net and tls sockets take a `signal`, and
 *   end when it aborts);
 * - the proxy's answer is capped in bytes: the agent buffers it until its
 *   blank line with no limit (and joins every chunk again as it comes), so a
 *   proxy that sends header bytes without end would fill the memory within
 *   the connect bound. The cap is Node's own default for a response head
 *   (16 KiB). The proxy's connection is found as net opens it (the
 *   `net.client.socket` diagnostics channel); a proxy reached over TLS
 *   (`https://` proxy) is opened by tls, which that channel does not see, so
 *   its answer is bounded in time only (the connect bound).
 */
import type { Agent as HttpAgent } from 'node:http';
import type { Socket } from 'node:net';
import { ProxyError, proxyDisplay } from './proxy.js';

/** The most bytes a proxy's answer to CONNECT may take (Node's default `maxHeaderSize`). */
export const CONNECT_ANSWER_CAP = 16 * 1024;

const TUNNEL_SIGNAL = Symbol('lanyard.tunnelSignal');
type Tunnelled = { [TUNNEL_SIGNAL]?: AbortSignal };

/** Hands the request's way out to the agent that opens its tunnel. */
export function tunnelOnSignal(req: object, signal: AbortSignal): void {
  (req as Tunnelled)[TUNNEL_SIGNAL] = signal;
}

type TunnelAgent = HttpAgent & { connectOpts: object; connect(req: unknown, opts: unknown): Promise<unknown> };

/** An https-proxy-agent for `proxy`, bounded as this module says. */
export async function tunnelAgent(proxy: URL, options: { keepAlive: boolean; maxSockets: number }): Promise<HttpAgent> {
  const [{ HttpsProxyAgent }, dc] = await Promise.all([import('https-proxy-agent'), import('node:diagnostics_channel')]);
  const agent = new HttpsProxyAgent(proxy, options) as unknown as TunnelAgent;
  const base = agent.connectOpts;
  const connect = agent.connect.bind(agent);
  agent.connect = (req, opts) => {
    const signal = (req as Tunnelled)[TUNNEL_SIGNAL];
    if (signal?.aborted) return Promise.reject(signal.reason);
    agent.connectOpts = signal ? { ...base, signal } : base;
    let socket: Socket | undefined;
    const seen = ({ socket: s }: { socket: Socket }) => {
      socket ??= s;
    };
    dc.subscribe('net.client.socket', seen as (m: unknown) => void);
    let tunnel: Promise<unknown>;
    try {
      tunnel = connect(req, opts);
    } finally {
      dc.unsubscribe('net.client.socket', seen as (m: unknown) => void);
      agent.connectOpts = base;
    }
    if (!socket) return tunnel;
    const stop = capAnswer(socket, proxy);
    return tunnel.finally(stop);
  };
  return agent;
}

/**
 * Ends the proxy's connection once its answer passes the cap. The watch is a
 * `readable` listener that reads nothing (the agent reads), so it changes
 * neither the flow nor what the agent sees; it is removed when the answer is over.
 */
function capAnswer(socket: Socket, proxy: URL): () => void {
  const check = () => {
    if (socket.bytesRead > CONNECT_ANSWER_CAP)
      socket.destroy(
        new ProxyError(
          `the proxy ${proxyDisplay(proxy)} answered CONNECT with more than ${CONNECT_ANSWER_CAP / 1024} KiB of headers`,
          'check the proxy (HTTPS_PROXY / ALL_PROXY or the profile setting network.proxy)',
        ),
      );
  };
  socket.on('readable', check);
  return () => socket.removeListener('readable', check);
}
