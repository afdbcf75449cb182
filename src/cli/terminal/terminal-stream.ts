/**
 * A streamed body on its way to a terminal (`mailbox raw`, `mailbox part`,
 * `lanyard api` on a TTY): the text passes the one sanitiser
 * (terminal-text.ts) chunk by chunk, and binary is refused, as curl refuses
 * it ("Binary output can mess up your terminal"). Into a pipe or a file the
 * commands write the bytes as they are and never come here.
 */
import { Transform } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { UsageError } from '../errors/usage-error.js';
import { terminalText } from './terminal-text.js';

/** Media types that are text whatever their top-level type says: JSON, XML, JavaScript, YAML, forms, mail. */
const TEXTUAL = /^text\/|[/+](?:json|xml|yaml|javascript|ecmascript|x-www-form-urlencoded|csv)\b|^message\/(?:rfc822|global|partial)\b/i;

/** Whether a body of this Content-Type is text (no type at all counts as text: its bytes decide). */
export function textualType(contentType: string | undefined): boolean {
  const type = contentType?.split(';')[0]?.trim() ?? '';
  return type === '' || TEXTUAL.test(type);
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
