/**
 * A forward proxy's answer to CONNECT is capped in bytes: a proxy that sends
 * header lines without end is cut off at 16 KiB, with the proxy's error,
 * long before the connect bound — not buffered until the memory runs out.
 * The same for a proxy reached over TLS (`https://` proxy), whose
 * certificate is checked against the added trust (a private CA made by the
 * test), as the servers' are.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../../src/core/http/client.js';
import { CONNECT_ANSWER_CAP } from '../../../../src/core/http/tunnel.js';
import { privateCa } from '../../../e2e/private-ca.js';
import { FakeClock } from '../../../fakes/clock.js';

let server: Server | undefined;
let client: HttpClient | undefined;
afterEach(async () => {
  await client?.close();
  server?.close();
});

let dir: string;
let caPem: string;
let tlsCert: { cert: Buffer; key: Buffer };
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-tunnel-unit-'));
  const ca = privateCa(dir);
  caPem = readFileSync(ca.caFile, 'utf8');
  const leaf = ca.issue('proxy', ['proxy.corp.test']);
  tlsCert = { cert: readFileSync(leaf.cert), key: readFileSync(leaf.key) };
}, 60_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A proxy (plain, or over TLS under the test's CA) that answers CONNECT with a status line, then header lines for as long as the client reads. */
async function floodingProxy(overTls = false): Promise<{ url: string; sent: () => number; closed: Promise<void> }> {
  let sent = 0;
  let closed!: () => void;
  const closedP = new Promise<void>((r) => (closed = r));
  const make = overTls ? (f: (s: Socket) => void) => createTlsServer(tlsCert, f) : createServer;
  server = make((s: Socket) => {
    s.once('data', () => {
      s.write('HTTP/1.1 200 Connection established\r\n');
      const line = `X-Filler: ${'a'.repeat(1000)}\r\n`;
      const pump = () => {
        while (!s.destroyed && sent < 64 * 1024 * 1024) {
          sent += line.length;
          if (!s.write(line)) return void s.once('drain', pump);
        }
      };
      pump();
    });
    s.on('error', () => {});
    s.on('close', closed);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `${overTls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`, sent: () => sent, closed: closedP };
}

describe("a proxy's answer to CONNECT", () => {
  it('endless header lines: the proxy error at the cap, the connection to the proxy closed, well within the connect bound', async () => {
    const proxy = await floodingProxy();
    client = new HttpClient({ clock: new FakeClock(), userAgent: 'test', proxy: { httpsProxy: proxy.url } });
    const started = performance.now();
    const err = await client.request({ method: 'GET', url: 'https://api.corp.test/user' }).then(
      () => undefined,
      (e: unknown) => e as Error & { code?: string },
    );
    expect(err?.code).toBe('proxy_error');
    expect(err?.message).toBe(`the proxy ${proxy.url} answered CONNECT with more than 16 KiB of headers`);
    await proxy.closed;
    expect(performance.now() - started).toBeLessThan(5_000);
    // What was sent beyond the cap sat in socket buffers, not in the client.
    expect(proxy.sent()).toBeLessThan(64 * 1024 * 1024);
    expect(CONNECT_ANSWER_CAP).toBe(16 * 1024);
  });

  it('over TLS (an https:// proxy): the same cap, counted in what TLS decrypts; the proxy trusted through the added CA', async () => {
    const proxy = await floodingProxy(true);
    client = new HttpClient({ clock: new FakeClock(), userAgent: 'test', proxy: { httpsProxy: proxy.url }, trust: { extraCa: [caPem] } });
    const started = performance.now();
    const err = await client.request({ method: 'GET', url: 'https://api.corp.test/user' }).then(
      () => undefined,
      (e: unknown) => e as Error & { code?: string },
    );
    expect(err?.message).toBe(`the proxy ${proxy.url} answered CONNECT with more than 16 KiB of headers`);
    expect(err?.code).toBe('proxy_error');
    await proxy.closed;
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(proxy.sent()).toBeLessThan(64 * 1024 * 1024);
  });

  it('an https:// proxy under a CA the trust settings add is trusted (its refusal is what the request meets), and is not without them', async () => {
    server = createTlsServer(tlsCert, (s) => s.once('data', () => s.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n')));
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const httpsProxy = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const attempt = async (trust?: { extraCa: string[] }) => {
      const c = new HttpClient({ clock: new FakeClock(), userAgent: 'test', proxy: { httpsProxy }, ...(trust ? { trust } : {}) });
      try {
        return await c.request({ method: 'GET', url: 'https://api.corp.test/user' }).then(
          () => 'answered',
          (e: unknown) => (e as Error).message,
        );
      } finally {
        await c.close();
      }
    };
    expect(await attempt({ extraCa: [caPem] })).toMatch(/403/);
    // Without the CA: the proxy's certificate is named as the proxy's, not as the server's it was to reach.
    expect(await attempt()).toMatch(new RegExp(`^TLS: the certificate of the proxy ${httpsProxy.replace(/\./g, '\\.')} `));
    // The tunnel's watch on TLS sockets is gone once the connection is open.
    expect(Object.hasOwn((await import('node:tls')).TLSSocket.prototype, 'connect')).toBe(false);
  });
});
