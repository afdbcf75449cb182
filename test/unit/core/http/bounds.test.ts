/**
 * The HTTP client against hostile servers on 127.0.0.1: redirects (within
 * and across origins; redirect.test.ts has the cross-origin rules), a body that trickles, an endless error body, and
 * rate-limit headers with a past or absurd reset.
 */
import { Readable } from 'node:stream';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient, type HttpClientOptions } from '../../../../src/core/http/client.js';
import { HttpError, RateLimitError, TimeoutError } from '../../../../src/core/errors.js';
import { ERROR_BODY_CAP } from '../../../../src/core/http/stream.js';
import { defaultRateLimitPolicy } from '../../../../src/core/ratelimit/policy.js';
import { FakeClock } from '../../../fakes/clock.js';
import { StubHttp } from '../../../fakes/stub-http.js';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
let stub: StubHttp;
let other: StubHttp;
let clock: FakeClock;
let client: HttpClient;
const servers: Server[] = [];

function make(o: Partial<HttpClientOptions> = {}): HttpClient {
  client = new HttpClient({ clock, userAgent: 'lanyard/9.9.9', random: () => 0.5, ...o });
  return client;
}

/** A server of our own for answers StubHttp cannot give (trickles, endless bodies). */
async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const s = createServer(handler);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}

beforeEach(async () => {
  stub = await StubHttp.start();
  other = await StubHttp.start();
  clock = new FakeClock(NOW);
});

afterEach(async () => {
  await client?.close();
  await stub.close();
  await other.close();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

const bearer = { scheme: 'bearer', token: 'tok-secret-1' } as const;

describe('redirects', () => {
  it('a GET follows a redirect within its origin, with its credential', async () => {
    make();
    stub.on('GET', '/old', { status: 301, headers: { location: '/new?page=2' } }).on('GET', '/new', { body: { ok: 1 } });
    const res = await client.request({ url: stub.url + '/old', credential: bearer });
    expect(await res.json()).toEqual({ ok: 1 });
    expect(res.url).toBe(`${stub.url}/new?page=2`);
    expect(stub.requests[1]!.headers.authorization).toBe('Bearer tok-secret-1');
    stub.verify();
  });

  it('a redirect to another origin is followed without the credential (redirect.test.ts has the rules)', async () => {
    make();
    for (const credential of [bearer, { scheme: 'query', name: 'key', value: 'k-secret' } as const]) {
      stub.on('GET', '/go', { status: 302, headers: { location: `${other.url}/there` } });
      other.on('GET', '/there', { body: 'there' });
      expect(await (await client.request({ url: stub.url + '/go', credential })).text()).toBe('there');
    }
    stub.on('GET', '/go', { status: 307, headers: { location: `${other.url}/there` } });
    other.on('GET', '/there', { body: 'there' });
    await client.request({ url: stub.url + '/go', headers: { Authorization: 'token x' } });
    expect(other.requests.map((r) => [r.headers.authorization, r.url.search])).toEqual([
      [undefined, ''],
      [undefined, ''],
      [undefined, ''],
    ]);
  });

  it('a request without a credential follows a redirect to another origin', async () => {
    make();
    stub.on('GET', '/raw', { status: 302, headers: { location: `${other.url}/blob` } });
    other.on('GET', '/blob', { body: 'the blob' });
    const res = await client.requestStream({ url: stub.url + '/raw', credential: { scheme: 'none' } });
    expect(await res.text()).toBe('the blob');
    expect(other.requests[0]!.headers.authorization).toBeUndefined();
  });

  it('a 3xx is not a success: other methods, a missing Location and too many hops are one-line errors', async () => {
    make();
    stub.on('POST', '/p', { status: 307, headers: { location: '/q' } });
    await expect(client.request({ method: 'POST', url: stub.url + '/p', body: Readable.from([Buffer.from('{}')]) })).rejects.toThrow(
      /redirected \(HTTP 307\) to .*\/q; a POST is not sent again/,
    );
    stub.on('GET', '/nowhere', { status: 302 });
    await expect(client.request({ url: stub.url + '/nowhere' })).rejects.toThrow(/HTTP 302 \(a redirect\) without a Location/);
    stub.on('GET', '/loop', { status: 302, headers: { location: '/loop' } }, 6);
    const err = (await client.request({ url: stub.url + '/loop' }).catch((e: unknown) => e)) as HttpError;
    expect(err.message).toMatch(/more than 5 redirects/);
    expect(stub.requests.filter((r) => r.path === '/loop')).toHaveLength(6);
    // The stream (mailbox raw --output) fails the same way instead of handing over an empty body.
    stub.on('GET', '/raw', { status: 302 });
    await expect(client.requestStream({ url: stub.url + '/raw' })).rejects.toBeInstanceOf(HttpError);
    stub.verify();
  });

  it("redirect: 'manual' returns the 3xx as it is", async () => {
    make();
    stub.on('GET', '/url', { status: 307, headers: { location: 'http://store.example/x' } });
    const res = await client.request({ url: stub.url + '/url', redirect: 'manual', okStatus: (s) => s === 307 });
    expect(res.status).toBe(307);
    expect(res.headers.location).toBe('http://store.example/x');
  });
});

describe('the total deadline of one request', () => {
  /** Headers at once, then one byte every 30 ms for ever: the idle timeout never fires. */
  const trickle = () =>
    serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
      const t = setInterval(() => res.write(':\n'), 30);
      res.on('close', () => clearInterval(t));
    });

  it('ends a trickling body with a TimeoutError (request and requestStream), one line naming the deadline, a longer one as the remedy', async () => {
    const url = await trickle();
    make({ maxNetworkRetries: 0, timeouts: { totalMs: 400, bodyMs: 5_000 }, streamTotalMs: 400 });
    const res = await client.request({ url });
    const err = (await res.text().catch((e: unknown) => e)) as TimeoutError;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.phase).toBe('total');
    expect(err.message).toMatch(/no complete answer within 1 s \(the request deadline\)$/);
    expect(err.remedy).toEqual({ kind: 'longer-deadline' });
    const streamed = await client.requestStream({ url });
    const chunks: Buffer[] = [];
    const e2 = await (async () => {
      for await (const c of streamed.body) chunks.push(c as Buffer);
    })().catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(TimeoutError);
    expect(chunks.length).toBeGreaterThan(0);
  });

  it('a request may set its own deadline; 0 means none', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200);
      res.flushHeaders();
      setTimeout(() => res.end('done'), 300);
    });
    make({ timeouts: { totalMs: 100 } });
    expect(await (await client.request({ url, timeouts: { totalMs: 0 } })).text()).toBe('done');
    await expect((await client.request({ url })).text()).rejects.toBeInstanceOf(TimeoutError);
  });

  it('also bounds the wait for the response head', async () => {
    const url = await serve(() => {
      /* never answers */
    });
    make({ maxNetworkRetries: 0, timeouts: { totalMs: 200, headersMs: 10_000 } });
    const err = (await client.request({ url }).catch((e: unknown) => e)) as TimeoutError;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.phase).toBe('total');
  });
});

describe('error bodies', () => {
  it('at most ERROR_BODY_CAP bytes of an error body are read; the connection is dropped', async () => {
    let sent = 0;
    let closed = false;
    // An endless 500: without the cap the request never ends.
    const url = await serve((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'e');
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) sent += chunk.length;
        if (!res.destroyed) res.once('drain', pump);
      };
      res.on('close', () => {
        closed = true;
      });
      pump();
    });
    make({ maxNetworkRetries: 0 });
    const err = (await client.request({ url }).catch((e: unknown) => e)) as HttpError;
    expect(err).toBeInstanceOf(HttpError);
    expect(err.status).toBe(500);
    expect(typeof err.body === 'string' && err.body.length).toBe(2000);
    expect(err.message).not.toContain('\n');
    await new Promise((r) => setTimeout(r, 50));
    expect(closed).toBe(true);
    expect(sent).toBeLessThan(ERROR_BODY_CAP + 16 * 1024 * 1024);
  });
});

describe('--wait and odd reset headers', () => {
  const refuse = (reset: string) => ({
    status: 403,
    headers: { 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset, date: new Date(clock.now()).toUTCString() },
    body: { message: 'API rate limit exceeded for 127.0.0.1.' },
  });

  it('a reset in the past is waited for a bounded number of times, then a RateLimitError says so', async () => {
    make({ rateLimitPolicy: { ...defaultRateLimitPolicy, wait: true } });
    stub.on('GET', '/a', () => refuse(String(Math.floor(clock.now() / 1000) - 3600)), 3);
    const err = (await client.request({ url: stub.url + '/a' }).catch((e: unknown) => e)) as RateLimitError;
    expect(err).toBeInstanceOf(RateLimitError);
    expect(err.hint).toMatch(/still refuses after 2 waits for the reset \(its reset time is already past\)/);
    expect(clock.sleeps).toEqual([1000, 1000]);
    stub.verify();
  });

  it('an absurd reset is no reset: a clear RateLimitError, no "Invalid time value"', async () => {
    for (const wait of [true, false]) {
      make({ rateLimitPolicy: { ...defaultRateLimitPolicy, wait } });
      stub.on('GET', '/a', refuse('99999999999999999999'));
      const err = (await client.request({ url: stub.url + '/a' }).catch((e: unknown) => e)) as RateLimitError;
      expect(err).toBeInstanceOf(RateLimitError);
      expect(err.message).toBe('API rate limit exceeded for 127.0.0.1');
      if (wait) expect(err.hint).toMatch(/no valid reset time/);
    }
    // A valid but far reset: beyond --max-wait, and the message still renders.
    make({ rateLimitPolicy: { ...defaultRateLimitPolicy, wait: true } });
    stub.on('GET', '/a', refuse('8000000000000'));
    const far = (await client.request({ url: stub.url + '/a' }).catch((e: unknown) => e)) as RateLimitError;
    expect(far).toBeInstanceOf(RateLimitError);
    expect(far.hint).toMatch(/exceeds the maximum wait/);
    expect(clock.sleeps).toEqual([]);
  });
});
