/**
 * The D-Bus wire format, as little of it as the Secret Service client needs
 * (secret-service.ts): method calls marshalled little-endian, and messages
 * of either byte order read back into plain values by their signature.
 *
 * Hand-written on purpose: the npm D-Bus clients (dbus-next, dbus-native and
 * their forks) are unmaintained, pull in xml2js, event-stream and a 64-bit
 * integer library, introspect before they call, and wait a round trip per
 * step; loading one would cost more start-up than the whole keychain read.
 *
 * What the bus sends is checked as it is read: every length against what
 * arrived, nesting depth, message size; anything else is a DBusWireError.
 */

/** A value as read or written: strings (s, o, g), numbers (y, n, q, i, u, d), bigints (x, t), booleans, byte arrays (ay) as Buffers, arrays, structs and dict entries as arrays, variants as {@link Variant}. */
export type DBusValue = string | number | bigint | boolean | Buffer | DBusValue[] | Variant;

/** A variant: its signature (one complete type) and value. */
export interface Variant {
  sig: string;
  value: DBusValue;
}

/** A message that breaks the wire format (or this reader's bounds). */
export class DBusWireError extends Error {}

/** The largest message this reader accepts (the format allows 128 MiB; a Secret Service answer for a few items is a few KiB). */
export const MAX_MESSAGE_BYTES = 4 << 20;
/** Containers nested deeper than the format allows (32 arrays + 32 structs) are refused. */
const MAX_DEPTH = 64;

const ALIGN: Record<string, number> = { y: 1, b: 4, n: 2, q: 2, i: 4, u: 4, x: 8, t: 8, d: 8, s: 4, o: 4, g: 1, a: 4, '(': 8, '{': 8, v: 1, h: 4 };

/** The basic types: a dict entry's key is one of them. */
const BASIC = 'ybnqiuxtdsogh';

/**
 * The index just past the complete type that starts at `sig[i]`. An empty
 * struct `()` and a dict entry that is not a basic key and one value are
 * refused, as the format refuses them (a value of either would take no bytes,
 * and an array of them would never end).
 */
function typeEnd(sig: string, i: number): number {
  const c = sig[i];
  if (c === 'a') return typeEnd(sig, i + 1);
  if (c === '(' || c === '{') {
    const close = c === '(' ? ')' : '}';
    let j = i + 1;
    let members = 0;
    while (sig[j] !== close) {
      if (j >= sig.length) throw new DBusWireError(`unbalanced signature ${sig}`);
      if (c === '{' && members === 0 && !BASIC.includes(sig[j]!)) throw new DBusWireError(`a dict entry's key is not a basic type in ${sig}`);
      j = typeEnd(sig, j);
      members++;
    }
    if (c === '(' && members === 0) throw new DBusWireError(`an empty struct in signature ${sig}`);
    if (c === '{' && members !== 2) throw new DBusWireError(`a dict entry is not one key and one value in ${sig}`);
    return j + 1;
  }
  if (c === undefined || !(c in ALIGN)) throw new DBusWireError(`unknown type in signature ${sig}`);
  return i + 1;
}

/** The complete types of a signature, in order. */
export function splitSignature(sig: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < sig.length; ) {
    const end = typeEnd(sig, i);
    out.push(sig.slice(i, end));
    i = end;
  }
  return out;
}

/** Writes values little-endian into a growing buffer. */
class Writer {
  buf = Buffer.alloc(256);
  len = 0;

  #room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const bigger = Buffer.alloc(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(bigger, 0, 0, this.len);
    this.buf = bigger;
  }

  align(n: number): void {
    const pad = (n - (this.len % n)) % n;
    this.#room(pad);
    this.buf.fill(0, this.len, this.len + pad);
    this.len += pad;
  }

  u8(v: number): void {
    this.#room(1);
    this.buf[this.len++] = v;
  }

  u32(v: number): void {
    this.align(4);
    this.#room(4);
    this.buf.writeUInt32LE(v, this.len);
    this.len += 4;
  }

  bytes(b: Buffer): void {
    this.#room(b.length);
    b.copy(this.buf, this.len);
    this.len += b.length;
  }

  /** One value of the complete type `t`. */
  value(t: string, v: DBusValue): void {
    const c = t[0];
    if (c === 's' || c === 'o') {
      const b = Buffer.from(v as string);
      this.u32(b.length);
      this.bytes(b);
      this.u8(0);
    } else if (c === 'g') {
      this.u8((v as string).length);
      this.bytes(Buffer.from(v as string, 'latin1'));
      this.u8(0);
    } else if (c === 'y') this.u8(v as number);
    else if (c === 'u' || c === 'b') this.u32(Number(v));
    else if (c === 'v') {
      const { sig, value } = v as Variant;
      this.value('g', sig);
      this.value(sig, value);
    } else if (c === 'a') this.#array(t.slice(1), v as DBusValue[] | Buffer);
    else if (c === '(' || c === '{') {
      this.align(8);
      const members = splitSignature(t.slice(1, -1));
      for (let k = 0; k < members.length; k++) this.value(members[k]!, (v as DBusValue[])[k]!);
    } else throw new DBusWireError(`cannot write type ${t}`);
  }

  #array(element: string, items: DBusValue[] | Buffer): void {
    this.u32(0);
    const lengthAt = this.len - 4;
    this.align(ALIGN[element[0]!]!);
    const start = this.len;
    if (Buffer.isBuffer(items)) this.bytes(items);
    else for (const item of items) this.value(element, item);
    this.buf.writeUInt32LE(this.len - start, lengthAt);
  }
}

/** Reads values of either byte order from a message, every length checked against what is there. */
class Reader {
  depth = 0;
  constructor(
    private readonly buf: Buffer,
    private readonly le: boolean,
    public off: number,
    private readonly end: number,
  ) {}

  #need(n: number): void {
    if (this.off + n > this.end) throw new DBusWireError('a value runs past the end of its message');
  }

  align(n: number): void {
    this.off += (n - (this.off % n)) % n;
    this.#need(0);
  }

  u32(): number {
    this.align(4);
    this.#need(4);
    const v = this.le ? this.buf.readUInt32LE(this.off) : this.buf.readUInt32BE(this.off);
    this.off += 4;
    return v;
  }

  #fixed(c: string): number | bigint | boolean {
    const size = ALIGN[c]!;
    this.align(size);
    this.#need(size);
    const b = this.buf;
    const at = this.off;
    this.off += size;
    if (c === 'y') return b[at]!;
    if (c === 'b') return (this.le ? b.readUInt32LE(at) : b.readUInt32BE(at)) !== 0;
    if (c === 'n') return this.le ? b.readInt16LE(at) : b.readInt16BE(at);
    if (c === 'q') return this.le ? b.readUInt16LE(at) : b.readUInt16BE(at);
    if (c === 'i') return this.le ? b.readInt32LE(at) : b.readInt32BE(at);
    if (c === 'u' || c === 'h') return this.le ? b.readUInt32LE(at) : b.readUInt32BE(at);
    if (c === 'x') return this.le ? b.readBigInt64LE(at) : b.readBigInt64BE(at);
    if (c === 't') return this.le ? b.readBigUInt64LE(at) : b.readBigUInt64BE(at);
    return this.le ? b.readDoubleLE(at) : b.readDoubleBE(at);
  }

  #string(length: number): string {
    this.#need(length + 1);
    const s = this.buf.toString('utf8', this.off, this.off + length);
    if (this.buf[this.off + length] !== 0) throw new DBusWireError('a string is not terminated');
    this.off += length + 1;
    return s;
  }

  /** One value of the complete type `t`. */
  value(t: string): DBusValue {
    const c = t[0]!;
    if (c === 's' || c === 'o') return this.#string(this.u32());
    if (c === 'g') {
      this.#need(1);
      return this.#string(this.buf[this.off++]!);
    }
    if (c === 'a' || c === '(' || c === '{' || c === 'v') {
      if (++this.depth > MAX_DEPTH) throw new DBusWireError('values nested too deep');
      try {
        return this.#container(t);
      } finally {
        this.depth--;
      }
    }
    if (!(c in ALIGN)) throw new DBusWireError(`unknown type ${t}`);
    return this.#fixed(c);
  }

  #container(t: string): DBusValue {
    const c = t[0];
    if (c === 'v') {
      const sig = this.value('g') as string;
      if (typeEnd(sig, 0) !== sig.length) throw new DBusWireError(`a variant's signature is not one type: ${sig}`);
      return { sig, value: this.value(sig) };
    }
    if (c === '(' || c === '{') {
      this.align(8);
      return splitSignature(t.slice(1, -1)).map((member) => this.value(member));
    }
    const length = this.u32();
    const element = t.slice(1);
    this.align(ALIGN[element[0]!]!);
    this.#need(length);
    const stop = this.off + length;
    if (element === 'y') {
      this.off = stop;
      return Buffer.from(this.buf.subarray(stop - length, stop));
    }
    const items: DBusValue[] = [];
    while (this.off < stop) {
      const at = this.off;
      items.push(this.value(element));
      // Every element takes bytes (typeEnd refuses the empty ones); this is a guard against a loop that never ends.
      if (this.off === at) throw new DBusWireError('an array element took no bytes');
    }
    if (this.off !== stop) throw new DBusWireError('an array ends inside its last element');
    return items;
  }
}

/** A message's fixed header and the header fields Lanyard reads. */
export interface Message {
  /** 1 method call, 2 method return, 3 error, 4 signal. */
  type: number;
  serial: number;
  replySerial?: number;
  errorName?: string;
  /** A call's object path and member. */
  path?: string;
  member?: string;
  signature: string;
  /** The body's values, read by `signature`. */
  body: DBusValue[];
}

/** What a method call names. */
export interface Call {
  path: string;
  iface: string;
  member: string;
  destination: string;
  /** The body's signature (absent: no arguments). */
  signature?: string;
  args?: DBusValue[];
}

/** A METHOD_CALL message, little-endian, with serial `serial`. */
export function encodeCall(serial: number, call: Call): Buffer {
  const fields: Array<[number, Variant]> = [
    [1, { sig: 'o', value: call.path }],
    [2, { sig: 's', value: call.iface }],
    [3, { sig: 's', value: call.member }],
    [6, { sig: 's', value: call.destination }],
  ];
  return encodeMessage(1, serial, fields, call.signature ?? '', call.args ?? []);
}

/**
 * A message, little-endian: its type (1 call, 2 return, 3 error, 4 signal),
 * serial, header fields (code and value; the signature field is added when
 * the body has one) and body. A method call with no reply wanted is not
 * something Lanyard sends: the flags are always 0.
 */
export function encodeMessage(type: number, serial: number, fields: Array<[number, Variant]>, signature: string, args: DBusValue[]): Buffer {
  const w = new Writer();
  for (const v of [0x6c /* l */, type, 0 /* flags: a reply is wanted */, 1 /* version */]) w.u8(v);
  w.u32(0); // body length, below
  w.u32(serial);
  w.value('a(yv)', signature ? [...fields, [8, { sig: 'g', value: signature }]] : fields);
  w.align(8);
  const bodyStart = w.len;
  const types = splitSignature(signature);
  for (let k = 0; k < types.length; k++) w.value(types[k]!, args[k] as DBusValue);
  w.buf.writeUInt32LE(w.len - bodyStart, 4);
  return w.buf.subarray(0, w.len);
}

/**
 * The complete messages at the start of `data`, and how many bytes they took
 * (the rest is the start of a message still arriving). Throws DBusWireError
 * on a message that breaks the format or exceeds {@link MAX_MESSAGE_BYTES}.
 * With `wanted`, only the bodies of replies (method returns and errors) to a
 * serial it accepts are read: any other message (a signal, a call to us, a
 * reply nobody waits for) is skipped by its length, its body left empty.
 */
export function decodeMessages(data: Buffer, wanted?: (replySerial: number) => boolean): { messages: Message[]; used: number } {
  const messages: Message[] = [];
  let at = 0;
  while (data.length - at >= 16) {
    const le = data[at] === 0x6c;
    if (!le && data[at] !== 0x42 /* B */) throw new DBusWireError('not a D-Bus message');
    const u32 = (o: number) => (le ? data.readUInt32LE(at + o) : data.readUInt32BE(at + o));
    const fieldsLength = u32(12);
    const bodyStart = 16 + fieldsLength + ((8 - (fieldsLength % 8)) % 8);
    const total = bodyStart + u32(4);
    if (fieldsLength > MAX_MESSAGE_BYTES || total > MAX_MESSAGE_BYTES) throw new DBusWireError('a message larger than 4 MiB');
    if (data.length - at < total) break;
    // Offsets within the message align as within the message itself: read it from its own start.
    const message = data.subarray(at, at + total);
    messages.push(readMessage(message, le, bodyStart, wanted));
    at += total;
  }
  return { messages, used: at };
}

function readMessage(message: Buffer, le: boolean, bodyStart: number, wanted?: (replySerial: number) => boolean): Message {
  const r = new Reader(message, le, 12, bodyStart);
  const fields = r.value('a(yv)') as Array<[number, Variant]>;
  const m: Message = { type: message[1]!, serial: le ? message.readUInt32LE(8) : message.readUInt32BE(8), signature: '', body: [] };
  for (const [code, { sig, value }] of fields) {
    if (code === 5 && sig === 'u') m.replySerial = value as number;
    else if (code === 1 && sig === 'o') m.path = value as string;
    else if (code === 3 && sig === 's') m.member = value as string;
    else if (code === 4 && sig === 's') m.errorName = value as string;
    else if (code === 8 && sig === 'g') m.signature = value as string;
  }
  if (wanted && !((m.type === 2 || m.type === 3) && m.replySerial !== undefined && wanted(m.replySerial))) return m;
  const body = new Reader(message, le, bodyStart, message.length);
  m.body = splitSignature(m.signature).map((t) => body.value(t));
  return m;
}
