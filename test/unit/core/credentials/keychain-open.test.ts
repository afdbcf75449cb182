/**
 * Opening the keychain on its own (startKeychainOpen: the entries read over
 * D-Bus, or one search of the binding) and handing the opening to
 * openCredentialStore, as bin/lanyard.js does before the CLI loads. The
 * binding is a fake; the reader talks to a fake bus on a socket.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
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

const { fakeSecretService } = await import('./fake-secret-service.js');
type FakeItem = import('./fake-secret-service.js').FakeItem;
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

const BUS_ITEMS: FakeItem[] = [
  { path: '/org/freedesktop/secrets/collection/login/1', attributes: { service: 'lanyard', username: 'hosting:h' }, secret: 'mona' },
  { path: '/org/freedesktop/secrets/collection/login/2', attributes: { service: 'lanyard', username: 'hosting:h:mona' }, secret: 'tok-1' },
];
const BUS_ENTRIES = [
  { account: 'hosting:h', password: 'mona' },
  { account: 'hosting:h:mona', password: 'tok-1' },
];

describe.runIf(process.platform === 'linux')('startKeychainOpen on a session bus: the entries read over D-Bus', () => {
  it('reads them without calling the binding, which is loaded for writes', async () => {
    const bus = await fakeSecretService(BUS_ITEMS.map((i) => ({ ...i })));
    try {
      const r = await startKeychainOpen({ sessionBus: bus.address, timeoutMs: 3000 }).result;
      expect(r).toMatchObject({ ok: true, via: 'secret-service', entries: BUS_ENTRIES });
      expect(calls.find).toBe(0);
      await (r as unknown as { binding: typeof keytar }).binding.setPassword('lanyard', 'hosting:h:hubot', 'tok-2');
      expect(items.get('hosting:h:hubot')).toBe('tok-2');
    } finally {
      await bus.close();
    }
  });

  it('what the reader leaves to the binding (locked items, an error from the service), the binding searches, as before', async () => {
    for (const behaviour of [{}, { errorOn: { member: 'SearchItems', name: 'org.freedesktop.DBus.Error.ServiceUnknown' } }]) {
      const bus = await fakeSecretService([{ ...BUS_ITEMS[0]!, locked: true }], behaviour);
      try {
        calls.find = 0;
        const r = await startKeychainOpen({ sessionBus: bus.address, timeoutMs: 3000 }).result;
        expect(r).toMatchObject({ ok: true, via: 'binding', entries: [...items].map(([account, password]) => ({ account, password })) });
        expect(calls.find).toBe(1);
      } finally {
        await bus.close();
      }
    }
  });
});

describe.runIf(process.platform === 'linux')('startKeychainOpen({ unlockedOnly }): only a keychain known to be unlocked is read', () => {
  for (const [answer, expected] of [
    [false, { ok: true }],
    [true, { ok: false, reason: 'the keychain is locked' }],
    ['error', { ok: false, reason: 'cannot tell whether the keychain is unlocked' }],
  ] as const) {
    it(`the default collection answers Locked = ${String(answer)}: ${expected.ok ? 'read' : 'not read, the binding never called'}`, async () => {
      const bus = await fakeSecretService(
        BUS_ITEMS.map((i) => ({ ...i })),
        { locked: answer },
      );
      try {
        const r = await startKeychainOpen({ sessionBus: bus.address, timeoutMs: 3000, unlockedOnly: true }).result;
        expect(r).toMatchObject(expected.ok ? { ...expected, entries: BUS_ENTRIES } : expected);
        expect(bus.calls.some((c) => c.member === 'GetSecrets')).toBe(expected.ok);
        // Without unlockedOnly the same bus is read whatever the default collection says.
        expect((await startKeychainOpen({ sessionBus: bus.address, timeoutMs: 3000 }).result).ok).toBe(true);
        expect(calls.find).toBe(0);
      } finally {
        await bus.close();
      }
    });
  }

  it('what the reader would leave to the binding (locked items) is not read: the binding could unlock them with a prompt', async () => {
    const bus = await fakeSecretService([{ ...BUS_ITEMS[0]!, locked: true }], { locked: false });
    try {
      const r = await startKeychainOpen({ sessionBus: bus.address, timeoutMs: 3000, unlockedOnly: true }).result;
      expect(r).toEqual({ ok: false, reason: 'cannot read the keychain without the native binding (1 of the items are locked)' });
      expect(calls.find).toBe(0);
    } finally {
      await bus.close();
    }
  });

  it('a session bus address with a malformed %-escape: an outcome, never a rejection', async () => {
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      const opening = startKeychainOpen({ sessionBus: 'unix:path=%ZZ', timeoutMs: 3000, unlockedOnly: true });
      expect(await opening.result).toMatchObject({ ok: false });
      await opening.sent;
      expect(await startKeychainOpen({ sessionBus: 'unix:path=%ZZ', timeoutMs: 3000 }).result).toMatchObject({ ok: true, via: 'binding' });
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });

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
