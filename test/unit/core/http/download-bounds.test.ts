/**
 * The bounds of an exchange under way, on an injected clock: the deadline
 * and a body's silence (watch.ts, and the transport that arms them). A
 * download's body goes on while data flows, past the deadline; silent for the
 * bound, it ends with one line. A body that is not a download, or a
 * download's error body, keeps the deadline. The server is real (127.0.0.1);
 * only the time is the test's.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TimeoutError } from '../../../../src/core/errors.js';
import { prepareRequest } from '../../../../src/core/http/pipeline.js';
import { type Download, NodeHttpTransport } from '../../../../src/core/http/transport.js';
import type { HttpResponse, Timeouts } from '../../../../src/core/http/types.js';
import { Watch } from '../../../../src/core/http/watch.js';
import { FakeClock } from '../../../fakes/clock.js';

const DEADLINE = 2_000;
const T: Timeouts = { connectMs: 10_000, headersMs: 10_000, bodyMs: 60_000, totalMs: DEADLINE };
const flush = () => new Promise((r) => setImmediate(r));

describe('Watch', () => {
  it('fires after ms without a touch: never while touched more often, once when silent; clear() disarms', async () => {
    const clock = new FakeClock(0, { autoAdvance: false });
    let fired = 0;
    const w = new Watch(clock, 1_000, () => fired++);
    for (let i = 0; i < 20; i++) {
      clock.advance(900);
      await flush();
      w.touch();
    }
    expect(fired).toBe(0);
    clock.advance(999);
    await flush();
    expect(fired).toBe(0);
    clock.advance(1);
    await flush();
    await flush();
    expect(fired).toBe(1);
    clock.advance(5_000);
    await flush();
    expect(fired).toBe(1);
    const cleared = new Watch(clock, 1_000, () => fired++);
    cleared.clear();
    clock.advance(5_000);
    await flush();
    expect(fired).toBe(1);
    // 0: no bound.
    new Watch(clock, 0, () => fired++);
    clock.advance(1e9);
    await flush();
    expect(fired).toBe(1);
  });
});

describe('the transport: a download is bounded by its silence, not its length', () => {
  let server: Server | undefined;
  let transport: NodeHttpTransport | undefined;

  afterEach(async () => {
    await transport?.close();
    server?.closeAllConnections();
    await new Promise((r) => (server ? server.close(r) : r(undefined)));
    server = transport = undefined;
  });

  /** A server whose answer (`status`) the test writes chunk by chunk; the response once its head is sent. */
  async function open(clock: FakeClock, status: number, download?: Download) {
    let answer!: ServerResponse;
    const served = new Promise<void>((resolve) => {
      server = createServer((_req, res) => {
        res.writeHead(status, { 'content-type': 'application/octet-stream' });
        res.flushHeaders();
        answer = res;
        resolve();
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server!.address() as AddressInfo).port}/archive.tgz`;
    transport = new NodeHttpTransport(4, { clock });
    const res: HttpResponse = await transport.send(prepareRequest('GET', { url }, 'lanyard/test'), { url }, T, download);
    await served;
    const it = res.body[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
    /** Sends one chunk and waits until it has arrived. */
    const chunk = async (s: string) => {
      answer.write(s);
      const n = await it.next();
      expect(n.done).toBe(false);
    };
    return { res, it, chunk, answer, url };
  }

  it('a download trickling for 10× the deadline, never silent for it, arrives whole', async () => {
    const clock = new FakeClock(0, { autoAdvance: false });
    const { it: body, chunk, answer } = await open(clock, 200, { totalMs: 0 });
    for (let i = 0; i < 11; i++) {
      await chunk('x'.repeat(1024));
      clock.advance(DEADLINE - 100);
      await flush();
    }
    answer.end();
    expect((await body.next()).done).toBe(true);
    expect(clock.monotonic()).toBeGreaterThan(10 * DEADLINE);
  });

  it('a download silent for the bound (the deadline, shorter than the idle timeout) ends with one line', async () => {
    const clock = new FakeClock(0, { autoAdvance: false });
    const { it: body, chunk, url } = await open(clock, 200, { totalMs: 0 });
    await chunk('x');
    const pending = body.next();
    clock.advance(DEADLINE);
    const err = (await pending.catch((e: unknown) => e)) as TimeoutError;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.phase).toBe('body');
    expect(err.message).toBe(`GET ${url}: the answer stalled: no data for 2 s`);
    expect(err.message).not.toContain('\n');
    expect(err.remedy).toBeUndefined();
  });

  it('a reader that stops reading for 10× the bound while the server is prompt: no silence, the body arrives whole', async () => {
    const clock = new FakeClock(0, { autoAdvance: false });
    const { it: body, answer } = await open(clock, 200, { totalMs: 0 });
    const big = Buffer.alloc(4 * 1024 * 1024, 'b');
    answer.end(big);
    let got = (await body.next()).value!.length;
    // The reader is busy elsewhere (its output is full): the socket fills, then pauses.
    for (let i = 0; i < 10; i++) {
      clock.advance(DEADLINE);
      for (let j = 0; j < 5; j++) await flush();
    }
    for (let n = await body.next(); !n.done; n = await body.next()) got += n.value.length;
    expect(got).toBe(big.length);
  });

  it('a reader away for 10× the bound with nothing sent meanwhile: the silence counts from when it asks again', async () => {
    const clock = new FakeClock(0, { autoAdvance: false });
    const { it: body, chunk, answer, url } = await open(clock, 200, { totalMs: 0 });
    await chunk('first');
    for (let i = 0; i < 10; i++) {
      clock.advance(DEADLINE);
      await flush();
    }
    // Back: it waits, the server still says nothing — within the bound, no error …
    let pending = body.next();
    let settled = false;
    void pending.then(
      () => (settled = true),
      () => (settled = true),
    );
    clock.advance(DEADLINE - 1);
    for (let j = 0; j < 5; j++) await flush();
    expect(settled).toBe(false);
    answer.write('second');
    expect((await pending).value!.toString()).toBe('second');
    // … and silent for the whole bound while it waits, one line.
    pending = body.next();
    clock.advance(DEADLINE);
    const err = (await pending.catch((e: unknown) => e)) as TimeoutError;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.message).toBe(`GET ${url}: the answer stalled: no data for 2 s`);
  });

  it('a reader piping the body to a destination that is full: its wait is no silence', async () => {
    const clock = new FakeClock(0, { autoAdvance: false });
    const { res, answer } = await open(clock, 200, { totalMs: 0 });
    const { PassThrough } = await import('node:stream');
    // A destination nobody reads: full after its high-water mark, so the pipe pauses the body (then the server says nothing).
    const dest = new PassThrough({ highWaterMark: 1024 });
    res.body.pipe(dest);
    answer.write(Buffer.alloc(4 * 1024, 'p'));
    for (let j = 0; j < 5; j++) await flush();
    for (let i = 0; i < 10; i++) {
      clock.advance(DEADLINE);
      await flush();
    }
    expect(res.body.destroyed).toBe(false);
    answer.end();
    let got = 0;
    for await (const c of dest) got += (c as Buffer).length;
    expect(got).toBe(4 * 1024);
  });

  it("a download's own total (streamTotalMs) still ends it", async () => {
    const clock = new FakeClock(0, { autoAdvance: false });
    const { it: body, chunk } = await open(clock, 200, { totalMs: 5 * DEADLINE });
    let err: unknown;
    for (let i = 0; i < 10 && !err; i++) {
      await chunk('x');
      clock.advance(DEADLINE - 100);
      await flush();
      if (i >= 5)
        err = await Promise.race([
          body.next().then(
            () => undefined,
            (e: unknown) => e,
          ),
          flush().then(() => undefined),
        ]);
    }
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as TimeoutError).message).toMatch(/no complete answer within 10 s \(the download's deadline\)$/);
  });

  it.each([
    ['a body that is not a download', 200, undefined],
    ["a download's error body", 500, { totalMs: 0 }],
  ] as const)('%s keeps the deadline, trickle or not', async (_what, status, download) => {
    const clock = new FakeClock(0, { autoAdvance: false });
    const { it: body, chunk } = await open(clock, status, download);
    await chunk('{"message":');
    clock.advance(DEADLINE - 100);
    await flush();
    await chunk('"x"');
    const pending = body.next();
    clock.advance(100);
    const err = (await pending.catch((e: unknown) => e)) as TimeoutError;
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err.phase).toBe('total');
  });
});
