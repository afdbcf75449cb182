/** Reading secrets and data from standard input (never from argv). */
import type { IO } from '../io.js';
import { UsageError } from '../errors/usage-error.js';

export interface ReadStdinOptions {
  /** What is read, for messages ("the API key"). */
  what: string;
  /** How to provide it, shown when stdin is a terminal. */
  hint?: string;
  maxBytes?: number;
  /** Refuse an interactive terminal (which would just wait for input). Default true. */
  refuseTTY?: boolean;
}

/** All of stdin as text; refuses a terminal (with the hint) and over-long input with exit 2. */
export async function readStdinText(io: IO, o: ReadStdinOptions): Promise<string> {
  if ((o.refuseTTY ?? true) && io.stdinIsTTY) throw new UsageError(`${o.what} is read from stdin, which is a terminal`, o.hint);
  const max = o.maxBytes ?? 1024 * 1024;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of io.stdin) {
    const b = typeof c === 'string' ? Buffer.from(c) : Buffer.from(c as Uint8Array);
    size += b.length;
    if (size > max) throw new UsageError(`${o.what} on stdin is larger than ${max} bytes`);
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A secret from stdin: one value, surrounding white space and line breaks removed. */
export async function readStdinSecret(io: IO, what: string, hint?: string): Promise<string> {
  return (await readStdinText(io, { what, hint, maxBytes: 64 * 1024 })).trim();
}
