/**
 * A forward proxy's answer to CONNECT is capped in bytes: a proxy that sends
 * header lines without end is cut off at 16 KiB, with the proxy's error,
 * long before the connect bound — not buffered until the memory runs out.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../../src/core/http/client.js';
import { CONNECT_ANSWER_CAP } from '../../../../src/core/http/tunnel.js';
import { FakeClock } from '../../../fakes/clock.js';

let server: Server | undefined;
let client: HttpClient | undefined;
afterEach(async () => {
  await client?.close();
  server?.close();
});

/** A proxy that answers CONNECT with a status line, then header lines for as long as the client reads. */
async function floodingProxy(): Promise<{ url: string; sent: () => number; closed: Promise<void> }> {
  let sent = 0;
  let closed!: () => void;
  const closedP = new Promise<void>((r) => (closed = r));
  server = createServer((s: Socket) => {
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
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sent: () => sent, closed: closedP };
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
});
