/**
 * Decoding of `Content-Encoding: deflate`: servers send either a raw RFC 1951
 * stream (the mail store does) or a zlib-wrapped RFC 1950 one. The first two
 * bytes decide; the data is inflated on the fly, never buffered.
 */
import { PassThrough, type Readable, type Transform } from 'node:stream';
import { LanyardError, ValidationError } from '../errors.js';

/** True when the two bytes are a valid zlib header (CM=8, CINFO ≤ 7, FCHECK ok). */
export function isZlibHeader(b0: number, b1: number): boolean {
  return (b0 & 0x0f) === 8 && b0 >> 4 <= 7 && ((b0 << 8) | b1) % 31 === 0;
}

/**
 * Reads the first two bytes of `body`, puts them back, and returns the inflater
 * to pipe it through (`pipeline(body, await inflaterFor(body), dest)`): a zlib
 * stream directly, no stage in between. An empty body gets a pass-through.
 */
export async function inflaterFor(body: Readable): Promise<Transform> {
  if (typeof body?.read !== 'function') throw new ValidationError('body is required: a Readable stream (a message part or raw body)');
  const parts: Buffer[] = [];
  let n = 0;
  while (n < 2) {
    const c = body.read() as Buffer | string | null;
    if (c !== null) {
      const b = typeof c === 'string' ? Buffer.from(c) : c;
      parts.push(b);
      n += b.length;
      continue;
    }
    if (body.readableEnded || body.destroyed) break;
    await new Promise<void>((resolve, reject) => {
      const done = (err?: Error) => {
        body.off('readable', ok).off('end', ok).off('error', done);
        if (err) reject(err);
        else resolve();
      };
      const ok = () => done();
      body.on('readable', ok).on('end', ok).on('error', done);
    });
  }
  if (n === 0) return new PassThrough();
  if (n < 2) throw new LanyardError('protocol_error', 'the deflate stream from the server is truncated');
  const head = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
  body.unshift(head);
  const opts = { chunkSize: 256 * 1024 };
  // zlib is loaded only for a deflated body (a plain one does not pay for it).
  const { createInflate, createInflateRaw } = await import('node:zlib');
  return isZlibHeader(head[0]!, head[1]!) ? createInflate(opts) : createInflateRaw(opts);
}
