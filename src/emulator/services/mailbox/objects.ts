/**
 * The object store of the emulated mail store: raw messages as files under
 * `<dataDir>/mailbox/objects/`, compressed with raw deflate (RFC 1951) above a
 * threshold. Writes go to a temporary file first and are renamed into place,
 * so a crash never leaves a half-written object under a message's name.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { join, relative, isAbsolute } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createDeflateRaw, createInflateRaw } from 'node:zlib';

export interface StoredObject {
  /** Path relative to the object root. */
  key: string;
  compressed: boolean;
  /** Bytes on disk. */
  storedSize: number;
}

export class ObjectStore {
  readonly root: string;
  constructor(root: string) {
    this.root = root;
  }

  async init(): Promise<void> {
    await mkdir(join(this.root, 'tmp'), { recursive: true });
  }

  /** Streams `src` into a temporary file; returns its path and size. */
  async receive(src: Readable | AsyncIterable<Uint8Array>): Promise<{ tmp: string; size: number }> {
    const tmp = join(this.root, 'tmp', randomUUID());
    try {
      await pipeline(src, createWriteStream(tmp, { highWaterMark: 1024 * 1024 }));
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    return { tmp, size: (await stat(tmp)).size };
  }

  /** Moves a received file under `key`, deflating it when `compress`. */
  async commit(tmp: string, key: string, compress: boolean): Promise<StoredObject> {
    const finalKey = key + (compress ? '.deflate' : '.eml');
    const dest = this.path({ key: finalKey });
    await mkdir(join(dest, '..'), { recursive: true });
    if (compress) {
      const z = tmp + '.z';
      await pipeline(createReadStream(tmp, { highWaterMark: 1024 * 1024 }), createDeflateRaw({ level: 6 }), createWriteStream(z));
      await fsyncFile(z);
      await rename(z, dest);
      await rm(tmp, { force: true });
    } else {
      await fsyncFile(tmp);
      await rename(tmp, dest);
    }
    return { key: finalKey, compressed: compress, storedSize: (await stat(dest)).size };
  }

  /** The stored bytes as they are (deflated when the object is compressed). */
  readStored(o: StoredObject): Readable {
    return createReadStream(this.path(o), { highWaterMark: 1024 * 1024 });
  }

  /** The message bytes (inflated when needed). */
  readPlain(o: StoredObject): Readable {
    const s = this.readStored(o);
    if (!o.compressed) return s;
    const inflate = createInflateRaw();
    s.on('error', (e) => inflate.destroy(e));
    return s.pipe(inflate);
  }

  /** The file of an object: always under the object root (a key that would leave it throws). */
  path(o: Pick<StoredObject, 'key'>): string {
    const p = join(this.root, o.key);
    const rel = relative(this.root, p);
    if (!rel || rel.startsWith('..') || isAbsolute(rel)) throw new Error(`object key outside the store: ${o.key}`);
    return p;
  }

  async remove(o: StoredObject): Promise<void> {
    await rm(this.path(o), { force: true });
  }

  async clear(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
    await this.init();
  }
}

async function fsyncFile(path: string): Promise<void> {
  const fh = await open(path, 'r+');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}
