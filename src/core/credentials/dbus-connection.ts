/**
 * A connection to a D-Bus bus over its unix socket, for a handful of method
 * calls: SASL EXTERNAL, `Hello`, then the calls, each answered by its serial.
 * Calls made in the same turn of the event loop go out in one write with the
 * handshake (pipelined, as sd-bus does), so a batch of calls costs one round
 * trip through the bus.
 *
 * Bounded: one deadline for the whole connection (a bus or service that
 * accepts the connection and never answers fails every pending call when it
 * passes), and at most 4 MiB buffered. The socket is ours: closing it ends
 * everything, which a native binding's blocked thread could not do.
 */
import { connect, type Socket } from 'node:net';
import { type Call, type DBusValue, type DBusWireError, decodeMessages, encodeCall, MAX_MESSAGE_BYTES } from './dbus-wire.js';

/** A reply: its body, or the error the bus or the service answered with. */
export type Reply = { ok: true; body: DBusValue[] } | { ok: false; errorName: string; message: string };

/** Why the connection could not be used (no bus, refused, timed out, malformed). */
export class BusUnavailable extends Error {}

/** The socket path of a `unix:path=…` or `unix:abstract=…` bus address (first usable entry), if any. */
export function unixSocketOf(address: string): string | undefined {
  for (const entry of address.split(';')) {
    const m = /^unix:(.*)$/.exec(entry.trim());
    if (!m) continue;
    let kv: Map<string, string>;
    try {
      kv = new Map(m[1]!.split(',').map((p) => [p.slice(0, p.indexOf('=')), decodeURIComponent(p.slice(p.indexOf('=') + 1))] as const));
    } catch {
      continue; // a malformed %-escape: this entry names no usable socket
    }
    if (kv.get('path')) return kv.get('path');
    if (kv.get('abstract')) return `\0${kv.get('abstract')}`;
  }
  return undefined;
}

export interface BusConnection {
  /** Sends a method call (with the others of this turn, in one write); its reply, or a rejection with BusUnavailable. */
  call(c: Call): Promise<Reply>;
  /** Closes the socket; pending calls reject. */
  close(): void;
}

/** Connects to the bus at the unix socket `path` as `uid`; every call fails with BusUnavailable after `timeoutMs`. */
export function openBus(path: string, uid: number, timeoutMs: number, what = 'the Secret Service'): BusConnection {
  const pending = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  let failure: BusUnavailable | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const fail = (why: string) => {
    failure ??= new BusUnavailable(why);
    clearTimeout(timer);
    socket.destroy();
    for (const p of pending.values()) p.reject(failure);
    pending.clear();
  };
  startLimit(
    timeoutMs,
    () => failure !== undefined,
    (t) => (timer = t),
    () => fail(`${what} did not answer within ${timeoutMs} ms`),
  );
  const socket: Socket = connect(path);
  socket.on('error', (err: NodeJS.ErrnoException) => fail(`cannot connect to the session bus (${err.code ?? err.message})`));
  socket.on('close', () => fail('the session bus closed the connection'));
  let serial = 0;
  const write = batchedWriter(socket);
  write(`\0AUTH EXTERNAL ${Buffer.from(String(uid)).toString('hex')}\r\nBEGIN\r\n`);
  write(encodeCall(++serial, { path: '/org/freedesktop/DBus', iface: 'org.freedesktop.DBus', member: 'Hello', destination: 'org.freedesktop.DBus' }));
  socket.on(
    'data',
    reader(
      fail,
      (answered) => pending.has(answered),
      (answered, reply) => {
        const p = pending.get(answered);
        pending.delete(answered);
        p?.resolve(reply);
      },
    ),
  );
  return {
    call(c) {
      if (failure) return Promise.reject(failure);
      const reply = new Promise<Reply>((resolve, reject) => {
        write(encodeCall(++serial, c));
        pending.set(serial, { resolve, reject });
      });
      // A caller that stopped waiting for this reply (it returned early) leaves no unhandled rejection behind.
      reply.catch(() => undefined);
      return reply;
    },
    close() {
      fail('the connection was closed');
    },
  };
}

/** A writer that sends everything written in this turn of the event loop in one write. */
function batchedWriter(socket: Socket): (bytes: Buffer | string) => void {
  let flushing = false;
  return (bytes) => {
    if (!flushing) {
      flushing = true;
      socket.cork();
      // A microtask (core uses no `process`): it runs once this turn's synchronous calls are made, before the event loop turns.
      queueMicrotask(() => {
        flushing = false;
        socket.uncork();
      });
    }
    socket.write(bytes);
  };
}

/**
 * Arms the time limit. It is the bus's, not this process's: bin/lanyard.js
 * opens the connection and then compiles the CLI, and nothing is sent before
 * this process's event loop turns. So the clock starts on that first turn,
 * and the verdict waits one more turn (setImmediate), so that an answer
 * already received is read before it.
 */
function startLimit(ms: number, ended: () => boolean, armed: (t: ReturnType<typeof setTimeout>) => void, late: () => void): void {
  setImmediate(() => {
    if (!ended()) armed(setTimeout(() => setImmediate(late), ms));
  });
}

/** The socket's data handler: the SASL answer, then replies handed to `onReply` by the serial they answer. */
function reader(fail: (why: string) => void, awaited: (serial: number) => boolean, onReply: (serial: number, reply: Reply) => void): (chunk: Buffer) => void {
  let data: Buffer = Buffer.alloc(0);
  let authed = false;
  return (chunk) => {
    data = data.length ? Buffer.concat([data, chunk]) : chunk;
    if (data.length > MAX_MESSAGE_BYTES) return fail('the session bus sent more than 4 MiB');
    if (!authed) {
      const eol = data.indexOf('\r\n');
      if (eol < 0) return;
      const line = data.toString('latin1', 0, eol);
      if (!line.startsWith('OK ')) return fail(`the session bus refused authentication (${line.slice(0, 40)})`);
      authed = true;
      data = data.subarray(eol + 2);
    }
    let decoded: ReturnType<typeof decodeMessages>;
    try {
      decoded = decodeMessages(data, awaited);
    } catch (err) {
      return fail(`the session bus sent a malformed message (${(err as DBusWireError).message})`);
    }
    data = data.subarray(decoded.used);
    for (const m of decoded.messages) {
      if ((m.type !== 2 && m.type !== 3) || m.replySerial === undefined) continue;
      const text = typeof m.body[0] === 'string' ? m.body[0] : '';
      onReply(m.replySerial, m.type === 2 ? { ok: true, body: m.body } : { ok: false, errorName: m.errorName ?? 'unknown', message: text });
    }
  };
}
