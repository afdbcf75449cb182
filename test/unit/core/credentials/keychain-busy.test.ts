/**
 * The keychain's time limits measure the keychain, not this process: the
 * launcher starts the keychain's opening and then compiles the CLI, on a
 * loaded machine for longer than the limit. A ping that could only be sent
 * once this process was free again, or whose answer came while it was busy,
 * is not a time-out.
 * (The flake of auth-keychain.test.ts on a loaded CI: `auth logout` found the
 * Secret Service "not answering", fell back to the 0600 file and said no
 * account was stored.)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BusUnavailable, openBus } from '../../../../src/core/credentials/dbus-connection.js';

/** Keeps this thread busy for `ms`, as compiling the CLI does. */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-keychain-busy-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** A method return answering `serial` (header fields: REPLY_SERIAL only). */
function methodReturn(serial: number): Buffer {
  const m = Buffer.alloc(24);
  m.write('l', 0);
  m.set([2, 0, 1], 1);
  m.writeUInt32LE(0, 4);
  m.writeUInt32LE(100 + serial, 8);
  m.writeUInt32LE(8, 12);
  m.set([5, 1, 0x75, 0], 16);
  m.writeUInt32LE(serial, 20);
  return m;
}

describe('a process busy for longer than the time limit', () => {
  it.runIf(process.platform === 'linux')(
    'the Secret Service connection is timed from when it can be sent, and its answer read before the verdict',
    async () => {
      const sockets: Socket[] = [];
      const bus = async (name: string, answers: boolean) => {
        const server = createServer((s) => {
          sockets.push(s);
          if (answers) s.once('data', () => s.write(Buffer.concat([Buffer.from('OK 0123abcd\r\n'), methodReturn(1), methodReturn(2)])));
        });
        await new Promise<void>((r) => server.listen(join(dir, name), r));
        return server;
      };
      const servers = [await bus('bus', true), await bus('silent', false)];
      const ping = { path: '/org/freedesktop/DBus', iface: 'org.freedesktop.DBus.Peer', member: 'Ping', destination: 'org.freedesktop.DBus' };
      try {
        const answering = openBus(join(dir, 'bus'), 0, 100);
        const reply = answering.call(ping);
        busy(400);
        expect(await reply).toEqual({ ok: true, body: [] });
        answering.close();
        // A bus that never answers still fails within the limit once this process is free.
        const t0 = performance.now();
        const silent = openBus(join(dir, 'silent'), 0, 100);
        const unanswered = await silent.call(ping).then(
          () => undefined,
          (err: unknown) => err,
        );
        expect(unanswered).toBeInstanceOf(BusUnavailable);
        expect((unanswered as Error).message).toBe('the Secret Service did not answer within 100 ms');
        expect(performance.now() - t0).toBeLessThan(2000);
      } finally {
        for (const s of sockets) s.destroy();
        await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
      }
    },
  );
});
