/**
 * Opening the keychain on its own (startKeychainOpen: ping, binding, one
 * search) and handing the opening to openCredentialStore, as bin/lanyard.js
 * does before the CLI loads. The binding is a fake; the ping talks to a socket.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';

const items = new Map<string, string>();
const calls = { find: 0 };
let findImpl: () => Promise<Array<{ account: string; password: string }>>;
const keytar = {
  findCredentials: async () => {
    calls.find++;
    return findImpl();
  },
  getPassword: async (_s: string, a: string) => items.get(a) ?? null,
  setPassword: async (_s: string, a: string, p: string) => void items.set(a, p),
  deletePassword: async (_s: string, a: string) => items.delete(a),
};
vi.mock('@napi-rs/keyring/keytar.js', () => ({ default: keytar, ...keytar }));
// The platform package is not what this test loads: the keytar-compatible fake is.
vi.mock('@napi-rs/keyring-linux-x64-gnu', () => ({ default: {} }));
vi.mock('@napi-rs/keyring-linux-arm64-gnu', () => ({ default: {} }));

const { startKeychainOpen } = await import('../../../../src/core/credentials/keychain-open.js');
const { openCredentialStore } = await import('../../../../src/core/credentials/open.js');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-keychain-open-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));
beforeEach(() => {
  items.clear();
  items.set('hosting:h', 'mona');
  items.set('hosting:h:mona', 'tok-1');
  calls.find = 0;
  findImpl = async () => [...items].map(([account, password]) => ({ account, password }));
});

describe('startKeychainOpen', () => {
  it('loads the binding and makes one search; `sent` settles no later than the result', async () => {
    const order: string[] = [];
    const opening = startKeychainOpen({});
    opening.sent.then(() => order.push('sent'));
    const r = await opening.result;
    order.push('result');
    await opening.sent;
    expect(r).toMatchObject({ ok: true, entries: [...items].map(([account, password]) => ({ account, password })) });
    expect(calls.find).toBe(1);
    expect(order).toEqual(['sent', 'result']);
  });

  it('reports a failing search as a reason, never a rejection', async () => {
    findImpl = async () => {
      throw new Error('Cannot autolaunch D-Bus without X11 $DISPLAY\nmore detail');
    };
    expect(await startKeychainOpen({}).result).toEqual({ ok: false, reason: 'keychain list failed: Cannot autolaunch D-Bus without X11 $DISPLAY' });
  });

  it('gives up on a search that does not answer within the time limit', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      findImpl = () => new Promise(() => {});
      const opening = startKeychainOpen({ timeoutMs: 1500 });
      await opening.sent;
      await vi.advanceTimersByTimeAsync(1500);
      expect(await opening.result).toEqual({ ok: false, reason: 'the keychain did not answer within 1500 ms (list)' });
    } finally {
      vi.useRealTimers();
    }
  });

  it.runIf(process.platform === 'linux')('on Linux, a session bus that cannot be reached: unavailable, and the binding is never called', async () => {
    const r = await startKeychainOpen({ sessionBus: `unix:path=${join(dir, 'no-bus')}`, timeoutMs: 3000 }).result;
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.reason).toMatch(/cannot connect to the session bus \(ENOENT\)/);
    expect(calls.find).toBe(0);
  });
});

/**
 * A session bus on a socket that accepts any client and answers each call by
 * its serial: Hello and Ping with an empty return, and, when the client
 * asks for it, the default collection's `Locked` as `answer` says (a
 * boolean, or an error reply).
 */
async function fakeBus(answer: boolean | 'error'): Promise<{ address: string; close: () => Promise<void> }> {
  const path = join(dir, `bus-${String(answer)}-${Math.random().toString(36).slice(2)}`);
  const message = (type: 2 | 3, replySerial: number, fields: Buffer[], body: Buffer) => {
    const head = Buffer.alloc(16);
    head.write('l', 0);
    head[1] = type;
    head[3] = 1;
    head.writeUInt32LE(body.length, 4);
    head.writeUInt32LE(1000 + replySerial, 8);
    const serial = Buffer.alloc(8);
    serial.set([5, 1, 0x75, 0], 0); // REPLY_SERIAL, signature "u"
    serial.writeUInt32LE(replySerial, 4);
    const all = Buffer.concat([serial, ...fields]);
    head.writeUInt32LE(all.length, 12);
    const pad = Buffer.alloc((8 - ((16 + all.length) % 8)) % 8);
    return Buffer.concat([head, all, pad, body]);
  };
  const signature = (sig: string) => Buffer.concat([Buffer.from([8, 1, 0x67, 0, sig.length]), Buffer.from(`${sig}\0`)]);
  const padded = (b: Buffer) => Buffer.concat([b, Buffer.alloc((8 - (b.length % 8)) % 8)]);
  const errorName = () => {
    const name = Buffer.from('org.freedesktop.Secret.Error.NoSuchObject');
    const b = Buffer.alloc(8 + name.length + 1);
    b.set([4, 1, 0x73, 0], 0); // ERROR_NAME, signature "s"
    b.writeUInt32LE(name.length, 4);
    name.copy(b, 8);
    return padded(b);
  };
  const server = createServer((socket) => {
    // The client's side comes in one write; the Locked reply only when it asked (Properties.Get of the collection's Locked).
    socket.once('data', (chunk: Buffer) => {
      const asked = chunk.includes('org.freedesktop.Secret.Collection');
      const locked = Buffer.alloc(8);
      locked.set([1, 0x62, 0], 0); // variant of signature "b"
      locked.writeUInt32LE(answer === true ? 1 : 0, 4);
      socket.write(
        Buffer.concat([
          Buffer.from('OK 1234deadbeef\r\n'),
          message(2, 1, [], Buffer.alloc(0)),
          message(2, 2, [], Buffer.alloc(0)),
          ...(!asked ? [] : answer === 'error' ? [message(3, 3, [errorName()], Buffer.alloc(0))] : [message(2, 3, [padded(signature('v'))], locked)]),
        ]),
      );
    });
  });
  await new Promise<void>((r) => server.listen(path, r));
  return { address: `unix:path=${path}`, close: () => new Promise((r) => server.close(() => r())) };
}

describe.runIf(process.platform === 'linux')('startKeychainOpen({ unlockedOnly }): only a keychain known to be unlocked is read', () => {
  for (const [answer, expected] of [
    [false, { ok: true }],
    [true, { ok: false, reason: 'the keychain is locked' }],
    ['error', { ok: false, reason: 'cannot tell whether the keychain is unlocked' }],
  ] as const) {
    it(`the default collection answers Locked = ${String(answer)}: ${expected.ok ? 'read' : 'not read, the binding never called'}`, async () => {
      const bus = await fakeBus(answer);
      try {
        const r = await startKeychainOpen({ sessionBus: bus.address, timeoutMs: 3000, unlockedOnly: true }).result;
        expect(r).toMatchObject(expected);
        expect(calls.find).toBe(expected.ok ? 1 : 0);
        // Without unlockedOnly the same bus is only pinged: the binding is called whatever the lock.
        calls.find = 0;
        expect((await startKeychainOpen({ sessionBus: bus.address, timeoutMs: 3000 }).result).ok).toBe(true);
        expect(calls.find).toBe(1);
      } finally {
        await bus.close();
      }
    });
  }

  it('no session bus to ask: not read', async () => {
    expect(await startKeychainOpen({ unlockedOnly: true }).result).toEqual({ ok: false, reason: 'cannot tell whether the keychain is unlocked' });
    expect(calls.find).toBe(0);
  });
});

describe('openCredentialStore with an opening under way', () => {
  it('uses it: the keychain store holds what the opening read, and nothing is searched again', async () => {
    const opening = startKeychainOpen({});
    await opening.result;
    let waited = false;
    const s = await openCredentialStore({ configDir: dir, keychain: opening, onWaiting: () => (waited = true) });
    expect(s.kind).toBe('keychain');
    expect([...(s.opened ?? [])]).toEqual([...items]);
    expect(await s.list()).toEqual([...items.keys()]);
    expect(calls.find).toBe(1);
    await Promise.resolve();
    expect(waited).toBe(true);
  });

  it('falls back to the 0600 file, saying why, when the opening failed', async () => {
    findImpl = async () => {
      throw new Error('no Secret Service');
    };
    const why: string[] = [];
    const s = await openCredentialStore({ configDir: dir, keychain: startKeychainOpen({}), onFallback: (w) => why.push(w) });
    expect(s.kind).toBe('file');
    expect(why).toEqual(['the OS keychain is unavailable (keychain list failed: no Secret Service)']);
  });

  it('ignores the opening when the keychain is not to be used', async () => {
    const opening = startKeychainOpen({});
    const s = await openCredentialStore({ configDir: dir, keychain: opening, disableKeychain: true });
    expect(s.kind).toBe('file');
  });
});
