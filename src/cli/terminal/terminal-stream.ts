/**
 * A streamed body on its way to a terminal (`mailbox raw`, `mailbox part`,
 * `lanyard api` on a TTY): the text passes the one sanitiser
 * (terminal-text.ts) chunk by chunk, and binary is refused as curl refuses it
 * ("Binary output can mess up your terminal"): by its bytes (a NUL), the type
 * only settling what is certainly binary (binaryType). Into a pipe or a file the
 * commands write the bytes as they are and never come here.
 */
import { Transform } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { UsageError } from '../errors/usage-error.js';
import { terminalText } from './terminal-text.js';

/**
 * Media types that are certainly binary: pictures, sound, video, fonts,
 * archives, compressed data, PDF, executables. Everything else (text, JSON,
 * XML, a vendor's `application/vnd.*`, a type we do not know) is decided by
 * its bytes, as curl decides: a NUL byte is binary.
 */
const BINARY =
  /^(?:image|audio|video|font)\/|^application\/(?:octet-stream|zip|gzip|x-gzip|x-tar|x-gtar|x-bzip2?|x-xz|zstd|x-7z-compressed|x-rar-compressed|vnd\.rar|pdf|wasm|java-archive|x-executable|x-sharedlib|x-mach-binary|x-msdownload|x-apple-diskimage|x-iso9660-image|x-sqlite3|font-woff2?|x-font-\w+)$/i;

/**
 * Whether a body of this Content-Type is binary whatever its bytes say: a
 * certainly binary type, unless it names a charset or ends in `+xml`/`+json`
 * (`image/svg+xml` is text). No type at all, and any other type, is not: its
 * bytes decide.
 */
export function binaryType(contentType: string | undefined): boolean {
  const [type = '', ...params] = (contentType ?? '').split(';').map((p) => p.trim());
  if (params.some((p) => /^charset\s*=/i.test(p)) || /\+(?:xml|json)$/i.test(type)) return false;
  return BINARY.test(type);
}

/** The one-line refusal of binary on a terminal; `hint` says how to save it instead. */
export function binaryRefusal(what: string, hint: string): UsageError {
  return new UsageError(`${what} is binary; not writing it to a terminal (binary output can mess up your terminal)`, hint);
}

/**
 * A Transform from the body's bytes to text fit for a terminal: UTF-8 decoded
 * across chunk boundaries, controls shown in caret notation, CRLF kept as a
 * line end (a CR at the end of a chunk waits for the next one to know), and
 * a NUL byte ends the transfer with `refuse()`'s error — so does the first
 * byte of a body known to be `binary` (its type), while an empty one (a HEAD,
 * a 204) passes.
 */
export function terminalStream(refuse: () => Error, o: { binary?: boolean } = {}): Transform {
  const decoder = new StringDecoder('utf8');
  let held = '';
  const text = (more: string, last: boolean): string => {
    const all = held + more;
    const keep = !last && all.endsWith('\r') ? 1 : 0;
    held = all.slice(all.length - keep);
    return terminalText(all.slice(0, all.length - keep));
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (chunk.length && (o.binary || chunk.includes(0))) return done(refuse());
      done(null, text(decoder.write(chunk), false));
    },
    flush(done) {
      done(null, text(decoder.end(), true));
    },
  });
}
