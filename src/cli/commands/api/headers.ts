/**
 * `lanyard api -H`: request headers given on the command line, or — for a
 * secret one (`Private-Token: …`), which must not sit in argv — read from a
 * file with curl's `-H @FILE` (one header a line; `@-` reads stdin when
 * stdin is not already the body).
 */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors/usage-error.js';
import { readStdinText } from '../../terminal/stdin.js';
import type { ApiOptions } from './options.js';

/** A header file holds a few lines; a server takes 8–16 KiB of headers. */
const HEADER_FILE_CAP = 64 * 1024;

/** RFC 9110 §5.6.2: a field name is a token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A control character other than tab (CR, LF, NUL, …): it would end the line or cut it short on the wire. */
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** The `-H` options as headers (names in lower case); `@FILE`/`@-` read their lines, checked before anything is sent. */
export async function headerOptions(ctx: Context, opts: Pick<ApiOptions, 'header' | 'input' | 'field'>): Promise<Record<string, string>> {
  const headers: Record<string, string> = {};
  const fromStdin = opts.header.filter((h) => h === '@-').length;
  if (fromStdin > 1) throw new UsageError('-H @- is given twice: standard input can be read once');
  if (fromStdin && opts.input === '-') throw new UsageError('-H @- and --input - both read standard input: give the headers or the body in a file');
  if (fromStdin && opts.field.some((f) => f.slice(f.indexOf('=') + 1) === '@-'))
    throw new UsageError('-H @- and --field …=@- both read standard input: give the headers or the value in a file');
  for (const h of opts.header) {
    if (!h.startsWith('@')) {
      addHeader(headers, h, () => `--header expects "Name: value", got "${h}"`);
      continue;
    }
    const file = h.slice(1);
    const text = file === '-' ? await readStdinText(ctx.io, { what: '-H @-', maxBytes: HEADER_FILE_CAP }) : await readHeaderFile(file);
    const where = file === '-' ? 'standard input' : file;
    text.split('\n').forEach((raw, i) => {
      // A line ends at LF; a CRLF file's CR goes with it (as curl reads it). Blank lines are skipped.
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      // Never the line itself: it may hold the secret the file was written to keep out of sight.
      if (line.trim()) addHeader(headers, line, () => `-H @${file}: line ${i + 1} of ${where} is not "Name: value"`);
    });
  }
  return headers;
}

async function readHeaderFile(file: string): Promise<string> {
  if (!file) throw new UsageError('-H @FILE needs a file name (or @- for standard input)');
  // Under a cap, devices and directories refused, a pipe (`-H @<(…)`) bounded in time (src/cli/user-file.ts).
  const { readUserFile } = await import('../../user-file.js');
  return readUserFile(file, '-H', { maxBytes: HEADER_FILE_CAP });
}

/** One `Name: value` line; a bad one is `bad()` (a usage error, exit 2), nothing sent. */
function addHeader(headers: Record<string, string>, line: string, bad: () => string): void {
  const i = line.indexOf(':');
  const name = line.slice(0, i).trim();
  if (i <= 0 || !TOKEN.test(name)) throw new UsageError(bad());
  const value = line.slice(i + 1).trim();
  if (CONTROL.test(value)) throw new UsageError(`the value of header ${name} holds a control character (CR, LF, NUL, …): it cannot be sent`);
  headers[name.toLowerCase()] = value;
}
