/**
 * A session bus with a Secret Service behind it, on a unix socket, for the
 * unit tests of the keychain's reading: it accepts SASL EXTERNAL, answers
 * Hello, and answers the Secret Service's calls from `items` (or as
 * `behaviour` says: an error, silence, garbage). Every call it was sent is
 * recorded, with the chunk of the connection it arrived in.
 *
 * The real thing (gnome-keyring under dbus-run-session, written to by the
 * binding and by Python's SecretStorage) is in test/e2e/auth-keychain.test.ts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DBusValue, decodeMessages, encodeMessage, type Message, type Variant } from '../../../../src/core/credentials/dbus-wire.js';

export interface FakeItem {
  path: string;
  attributes: Record<string, string>;
  secret: Buffer | string;
  locked?: boolean;
}

export interface FakeBehaviour {
  /** Answer this member with an error of this name. */
  errorOn?: { member: string; name: string };
  /** Accept the connection and never answer anything. */
  silent?: boolean;
  /** Answer until this member has been answered, then nothing more (a service that freezes mid-read). */
  freezeAfter?: string;
  /** Refuse SASL. */
  refuseAuth?: boolean;
  /** The default collection's Locked (an error when 'error'). */
  locked?: boolean | 'error';
  /** Bytes sent instead of the answer to this member. */
  garbageOn?: { member: string; bytes: Buffer };
}

export interface FakeBus {
  address: string;
  items: FakeItem[];
  behaviour: FakeBehaviour;
  /** Members called, in order, with the index of the data chunk of its connection each arrived in. */
  calls: Array<{ member: string; chunk: number; args: DBusValue[] }>;
  close(): Promise<void>;
}

const str = (value: string): Variant => ({ sig: 's', value });

export async function fakeSecretService(items: FakeItem[] = [], behaviour: FakeBehaviour = {}): Promise<FakeBus> {
  const dir = await mkdtemp(join(tmpdir(), 'lanyard-fake-bus-'));
  const path = join(dir, 'bus');
  const bus: FakeBus = { address: `unix:path=${path}`, items, behaviour, calls: [], close: async () => {} };
  let serial = 1000;
  const reply = (socket: Socket, to: Message, signature: string, body: DBusValue[]) =>
    socket.write(encodeMessage(2, ++serial, [[5, { sig: 'u', value: to.serial }]], signature, body));
  const error = (socket: Socket, to: Message, name: string) =>
    socket.write(
      encodeMessage(
        3,
        ++serial,
        [
          [5, { sig: 'u', value: to.serial }],
          [4, str(name)],
        ],
        's',
        [`${name} (fake)`],
      ),
    );
  const answer = (socket: Socket, m: Message, member: string) => {
    const b = bus.behaviour;
    if (b.garbageOn?.member === member) return socket.write(b.garbageOn.bytes);
    if (b.errorOn?.member === member) return error(socket, m, b.errorOn.name);
    if (member === 'Hello') return reply(socket, m, 's', [':1.42']);
    if (member === 'OpenSession') return reply(socket, m, 'vo', [str(''), '/org/freedesktop/secrets/session/s1']);
    if (member === 'SearchItems') {
      const wanted = m.body[0] as Array<[string, string]>;
      const found = bus.items.filter((i) => wanted.every(([k, v]) => i.attributes[k] === v));
      return reply(socket, m, 'aoao', [found.filter((i) => !i.locked).map((i) => i.path), found.filter((i) => i.locked).map((i) => i.path)]);
    }
    if (member === 'GetSecrets') {
      const wanted = m.body[0] as string[];
      const secrets = bus.items
        .filter((i) => wanted.includes(i.path))
        .map((i) => [i.path, [m.body[1] as string, Buffer.alloc(0), Buffer.from(i.secret), 'text/plain']] as DBusValue);
      return reply(socket, m, 'a{o(oayays)}', [secrets]);
    }
    if (member === 'Get' && m.body[1] === 'Locked') {
      if (b.locked === 'error' || b.locked === undefined) return error(socket, m, 'org.freedesktop.Secret.Error.NoSuchObject');
      return reply(socket, m, 'v', [{ sig: 'b', value: b.locked }]);
    }
    if (member === 'Get' && m.body[1] === 'Attributes') {
      const item = bus.items.find((i) => i.path === m.path);
      if (!item) return error(socket, m, 'org.freedesktop.Secret.Error.NoSuchObject');
      return reply(socket, m, 'v', [{ sig: 'a{ss}', value: Object.entries(item.attributes) }]);
    }
    return error(socket, m, 'org.freedesktop.DBus.Error.UnknownMethod');
  };
  const server = createServer((socket) => {
    let data = Buffer.alloc(0);
    let authed = false;
    let chunk = 0;
    let frozen = false;
    socket.on('error', () => undefined);
    socket.on('data', (c: Buffer) => {
      chunk++;
      if (bus.behaviour.silent) return;
      data = Buffer.concat([data, c]);
      if (!authed) {
        const begin = data.indexOf('BEGIN\r\n');
        if (begin < 0) return;
        if (bus.behaviour.refuseAuth) return void socket.write('REJECTED EXTERNAL\r\n');
        socket.write('OK 0123456789abcdef0123456789abcdef\r\n');
        authed = true;
        data = data.subarray(begin + 7);
      }
      const { messages, used } = decodeMessages(data);
      data = data.subarray(used);
      for (const m of messages) {
        const member = m.member ?? '';
        bus.calls.push({ member, chunk, args: m.body });
        if (frozen) continue;
        answer(socket, m, member);
        frozen = member === bus.behaviour.freezeAfter;
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  bus.close = async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  };
  return bus;
}
