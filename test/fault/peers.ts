/**
 * Broken and hostile peers of the fault suite's bounds cases (bounds.test.ts):
 * a forward proxy that stalls, trickles or echoes the credential, and a
 * Redis-protocol pacing server that answers with the wrong types or keeps its
 * connection after QUIT. Each listens on 127.0.0.1 and records what it saw.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';

export interface Peer {
  port: number;
  url: string;
  /** Everything received, in order (text). */
  received: string[];
  /** Connections accepted so far. */
  connections: number;
  /** Connections still open. */
  open(): number;
  close(): Promise<void>;
}

/** `tls`: a certificate and key to speak TLS with (an `https://` peer). */
async function listen(onSocket: (s: Socket, peer: Peer) => void, scheme: string, tls?: { cert: Buffer; key: Buffer }): Promise<Peer> {
  const sockets = new Set<Socket>();
  const peer: Peer = {
    port: 0,
    url: '',
    received: [],
    connections: 0,
    open: () => sockets.size,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const accept = (s: Socket) => {
    peer.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
    onSocket(s, peer);
  };
  const server: Server = tls ? createTlsServer(tls, accept) : createServer(accept);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  peer.port = (server.address() as AddressInfo).port;
  peer.url = `${scheme}://127.0.0.1:${peer.port}`;
  return peer;
}

/** What a hostile forward proxy does with a CONNECT. */
export type ProxyMode = 'silent' | 'trickle' | 'echo-403';

/**
 * A forward proxy: `silent` accepts and never answers; `trickle` answers
 * `200 Connection established` one byte a second; `echo-403` refuses with a
 * reason phrase that is the request's Proxy-Authorization value.
 */
export function hostileProxy(mode: ProxyMode): Promise<Peer> {
  return listen((s, peer) => {
    let head = '';
    s.on('data', (d: Buffer) => {
      head += d.toString('latin1');
      peer.received.push(d.toString('latin1'));
      if (mode === 'echo-403' && head.includes('\r\n\r\n')) {
        const auth = /proxy-authorization: ([^\r\n]*)/i.exec(head)?.[1] ?? '';
        s.end(`HTTP/1.1 403 Forbidden ${auth}\r\nContent-Length: 0\r\n\r\n`);
      }
    });
    if (mode === 'trickle') {
      const answer = 'HTTP/1.1 200 Connection established\r\n\r\n';
      let i = 0;
      const t = setInterval(() => (i < answer.length ? s.write(answer[i++]!) : clearInterval(t)), 1000);
      s.on('close', () => clearInterval(t));
    }
  }, 'http');
}

/**
 * A forward proxy over TLS (an `https://` proxy, under `tls`'s certificate)
 * that answers CONNECT with a status line and then header lines without end,
 * as fast as the client reads them; `sent()` counts the header bytes written.
 */
export function floodingTlsProxy(tls: { cert: Buffer; key: Buffer }): Promise<Peer & { sent(): number }> {
  let sent = 0;
  const line = `X-Filler: ${'a'.repeat(1000)}\r\n`;
  return listen(
    (s) => {
      s.once('data', () => {
        s.write('HTTP/1.1 200 Connection established\r\n');
        const pump = () => {
          while (!s.destroyed && sent < 64 * 1024 * 1024) {
            sent += line.length;
            if (!s.write(line)) return void s.once('drain', pump);
          }
        };
        pump();
      });
    },
    'https',
    tls,
  ).then((peer) => Object.assign(peer, { sent: () => sent }));
}

/** What a fake Redis-protocol server answers to the pacing scripts (EVAL/EVALSHA). */
export type PacingMode = 'string-replies' | 'quit-keeps-open';

/** Reads RESP arrays of bulk strings (what clients send) from a socket. */
function respCommands(s: Socket, onCommand: (argv: string[]) => void): void {
  let buf = Buffer.alloc(0);
  s.on('data', (d: Buffer) => {
    buf = Buffer.concat([buf, d]);
    for (;;) {
      const parsed = parseArray(buf);
      if (!parsed) return;
      buf = buf.subarray(parsed.used);
      onCommand(parsed.argv);
    }
  });
}

function parseArray(buf: Buffer): { argv: string[]; used: number } | undefined {
  let at = 0;
  const line = (): string | undefined => {
    const end = buf.indexOf('\r\n', at);
    if (end < 0) return undefined;
    const text = buf.subarray(at, end).toString('latin1');
    at = end + 2;
    return text;
  };
  const head = line();
  if (head === undefined || !head.startsWith('*')) return undefined;
  const argv: string[] = [];
  for (let n = Number(head.slice(1)); n > 0; n--) {
    const len = line();
    if (len === undefined) return undefined;
    const size = Number(len.slice(1));
    if (buf.length < at + size + 2) return undefined;
    argv.push(buf.subarray(at, at + size).toString('utf8'));
    at += size + 2;
  }
  return { argv, used: at };
}

const bulk = (text: string) => `$${Buffer.byteLength(text)}\r\n${text}\r\n`;

/**
 * A Redis-protocol server good enough for ioredis: `string-replies` answers
 * every script with a string where the client expects a number;
 * `quit-keeps-open` answers scripts with 0 and QUIT with +OK, and then keeps
 * the connection open. `received` holds one entry per command (its name).
 */
export function fakePacingServer(mode: PacingMode): Promise<Peer> {
  return listen((s, peer) => {
    respCommands(s, (argv) => {
      const name = (argv[0] ?? '').toUpperCase();
      peer.received.push(name);
      if (name === 'INFO') s.write(bulk('# Server\r\nredis_version:7.2.0\r\nloading:0\r\n'));
      else if (name === 'EVALSHA' || name === 'EVAL') s.write(mode === 'string-replies' ? bulk('soon') : ':0\r\n');
      else if (name === 'HGETALL') s.write('*0\r\n');
      else if (name === 'QUIT') s.write('+OK\r\n');
      else s.write('+OK\r\n');
    });
  }, 'redis');
}
