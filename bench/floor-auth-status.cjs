'use strict';
// The floor of `lanyard auth status --json` with the Secret Service (bench/startup.mjs times it beside the CLI;
// not shipped): the least a Node program can do for the same answer, written by hand without Lanyard's code.
// Over one D-Bus connection of its own, in two pipelined writes as Lanyard's reader does: the SASL handshake,
// Hello, OpenSession("plain") and SearchItems({service: lanyard}); then GetSecrets and each item's Attributes.
// Then GET <api>/user with the stored token of the profile's account (node:http or node:https) and the JSON line.
// Usage: LANYARD_CONFIG_DIR=… node bench/floor-auth-status.cjs PROFILE (the profile's hosting.apiUrl in config.json)
const net = require('node:net');
const fs = require('node:fs');

const config = JSON.parse(fs.readFileSync(`${process.env.LANYARD_CONFIG_DIR}/config.json`, 'utf8'));
const apiUrl = config.profiles[process.argv[2]]['hosting.apiUrl'];
const addr = /unix:path=([^,;]+)/.exec(process.env.DBUS_SESSION_BUS_ADDRESS ?? '')?.[1];

// --- a D-Bus marshaller for the few types used (little-endian) ---
function writer() {
  const parts = [];
  let len = 0;
  const push = (b) => {
    parts.push(b);
    len += b.length;
  };
  const pad = (n) => {
    const p = (n - (len % n)) % n;
    if (p) push(Buffer.alloc(p));
  };
  const u32 = (v) => {
    pad(4);
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    push(b);
  };
  const str = (s) => {
    const b = Buffer.from(s);
    u32(b.length);
    push(b);
    push(Buffer.alloc(1));
  };
  const sig = (s) => {
    push(Buffer.from([s.length]));
    push(Buffer.from(s));
    push(Buffer.alloc(1));
  };
  const patches = [];
  /** An array whose elements are aligned to `n`, written by `fn`: its length is patched in once known. */
  const array = (n, fn) => {
    u32(0);
    const at = len - 4;
    pad(n);
    const from = len;
    fn();
    patches.push([at, len - from]);
  };
  const bytes = () => {
    const b = Buffer.concat(parts);
    for (const [at, n] of patches) b.writeUInt32LE(n, at);
    return b;
  };
  return { pad, u32, str, sig, push, array, bytes };
}

let serial = 0;
/** A method call: `body(w)` writes its arguments of signature `signature`. */
function call(path, iface, member, dest, signature, body) {
  const b = writer();
  if (body) body(b);
  const bodyBytes = b.bytes();
  const h = writer();
  h.push(Buffer.from([0x6c, 1, 0, 1]));
  h.u32(bodyBytes.length);
  h.u32(++serial);
  const fields = writer();
  const field = (code, s, fn) => {
    fields.pad(8);
    fields.push(Buffer.from([code]));
    fields.sig(s);
    fn(fields);
  };
  field(1, 'o', (w) => w.str(path));
  if (iface) field(2, 's', (w) => w.str(iface));
  field(3, 's', (w) => w.str(member));
  field(6, 's', (w) => w.str(dest));
  if (signature) field(8, 'g', (w) => w.sig(signature));
  // Header fields start at offset 16 (8-aligned), so their alignment is the array's own.
  const fb = fields.bytes();
  h.u32(fb.length);
  h.push(fb);
  h.pad(8);
  return Buffer.concat([h.bytes(), bodyBytes]);
}

// --- an unmarshaller of any message's body (signature-driven) ---
function read(buf, sigStr, start) {
  let o = start;
  let si = 0;
  const align = (n) => (o += (n - (o % n)) % n);
  const one = (s) => {
    const t = s[si++];
    if (t === 'y') return buf[o++];
    if (t === 'b' || t === 'u') {
      align(4);
      const v = buf.readUInt32LE(o);
      o += 4;
      return t === 'b' ? v !== 0 : v;
    }
    if (t === 's' || t === 'o') {
      align(4);
      const n = buf.readUInt32LE(o);
      const v = buf.toString('utf8', o + 4, o + 4 + n);
      o += 5 + n;
      return v;
    }
    if (t === 'g') {
      const n = buf[o];
      const v = buf.toString('latin1', o + 1, o + 1 + n);
      o += 2 + n;
      return v;
    }
    if (t === 'v') {
      const vs = buf.toString('latin1', o + 1, o + 1 + buf[o]);
      o += 2 + buf[o];
      const save = si;
      si = 0;
      const v = one(vs);
      si = save;
      return v;
    }
    if (t === '(' || t === '{') {
      align(8);
      const out = [];
      while (s[si] !== ')' && s[si] !== '}') out.push(one(s));
      si++;
      return out;
    }
    if (t === 'a') {
      align(4);
      const n = buf.readUInt32LE(o);
      o += 4;
      const elem = si;
      if (s[si] === 'y') {
        si++;
        const v = buf.subarray(o, o + n);
        o += n;
        return v;
      }
      if ('({xtd'.includes(s[si])) align(8);
      const end = o + n;
      const out = [];
      if (o === end) skipType(s);
      while (o < end) {
        si = elem;
        out.push(one(s));
      }
      return out;
    }
    throw new Error(`type ${t}`);
  };
  const skipType = (s) => {
    let depth = 0;
    do {
      const c = s[si++];
      if (c === '(' || c === '{') depth++;
      else if (c === ')' || c === '}') depth--;
      else if (c === 'a') continue;
    } while (depth > 0);
  };
  const out = [];
  const s = sigStr;
  while (si < s.length) out.push(one(s));
  return out;
}

/** Splits the stream into messages: { replyTo, error, body }. */
function messages(buf) {
  const out = [];
  let o = 0;
  while (buf.length - o >= 16) {
    const bodyLen = buf.readUInt32LE(o + 4);
    const fieldsLen = buf.readUInt32LE(o + 12);
    const bodyStart = o + 16 + fieldsLen + ((8 - (fieldsLen % 8)) % 8);
    if (buf.length < bodyStart + bodyLen) break;
    const [fields] = read(buf.subarray(o, bodyStart), 'a(yv)', 12);
    const f = new Map(fields.map(([c, v]) => [c, v]));
    out.push({ type: buf[o + 1], replyTo: f.get(5), body: f.get(8) ? read(buf.subarray(bodyStart, bodyStart + bodyLen), f.get(8), 0) : [] });
    o = bodyStart + bodyLen;
  }
  return { out, rest: buf.subarray(o) };
}

const SS = ['/org/freedesktop/secrets', 'org.freedesktop.Secret.Service'];
const sock = net.connect(addr);
let pending = Buffer.alloc(0);
const waiting = new Map();
const reply = (s) => new Promise((resolve) => waiting.set(s, resolve));
sock.on('data', (d) => {
  pending = pending.length ? Buffer.concat([pending, d]) : d;
  if (pending.indexOf('OK ') === 0) pending = pending.subarray(pending.indexOf('\r\n') + 2);
  const { out, rest } = messages(pending);
  pending = rest;
  for (const m of out) {
    if (m.type === 3) throw new Error(`D-Bus error answering ${m.replyTo}`);
    waiting.get(m.replyTo)?.(m.body);
  }
});
const hello = call('/org/freedesktop/DBus', 'org.freedesktop.DBus', 'Hello', 'org.freedesktop.DBus');
const open = call(...SS, 'OpenSession', 'org.freedesktop.secrets', 'sv', (w) => {
  w.str('plain');
  w.sig('s');
  w.str('');
});
const openSerial = serial;
const search = call(...SS, 'SearchItems', 'org.freedesktop.secrets', 'a{ss}', (w) =>
  w.array(8, () => {
    w.str('service');
    w.str('lanyard');
  }),
);
const searchSerial = serial;
sock.write(Buffer.concat([Buffer.from(`\0AUTH EXTERNAL ${Buffer.from(String(process.getuid())).toString('hex')}\r\nBEGIN\r\n`), hello, open, search]));

(async () => {
  const [[, session], [items]] = await Promise.all([reply(openSerial), reply(searchSerial)]);
  const secretsCall = call(...SS, 'GetSecrets', 'org.freedesktop.secrets', 'aoo', (w) => {
    w.array(4, () => {
      for (const i of items) w.str(i);
    });
    w.str(session);
  });
  const secretsSerial = serial;
  const attrCalls = items.map((i) =>
    call(i, 'org.freedesktop.DBus.Properties', 'Get', 'org.freedesktop.secrets', 'ss', (w) => {
      w.str('org.freedesktop.Secret.Item');
      w.str('Attributes');
    }),
  );
  const attrSerials = items.map((_, k) => secretsSerial + 1 + k);
  sock.write(Buffer.concat([secretsCall, ...attrCalls]));
  const [[secrets], ...attrs] = await Promise.all([reply(secretsSerial), ...attrSerials.map(reply)]);
  sock.destroy();
  const byItem = new Map(secrets.map(([item, [, , value]]) => [item, value.toString('utf8')]));
  const entries = items.map((item, k) => ({ account: new Map(attrs[k][0]).get('username'), password: byItem.get(item) }));
  // The host's active login names its token record (hosting:<host> and hosting:<host>:<login>, as Lanyard writes them).
  const url = new URL(`${apiUrl}/user`);
  const login = entries.find((e) => e.account === `hosting:${url.host}`)?.password;
  const token = JSON.parse(entries.find((e) => e.account === `hosting:${url.host}:${login}`).password).token;
  const lib = url.protocol === 'https:' ? require('node:https') : require('node:http');
  lib
    .get(url, { headers: { authorization: `Bearer ${token}`, accept: 'application/vnd.github+json', 'user-agent': 'floor' } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const user = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const scopes = res.headers['x-oauth-scopes']?.split(/,\s*/);
        const line = JSON.stringify({ hosting: [{ login: user.login, valid: res.statusCode === 200, scopes, active: true }] });
        fs.writeSync(1, `${line}\n`);
      });
    })
    .end();
})();
