/**
 * Event streams from a hostile server: one line of many MiB is parsed in
 * linear time and refused past the documented cap (MAX_SSE_EVENT_CHARS,
 * 16 MiB), so neither time nor memory grows with what the server sends.
 */
import { describe, expect, it } from 'vitest';
import type { HttpResponse } from '../../src/core/http/client.js';
import { MAX_SSE_EVENT_CHARS, sseEvents } from '../../src/core/protocol/jsonrpc.js';
import { expectOrderly, hostileWorld } from './hostile.js';

const MiB = 1024 * 1024;

/** A response whose body is `chunks` (strings, as the decoder would give them). */
function streamOf(chunks: Iterable<string>): HttpResponse {
  return {
    url: 'http://127.0.0.1:9/mcp',
    body: (async function* () {
      yield* chunks;
    })(),
  } as unknown as HttpResponse;
}

/** `data: ` and `size` characters in pieces of `piece`, then the blank line. */
function* longEvent(size: number, piece = 16 * 1024): Generator<string> {
  yield 'data: ';
  const block = 'x'.repeat(piece);
  for (let n = 0; n < size; n += piece) yield block;
  yield '\n\n';
}

async function collect(res: HttpResponse, cap?: number): Promise<string[]> {
  const out: string[] = [];
  for await (const ev of sseEvents(res, cap)) out.push(ev.data);
  return out;
}

describe('event-stream lines', () => {
  it('CR, LF and CRLF split across chunks end lines once each', async () => {
    const got = await collect(streamOf(['data: a\r', '\ndata: b\r', 'data: c\n', '\r', '\n', 'data: d\n\n']));
    expect(got).toEqual(['a\nb\nc', 'd']);
  });

  it('a 12 MiB line in 16 KiB chunks parses in linear time (under 2.5 s; quadratic rescans took ~10 s)', async () => {
    const t0 = performance.now();
    const got = await collect(streamOf(longEvent(12 * MiB)));
    expect(got[0]).toHaveLength(12 * MiB);
    expect(performance.now() - t0).toBeLessThan(2500);
  });

  it.each([16, 32, 64])('one %i MiB line is refused past the cap, without reading it all', async (size) => {
    let read = 0;
    const chunks = (function* () {
      for (const c of longEvent(size * MiB, 256 * 1024)) {
        read += c.length;
        yield c;
      }
    })();
    await expect(collect(streamOf(chunks))).rejects.toMatchObject({ code: 'protocol_error', message: expect.stringMatching(/longer than 16 MiB/) });
    expect(read).toBeLessThanOrEqual(MAX_SSE_EVENT_CHARS + 256 * 1024 + 6);
  });

  it('many data lines that add up past the cap are refused too', async () => {
    const lines = (function* () {
      for (let i = 0; i < 20; i++) yield `data: ${'y'.repeat(MiB)}\n`;
      yield '\n';
    })();
    await expect(collect(streamOf(lines))).rejects.toMatchObject({ code: 'protocol_error' });
  });
});

describe('the CLI against a protocol server that sends one 64 MiB line', () => {
  it('protocol request: exit 1 with one line naming the cap', async () => {
    const w = await hostileWorld();
    try {
      const block = Buffer.alloc(MiB, 'z');
      w.server.handle((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: ');
        let sent = 0;
        const more = (): void => {
          while (sent < 64 && res.write(block)) sent++;
          if (sent < 64) res.once('drain', () => (sent++, more()));
          else res.end('\n\n');
        };
        res.on('error', () => undefined);
        more();
      });
      const r = await w.run(['protocol', 'request', '--method', 'ping'], { timeoutMs: 30_000 });
      expect(expectOrderly(r, [1]), r.stderr).toBeUndefined();
      expect(r.stderr).toMatch(/longer than 16 MiB/);
    } finally {
      await w.close();
    }
  }, 40_000);
});
