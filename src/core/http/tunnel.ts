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
 *   (16 KiB), counted in what the agent reads: the bytes of a plain
 *   connection, the decrypted bytes of a TLS one (`https://` proxy; the
 *   handshake is not counted). The proxy's connection is found as it is
 *   opened, before the agent's first await: net's through the
 *   `net.client.socket` diagnostics channel; tls publishes none, so for an
 *   `https://` proxy the TLS socket's `connect` is watched for that moment
 *   (see {@link openedTls});
 * - an `https://` proxy's certificate is checked against the same trust as
 *   the servers' (the added CA files, the system store: trust.ts), so a
 *   company proxy whose certificate the company CA signed is trusted where
 *   `LANYARD_CA_FILE` names that CA.
 */
import type { Agent as HttpAgent } from 'node:http';
import type { Socket } from 'node:net';
import type { SecureContext, TLSSocket } from 'node:tls';
import { ProxyError, proxyDisplay } from './proxy.js';
import { tlsFailure } from './trust.js';

/** The most bytes a proxy's answer to CONNECT may take (Node's default `maxHeaderSize`). */
export const CONNECT_ANSWER_CAP = 16 * 1024;

const TUNNEL_SIGNAL = Symbol('lanyard.tunnelSignal');
type Tunnelled = { [TUNNEL_SIGNAL]?: AbortSignal };

/** Hands the request's way out to the agent that opens its tunnel. */
export function tunnelOnSignal(req: object, signal: AbortSignal): void {
  (req as Tunnelled)[TUNNEL_SIGNAL] = signal;
}

type TunnelAgent = HttpAgent & { connectOpts: object; connect(req: unknown, opts: unknown): Promise<unknown> };

/** An https-proxy-agent for `proxy`, bounded as this module says; `secureContext`: the trust of a TLS connection to it. */
export async function tunnelAgent(proxy: URL, options: { keepAlive: boolean; maxSockets: number; secureContext?: SecureContext }): Promise<HttpAgent> {
  const [{ HttpsProxyAgent }, dc] = await Promise.all([import('https-proxy-agent'), import('node:diagnostics_channel')]);
  // The agent passes its options on to net.connect / tls.connect (the proxy's trust, for a TLS proxy).
  const tlsProxy = proxy.protocol === 'https:';
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
      tunnel = tlsProxy ? openedTls(() => connect(req, opts), seen) : connect(req, opts);
    } finally {
      dc.unsubscribe('net.client.socket', seen as (m: unknown) => void);
      agent.connectOpts = base;
    }
    // Before the tunnel is up, a TLS failure is the proxy's certificate (the server's handshake comes after).
    const named = tlsProxy ? tunnel.catch((err: unknown) => Promise.reject(tlsFailure(err, proxy.href, `the proxy ${proxyDisplay(proxy)}`) ?? err)) : tunnel;
    if (!socket) return named;
    const stop = capAnswer(socket, proxy);
    return named.finally(stop);
  };
  return agent;
}

/**
 * Runs `open` (the agent's connect up to its first await, which is where it
 * calls tls.connect) and hands `seen` the TLS socket it opens. tls.connect
 * calls `connect` on the socket it makes (inherited from net.Socket): for
 * that synchronous moment, and only for it, TLSSocket's prototype has a
 * `connect` of its own that notes the socket and calls net's. Nothing else
 * can run meanwhile (no await in between); the prototype is as it was after.
 */
function openedTls<T>(open: () => T, seen: (m: { socket: Socket }) => void): T {
  const tls = process.getBuiltinModule('node:tls');
  const proto = tls.TLSSocket.prototype as TLSSocket & { connect: Socket['connect'] };
  if (Object.hasOwn(proto, 'connect')) return open();
  const netConnect = proto.connect;
  Object.defineProperty(proto, 'connect', {
    configurable: true,
    writable: true,
    value: function (this: TLSSocket, ...args: unknown[]) {
      seen({ socket: this });
      return (netConnect as (...a: unknown[]) => unknown).apply(this, args);
    },
  });
  try {
    return open();
  } finally {
    delete (proto as { connect?: unknown }).connect;
  }
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
