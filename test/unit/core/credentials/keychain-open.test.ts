/**
 * Opening the keychain on its own (startKeychainOpen: ping, binding, one
 * search) and handing the opening to openCredentialStore, as bin/lanyard.js
 * does before the CLI loads. The binding is a fake; the ping talks to a socket.
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
