/**
 * The D-Bus wire codec (dbus-wire.ts): method calls as the format lays them
 * out (checked byte by byte against the specification's rules, not only
 * against our own reader), messages of both byte orders read back, and
 * messages that break the format refused.
 */
import { describe, expect, it } from 'vitest';
import { DBusWireError, decodeMessages, encodeCall, encodeMessage, splitSignature } from '../../../../src/core/credentials/dbus-wire.js';

describe('dbus-wire', () => {
  it('lays out a method call as the specification says: fixed header, 8-aligned fields, 8-aligned body', () => {
    const m = encodeCall(7, { path: '/a', iface: 'i.f', member: 'M', destination: 'd.e', signature: 's', args: ['hi'] });
    expect(m.subarray(0, 4)).toEqual(Buffer.from([0x6c, 1, 0, 1]));
    expect(m.readUInt32LE(8)).toBe(7);
    const fieldsLength = m.readUInt32LE(12);
    const bodyStart = 16 + fieldsLength + ((8 - (fieldsLength % 8)) % 8);
    expect(m.readUInt32LE(4)).toBe(m.length - bodyStart);
    // The body: a string 'hi' (length 2, the bytes, a NUL).
    expect(m.subarray(bodyStart)).toEqual(Buffer.from([2, 0, 0, 0, 0x68, 0x69, 0]));
    // The first field: code 1 (PATH), variant of signature 'o', length 2, '/a', NUL.
    expect(m.subarray(16, 16 + 11)).toEqual(Buffer.from([1, 1, 0x6f, 0, 2, 0, 0, 0, 0x2f, 0x61, 0]));
  });

  it('reads back what it writes, containers included', () => {
    const body = [
      [
        ['service', 'lanyard'],
        ['username', 'ü'],
      ],
      [1, 2].map(String),
      { sig: 'ay', value: Buffer.from([0, 255]) },
      [['/o', ['/s', Buffer.alloc(0), Buffer.from('x'), 't']]],
    ];
    const sig = 'a{ss}asva{o(oayays)}';
    const { messages, used } = decodeMessages(encodeMessage(2, 9, [[5, { sig: 'u', value: 3 }]], sig, body));
    expect(used).toBeGreaterThan(0);
    expect(messages).toEqual([{ type: 2, serial: 9, replySerial: 3, signature: sig, body }]);
  });

  it('reads a big-endian message', () => {
    // METHOD_RETURN, serial 2, REPLY_SERIAL 5, SIGNATURE 'u', body u32 258: hand-laid big-endian
    // (the fields' array is 15 bytes long: the padding before the body is not part of it).
    const fields = Buffer.from([5, 1, 0x75, 0, 0, 0, 0, 5, 8, 1, 0x67, 0, 1, 0x75, 0, 0]);
    const head = Buffer.from([0x42, 2, 0, 1, 0, 0, 0, 4, 0, 0, 0, 2, 0, 0, 0, 15]);
    const { messages } = decodeMessages(Buffer.concat([head, fields, Buffer.from([0, 0, 1, 2])]));
    expect(messages).toEqual([{ type: 2, serial: 2, replySerial: 5, signature: 'u', body: [258] }]);
  });

  it('leaves a message that has not all arrived for later', () => {
    const m = encodeMessage(2, 1, [[5, { sig: 'u', value: 1 }]], 's', ['a longer string than the cut']);
    expect(decodeMessages(m.subarray(0, m.length - 3))).toEqual({ messages: [], used: 0 });
    const two = Buffer.concat([m, m.subarray(0, 20)]);
    expect(decodeMessages(two).used).toBe(m.length);
  });

  it('refuses what breaks the format: a length past the end, a missing NUL, a bad first byte, deep nesting, a huge message, a bad signature', () => {
    const good = encodeMessage(2, 1, [[5, { sig: 'u', value: 1 }]], 's', ['abc']);
    const bodyStart = good.length - 8;
    const longString = Buffer.from(good);
    longString.writeUInt32LE(100, bodyStart);
    expect(() => decodeMessages(longString)).toThrow(DBusWireError);
    const noNul = Buffer.from(good);
    noNul[good.length - 1] = 0x41;
    expect(() => decodeMessages(noNul)).toThrow(/not terminated/);
    expect(() => decodeMessages(Buffer.concat([Buffer.from('X'), good.subarray(1)]))).toThrow(/not a D-Bus message/);
    const huge = Buffer.from(good);
    huge.writeUInt32LE(5 << 20, 4);
    expect(() => decodeMessages(huge)).toThrow(/larger than 4 MiB/);
    let nested: unknown = 1;
    for (let i = 0; i < 70; i++) nested = { sig: i === 0 ? 'u' : 'v', value: nested };
    expect(() => decodeMessages(encodeMessage(2, 1, [], 'v', [nested as never]))).toThrow(/nested too deep/);
    expect(() => splitSignature('a{ss')).toThrow(DBusWireError);
    expect(() => splitSignature('z')).toThrow(DBusWireError);
  });

  describe('hostile messages: an empty struct or dict entry in an array, and bodies nobody waits for', () => {
    /** A message of `type` whose signature field says `sig`, with `body` laid in by hand (encodeMessage writes only valid types). */
    const hostile = (type: number, sig: string, replySerial?: number) => {
      // The body an array of empty structs would be read from: length 16, padding to 8, 16 bytes.
      const body = Buffer.concat([Buffer.from([16, 0, 0, 0, 0, 0, 0, 0]), Buffer.alloc(16)]);
      const fields: Array<[number, { sig: string; value: number | string }]> = [[8, { sig: 'g', value: sig }]];
      if (replySerial !== undefined) fields.unshift([5, { sig: 'u', value: replySerial }]);
      const head = encodeMessage(type, 9, fields, '', []);
      const m = Buffer.concat([head, body]);
      m.writeUInt32LE(body.length, 4);
      return m;
    };

    it('refuses an empty struct `()`, an empty dict entry `{}` and a dict entry that is not a basic key and one value (each read would take no bytes: an array of them never ended)', () => {
      for (const sig of ['a()', 'a{}', 'a(())', 'a{s}', 'a{sss}', 'a{(y)s}', 'a{ays}']) {
        expect(() => decodeMessages(hostile(2, sig, 1)), sig).toThrow(DBusWireError);
        expect(() => splitSignature(sig), sig).toThrow(DBusWireError);
      }
      expect(splitSignature('a{sv}a(y)')).toEqual(['a{sv}', 'a(y)']);
    });

    it('with `wanted`, reads only the bodies of replies it waits for: a signal, a call to us and an unawaited reply are skipped by length', () => {
      const skipped = Buffer.concat([hostile(4, 'a()'), hostile(1, 'a{}'), hostile(2, 'a()', 5), hostile(3, 'a()', 6)]);
      const { messages, used } = decodeMessages(skipped, (serial) => serial === 7);
      expect(used).toBe(skipped.length);
      expect(messages.map((m) => [m.type, m.body])).toEqual([
        [4, []],
        [1, []],
        [2, []],
        [3, []],
      ]);
      expect(() => decodeMessages(hostile(2, 'a()', 7), (serial) => serial === 7)).toThrow(DBusWireError);
      const good = encodeMessage(2, 1, [[5, { sig: 'u', value: 7 }]], 's', ['abc']);
      expect(decodeMessages(good, (serial) => serial === 7).messages[0]!.body).toEqual(['abc']);
    });
  });
});
