/**
 * Decoding of `Content-Encoding: deflate`: servers send either a raw RFC 1951
 * stream (the mail store does) or a zlib-wrapped RFC 1950 one. The first two
 * bytes decide; the data is inflated on the fly, never buffered.
 */
import { Readable } from 'node:stream';
import { createInflate, createInflateRaw } from 'node:zlib';

/** True when the two bytes are a valid zlib header (CM=8, CINFO ≤ 7, FCHECK ok). */
export function isZlibHeader(b0: number, b1: number): boolean {
  return (b0 & 0x0f) === 8 && b0 >> 4 <= 7 && ((b0 << 8) | b1) % 31 === 0;
}

/** A pipeline stage (`pipeline(src, inflateAuto, dest)`) inflating raw or zlib-wrapped deflate data. */
export async function* inflateAuto(source: AsyncIterable<Uint8Array>): AsyncGenerator<Buffer> {
  const it = source[Symbol.asyncIterator]();
  let head = Buffer.alloc(0);
  while (head.length < 2) {
    const r = await it.next();
    if (r.done) {
      if (head.length) throw new Error('truncated deflate stream');
      return;
    }
    head = Buffer.concat([head, Buffer.from(r.value)]);
  }
  const opts = { chunkSize: 256 * 1024 };
  const z = isZlibHeader(head[0]!, head[1]!) ? createInflate(opts) : createInflateRaw(opts);
  const first = head;
  const input = Readable.from(
    (async function* () {
      yield first;
      for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
    })(),
    { objectMode: false },
  );
  input.on('error', (e) => z.destroy(e));
  input.pipe(z);
  yield* z as AsyncIterable<Buffer>;
}
