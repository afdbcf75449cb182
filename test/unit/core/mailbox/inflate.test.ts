import { describe, expect, it } from 'vitest';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { deflateRawSync, deflateSync } from 'node:zlib';
import { inflaterFor, isZlibHeader } from '../../../../src/core/mailbox/inflate.js';

async function run(input: Buffer, chunk: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (let i = 0; i < input.length; i += chunk) parts.push(input.subarray(i, i + chunk));
  const out: Buffer[] = [];
  const src = Readable.from(parts);
  await pipeline(
    src,
    await inflaterFor(src),
    new Writable({
      write(c, _e, cb) {
        out.push(c as Buffer);
        cb();
      },
    }),
  );
  return Buffer.concat(out);
}

const text = Buffer.from(Array.from({ length: 5000 }, (_, i) => `line ${i} of a message\r\n`).join(''));

describe('inflaterFor', () => {
  it('recognises zlib headers and not raw deflate', () => {
    const z = deflateSync(text);
    expect(isZlibHeader(z[0]!, z[1]!)).toBe(true);
    const r = deflateRawSync(text);
    expect(isZlibHeader(r[0]!, r[1]!)).toBe(false);
  });

  it('inflates raw RFC 1951 streams, even one byte at a time', async () => {
    expect(await run(deflateRawSync(text), 1 << 16)).toEqual(text);
    const small = text.subarray(0, 2000);
    expect(await run(deflateRawSync(small), 1)).toEqual(small);
  });

  it('inflates zlib-wrapped streams', async () => {
    expect(await run(deflateSync(text), 997)).toEqual(text);
  });

  it('passes an empty body and rejects corrupt data', async () => {
    expect(await run(Buffer.alloc(0), 1)).toEqual(Buffer.alloc(0));
    await expect(run(Buffer.from([0x78]), 1)).rejects.toThrow(/truncated/);
    await expect(run(Buffer.from('definitely not deflate data at all'), 4)).rejects.toThrow();
    await expect(run(deflateRawSync(text).subarray(0, 100), 50)).rejects.toThrow();
  });
});
