/**
 * Is a Secret Service answering on the session bus? Asked in plain
 * JavaScript, before the native keychain binding is called on Linux.
 *
 * Why: a Secret Service that accepts the D-Bus connection and never answers
 * (a frozen gnome-keyring, a wedged daemon) leaves the binding's call blocked
 * in a native worker thread. A time limit in JavaScript stops waiting for it,
 * but the blocked thread is joined when the process exits, so the process
 * never ends (`$(lanyard auth token)` in CI hangs for ever). A ping over a
 * socket we own can simply be closed: when the service does not answer
 * `org.freedesktop.DBus.Peer.Ping` in time, the keychain is reported
 * unavailable and the binding is never called.
 *
 * The D-Bus wire protocol used here is the minimum: SASL EXTERNAL, `Hello`,
 * one or two method calls, and reading until their replies; the client's side
 * of it is sent in one write. The second call, when asked for, reads whether
 * the default collection is locked (`Properties.Get`, no secret involved):
 * shell completion offers stored logins only from an unlocked keychain, since
 * reading a locked one makes the keyring show an unlock prompt.
 */
import { connect, type Socket } from 'node:net';

/**
 * `locked`, when asked for: whether the default collection is locked
 * (`undefined` when the service could not say, e.g. it has no default
 * collection).
 */
export type PingResult = { ok: true; locked?: boolean } | { ok: false; reason: string };

/** The socket path of a `unix:path=…` or `unix:abstract=…` bus address (first usable entry), if any. */
export function unixSocketOf(address: string): string | undefined {
  for (const entry of address.split(';')) {
    const m = /^unix:(.*)$/.exec(entry.trim());
    if (!m) continue;
    const kv = new Map(m[1]!.split(',').map((p) => [p.slice(0, p.indexOf('=')), decodeURIComponent(p.slice(p.indexOf('=') + 1))] as const));
    if (kv.get('path')) return kv.get('path');
    if (kv.get('abstract')) return `\0${kv.get('abstract')}`;
  }
  return undefined;
}

/** A METHOD_CALL message (little-endian), with string arguments as its body. */
function methodCall(serial: number, path: string, iface: string, member: string, destination: string, args: readonly string[] = []): Buffer {
  const strings = args.map((a) => Buffer.from(a));
  const buf = Buffer.alloc(512 + strings.reduce((n, b) => n + b.length + 8, 0));
  let off = 16;
  const align = (n: number) => {
    while (off % n) buf[off++] = 0;
  };
  const string = (b: Buffer) => {
    align(4);
    buf.writeUInt32LE(b.length, off);
    off += 4;
    off += b.copy(buf, off);
    buf[off++] = 0;
  };
  const field = (code: number, sig: 's' | 'o' | 'g', value: string) => {
    align(8);
    buf[off++] = code;
    buf[off++] = 1;
    buf.write(sig, off++);
    buf[off++] = 0;
    if (sig === 'g') {
      buf[off++] = value.length;
      off += buf.write(value, off, 'latin1');
      buf[off++] = 0;
    } else string(Buffer.from(value));
  };
  buf.write('l', 0);
  buf[1] = 1; // METHOD_CALL
  buf[2] = 0; // flags: a reply is wanted; the bus may start the service
  buf[3] = 1; // protocol version
  buf.writeUInt32LE(serial, 8);
  field(1, 'o', path);
  field(2, 's', iface);
  field(3, 's', member);
  field(6, 's', destination);
  if (strings.length) field(8, 'g', 's'.repeat(strings.length));
  buf.writeUInt32LE(off - 16, 12);
  align(8);
  const bodyStart = off;
  for (const b of strings) string(b);
  buf.writeUInt32LE(off - bodyStart, 4);
  return buf.subarray(0, off);
}

/** A reply found on the wire: the call it answers, whether it is an error, and its body. */
interface Reply {
  serial: number;
  error: boolean;
  body: Buffer;
}

/** Each complete reply (METHOD_RETURN or ERROR) at the start of `data`, and how many bytes the complete messages took. */
function replies(data: Buffer): { replies: Reply[]; used: number } {
  const out: Reply[] = [];
  let at = 0;
  while (data.length - at >= 16) {
    const le = data[at] === 0x6c;
    const u32 = (o: number) => (le ? data.readUInt32LE(at + o) : data.readUInt32BE(at + o));
    const fieldsLen = u32(12);
    const headerEnd = 16 + fieldsLen + ((8 - ((16 + fieldsLen) % 8)) % 8);
    const total = headerEnd + u32(4);
    if (data.length - at < total) break;
    const type = data[at + 1];
    let o = 16;
    while (o < 16 + fieldsLen) {
      o += (8 - (o % 8)) % 8;
      const code = data[at + o]!;
      const sigLen = data[at + o + 1]!;
      const sig = data.toString('latin1', at + o + 2, at + o + 2 + sigLen);
      o += 3 + sigLen;
      if (sig === 'u') {
        o += (4 - (o % 4)) % 4;
        if (code === 5 && (type === 2 || type === 3))
          out.push({ serial: u32(o), error: type === 3, body: le ? data.subarray(at + headerEnd, at + total) : Buffer.alloc(0) });
        o += 4;
      } else if (sig === 's' || sig === 'o') {
        o += (4 - (o % 4)) % 4;
        o += 4 + u32(o) + 1;
      } else if (sig === 'g') {
        o += 1 + data[at + o]! + 1;
      } else break; // not a header field type: skip the rest of this header
    }
    at += total;
  }
  return { replies: out, used: at };
}

/**
 * The boolean in the body of a `Properties.Get` reply (a variant `v` holding
 * `b`), read little-endian; undefined for any other body. The body starts
 * 8-aligned in its message, so offsets within it align as in the message.
 */
function variantBoolean(body: Buffer): boolean | undefined {
  if (body.length < 8 || body[0] !== 1 || body[1] !== 0x62 /* b */ || body[2] !== 0) return undefined;
  const v = body.readUInt32LE(4);
  return v === 1 ? true : v === 0 ? false : undefined;
}

/**
 * The client's whole side of the exchange: SASL EXTERNAL as `uid`, `Hello`
 * (serial 1), the ping (serial 2) and, when asked, the default collection's
 * `Locked` property (serial 3).
 */
function greeting(uid: number, askLocked: boolean): Buffer {
  return Buffer.concat([
    Buffer.from(`\0AUTH EXTERNAL ${Buffer.from(String(uid)).toString('hex')}\r\nBEGIN\r\n`),
    methodCall(1, '/org/freedesktop/DBus', 'org.freedesktop.DBus', 'Hello', 'org.freedesktop.DBus'),
    methodCall(2, '/org/freedesktop/secrets', 'org.freedesktop.DBus.Peer', 'Ping', 'org.freedesktop.secrets'),
    ...(askLocked
      ? [
          methodCall(3, '/org/freedesktop/secrets/aliases/default', 'org.freedesktop.DBus.Properties', 'Get', 'org.freedesktop.secrets', [
            'org.freedesktop.Secret.Collection',
            'Locked',
          ]),
        ]
      : []),
  ]);
}

/**
 * Pings `org.freedesktop.secrets` on the bus at `address` within `timeoutMs`.
 * `ok` when it answered (a reply or an error reply: either way it is alive);
 * otherwise why not. An address that is not a unix socket is reported `ok`
 * (nothing to check here; the binding decides).
 */
export function pingSecretService(address: string, uid: number, timeoutMs: number, o: { askLocked?: boolean } = {}): Promise<PingResult> {
  const path = unixSocketOf(address);
  if (!path) return Promise.resolve({ ok: true });
  return new Promise((resolve) => {
    let socket: Socket | undefined;
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (r: PingResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket?.destroy();
      resolve(r);
    };
    // The time limit is the bus's, not this process's: bin/lanyard.js starts the ping and then compiles the CLI,
    // and nothing is sent before this process's event loop turns. So the clock starts on that first turn, and the
    // verdict waits one more turn (setImmediate), so that an answer already received is read before it.
    setImmediate(() => {
      if (done) return;
      const late = () => finish({ ok: false, reason: `the Secret Service did not answer within ${timeoutMs} ms` });
      timer = setTimeout(() => setImmediate(late), timeoutMs);
    });
    let authed = false;
    let data = Buffer.alloc(0);
    socket = connect(path);
    socket.on('error', (err: NodeJS.ErrnoException) => finish({ ok: false, reason: `cannot connect to the session bus (${err.code ?? err.message})` }));
    socket.on('close', () => finish({ ok: false, reason: 'the session bus closed the connection' }));
    // One write, queued before the connection is even up: the handshake, Hello
    // and the ping pipelined (as sd-bus does), so the answer costs one round
    // trip through the bus instead of two turns of this process's event loop.
    socket.write(greeting(uid, !!o.askLocked));
    let pinged = false;
    let locked: boolean | undefined;
    let lockAnswered = !o.askLocked;
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      if (!authed) {
        const eol = data.indexOf('\r\n');
        if (eol < 0) return;
        const line = data.toString('latin1', 0, eol);
        if (!line.startsWith('OK ')) return finish({ ok: false, reason: `the session bus refused authentication (${line.slice(0, 40)})` });
        authed = true;
        data = data.subarray(eol + 2);
      }
      const r = replies(data);
      data = data.subarray(r.used);
      for (const reply of r.replies) {
        if (reply.serial === 2) pinged = true;
        if (reply.serial === 3) {
          lockAnswered = true;
          locked = reply.error ? undefined : variantBoolean(reply.body);
        }
      }
      if (pinged && lockAnswered) finish(o.askLocked ? { ok: true, locked } : { ok: true });
    });
  });
}
