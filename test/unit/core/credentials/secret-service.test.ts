/**
 * Reading the keychain's entries over D-Bus (secret-service.ts), against a
 * fake session bus on a unix socket: two round trips, what is left to the
 * binding, what makes the keychain unavailable, and the bounds.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { unixSocketOf } from '../../../../src/core/credentials/dbus-connection.js';
import { readSecretService } from '../../../../src/core/credentials/secret-service.js';
import { type FakeBus, type FakeItem, fakeSecretService } from './fake-secret-service.js';

const ITEMS: FakeItem[] = [
  { path: '/org/freedesktop/secrets/collection/login/1', attributes: { service: 'lanyard', username: 'hosting:h' }, secret: 'mona' },
  { path: '/org/freedesktop/secrets/collection/login/2', attributes: { service: 'lanyard', username: 'hosting:h:mona' }, secret: 'tök-1 ✓' },
  // Another program's item, and one of ours without a username (the binding skips those too).
  { path: '/org/freedesktop/secrets/collection/login/3', attributes: { service: 'other', username: 'x' }, secret: 'not ours' },
  { path: '/org/freedesktop/secrets/collection/login/4', attributes: { service: 'lanyard' }, secret: 'no name' },
];

let bus: FakeBus | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await bus?.close();
  bus = undefined;
});

const read = (b: FakeBus, more: Partial<Parameters<typeof readSecretService>[0]> = {}) =>
  readSecretService({ address: b.address, uid: 1000, timeoutMs: 3000, service: 'lanyard', ...more });

describe('readSecretService', () => {
  it("reads the service's entries in two round trips: the secrets and attributes only once the search has answered", async () => {
    bus = await fakeSecretService(ITEMS.map((i) => ({ ...i })));
    let sent = 0;
    const r = await read(bus, { onSent: () => sent++ });
    expect(r).toEqual({
      kind: 'entries',
      entries: [
        { account: 'hosting:h', password: 'mona' },
        { account: 'hosting:h:mona', password: 'tök-1 ✓' },
      ],
    });
    expect(sent).toBe(1);
    const first = bus.calls.filter((c) => ['Hello', 'OpenSession', 'SearchItems'].includes(c.member));
    expect(first.map((c) => c.member)).toEqual(['Hello', 'OpenSession', 'SearchItems']);
    expect(new Set(first.map((c) => c.chunk)).size).toBe(1);
    expect(bus.calls.find((c) => c.member === 'OpenSession')?.args).toEqual(['plain', { sig: 's', value: '' }]);
    const second = bus.calls.filter((c) => ['GetSecrets', 'Get'].includes(c.member));
    expect(second.map((c) => c.member)).toEqual(['GetSecrets', 'Get', 'Get', 'Get']);
    expect(Math.min(...second.map((c) => c.chunk))).toBeGreaterThan(first[0]!.chunk);
    expect(bus.calls.find((c) => c.member === 'GetSecrets')?.args).toEqual([
      ITEMS.filter((i) => i.attributes.service === 'lanyard').map((i) => i.path),
      '/org/freedesktop/secrets/session/s1',
    ]);
  });

  it('no items: no entries, after one round trip', async () => {
    bus = await fakeSecretService([]);
    expect(await read(bus)).toEqual({ kind: 'entries', entries: [] });
    expect(bus.calls.map((c) => c.member)).toEqual(['Hello', 'OpenSession', 'SearchItems']);
  });

  it('locked items are left to the binding (reading them is an unlock), and their secrets are not asked for', async () => {
    bus = await fakeSecretService([{ ...ITEMS[0]! }, { ...ITEMS[1]!, locked: true }]);
    expect(await read(bus)).toEqual({ kind: 'binding', why: '1 of the items are locked' });
    expect(bus.calls.map((c) => c.member)).not.toContain('GetSecrets');
  });

  for (const member of ['OpenSession', 'SearchItems', 'GetSecrets', 'Get']) {
    it(`an error answered to ${member} is left to the binding, with the error's name`, async () => {
      bus = await fakeSecretService(
        ITEMS.map((i) => ({ ...i })),
        { errorOn: { member, name: 'org.freedesktop.DBus.Error.ServiceUnknown' } },
      );
      const r = await read(bus);
      expect(r.kind).toBe('binding');
      expect(r.kind === 'binding' && r.why).toMatch(/^org\.freedesktop\.DBus\.Error\.ServiceUnknown: /);
    });
  }

  it('a service that accepts the connection and never answers: unavailable once the time limit passes (one limit for the whole read)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    bus = await fakeSecretService(ITEMS, { silent: true });
    const reading = read(bus, { timeoutMs: 1500 });
    await vi.advanceTimersByTimeAsync(1499);
    let settled = false;
    void reading.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await reading).toEqual({ kind: 'unavailable', reason: 'the Secret Service did not answer within 1500 ms' });
  });

  it('a service that freezes between the two round trips: unavailable at the same one time limit, counted from the start', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    bus = await fakeSecretService(
      ITEMS.map((i) => ({ ...i })),
      { freezeAfter: 'SearchItems' },
    );
    const reading = read(bus, { timeoutMs: 1500 });
    // Real I/O: wait until the second batch has reached the fake, then let the limit pass.
    for (let i = 0; i < 200 && !bus.calls.some((c) => c.member === 'GetSecrets'); i++) await new Promise((r) => setImmediate(r));
    expect(bus.calls.some((c) => c.member === 'GetSecrets')).toBe(true);
    await vi.advanceTimersByTimeAsync(1500);
    expect(await reading).toEqual({ kind: 'unavailable', reason: 'the Secret Service did not answer within 1500 ms' });
  });

  it('no bus at the address, or one that refuses authentication: unavailable, saying why', async () => {
    expect(await readSecretService({ address: 'unix:path=/nonexistent/lanyard-bus', uid: 1, timeoutMs: 3000, service: 'lanyard' })).toEqual({
      kind: 'unavailable',
      reason: 'cannot connect to the session bus (ENOENT)',
    });
    bus = await fakeSecretService(ITEMS, { refuseAuth: true });
    expect(await read(bus)).toEqual({ kind: 'unavailable', reason: 'the session bus refused authentication (REJECTED EXTERNAL)' });
  });

  it('a bus that is not on a unix socket is left to the binding', async () => {
    expect(await readSecretService({ address: 'tcp:host=127.0.0.1,port=1', uid: 1, timeoutMs: 3000, service: 'lanyard' })).toEqual({
      kind: 'binding',
      why: 'the session bus is not on a unix socket',
    });
  });

  it('a bus address with a malformed %-escape is no unix socket: left to the binding, nothing thrown', async () => {
    expect(unixSocketOf('unix:path=%ZZ')).toBeUndefined();
    expect(unixSocketOf('unix:path=%ZZ;unix:path=/run/b%75s')).toBe('/run/bus');
    expect(await readSecretService({ address: 'unix:path=%ZZ', uid: 1, timeoutMs: 3000, service: 'lanyard' })).toEqual({
      kind: 'binding',
      why: 'the session bus is not on a unix socket',
    });
  });

  it('a malformed answer, or one past the size bound, makes the keychain unavailable without waiting for the time limit', async () => {
    const bogus = Buffer.concat([Buffer.from('l\x02\x00\x01'), Buffer.alloc(12, 0xff)]);
    bus = await fakeSecretService(ITEMS, { garbageOn: { member: 'OpenSession', bytes: Buffer.concat([Buffer.from('X'), Buffer.alloc(31)]) } });
    expect(await read(bus)).toMatchObject({
      kind: 'unavailable',
      reason: expect.stringMatching(/^the session bus sent a malformed message \(not a D-Bus message\)/),
    });
    await bus.close();
    bus = await fakeSecretService(ITEMS, { garbageOn: { member: 'OpenSession', bytes: bogus } });
    expect(await read(bus)).toMatchObject({ kind: 'unavailable', reason: expect.stringMatching(/larger than 4 MiB/) });
    await bus.close();
    bus = await fakeSecretService(ITEMS, { garbageOn: { member: 'OpenSession', bytes: Buffer.alloc(5 << 20, 0x41) } });
    expect(await read(bus)).toMatchObject({ kind: 'unavailable' });
  });

  describe('unlockedOnly (shell completion): only a default collection known to be unlocked is read', () => {
    for (const [locked, expected] of [
      [false, { kind: 'entries' }],
      [true, { kind: 'unavailable', reason: 'the keychain is locked' }],
      ['error', { kind: 'unavailable', reason: 'cannot tell whether the keychain is unlocked' }],
    ] as const) {
      it(`Locked answers ${String(locked)}: ${expected.kind}`, async () => {
        bus = await fakeSecretService(
          ITEMS.map((i) => ({ ...i })),
          { locked },
        );
        expect(await read(bus, { unlockedOnly: true })).toMatchObject(expected);
        if (expected.kind !== 'entries') expect(bus.calls.map((c) => c.member)).not.toContain('GetSecrets');
      });
    }
  });
});
