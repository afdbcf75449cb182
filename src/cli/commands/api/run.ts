import type { FileHandle } from 'node:fs/promises';
import type { Output } from '../../output/output.js';
import type { Context } from '../../context.js';
import type { ApiOptions } from './options.js';
import { UsageError } from '../../errors/usage-error.js';
import { exitCodeFor } from '../../errors/exit.js';
import { HttpError, ValidationError } from '../../../core/errors.js';
import type { Credential, HttpResponse, RequestSpec } from '../../../core/http/client.js';
import { type ApiTarget, resolveApiTarget, isQueryApi, queryApiBody } from './targets.js';
import { readStdinText } from '../../terminal/stdin.js';
import { secretHeaderValues } from '../../../core/http/redact.js';
import { headerLines } from '../../../core/http/stream.js';
import { headerOptions } from './headers.js';

const METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Parses -f/-F into a parameter object (gh's typing rules for -F). */
export async function buildParams(raw: string[], typed: string[], readStdin: () => Promise<string>): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const split = (s: string, flag: string): [string, string] => {
    const i = s.indexOf('=');
    if (i <= 0) throw new UsageError(`${flag} expects key=value, got "${s}"`);
    return [s.slice(0, i), s.slice(i + 1)];
  };
  for (const f of raw) {
    const [k, v] = split(f, '--raw-field');
    out[k] = v;
  }
  for (const f of typed) {
    const [k, v] = split(f, '--field');
    if (v === 'true' || v === 'false') out[k] = v === 'true';
    else if (v === 'null') out[k] = null;
    else if (/^-?\d+(\.\d+)?$/.test(v)) out[k] = Number(v);
    else if (v.startsWith('@')) {
      const file = v.slice(1);
      if (file === '-') out[k] = await readStdin();
      else {
        // Under a cap, devices and directories refused (src/cli/user-file.ts).
        const { readUserFile, USER_FILE_CAPS } = await import('../../user-file.js');
        out[k] = await readUserFile(file, `--field ${k}`, { maxBytes: USER_FILE_CAPS.fieldValue });
      }
    } else out[k] = v;
  }
  return out;
}

/** The --input file, opened before anything is sent: a file that cannot be read is a usage error, not a broken request. */
async function openInput(file: string): Promise<FileHandle> {
  let fh: FileHandle | undefined;
  try {
    const { open } = await import('node:fs/promises');
    fh = await open(file, 'r');
    if ((await fh.stat()).isDirectory()) throw Object.assign(new Error(), { code: 'EISDIR' });
    return fh;
  } catch (err) {
    await fh?.close();
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory' : code === 'EACCES' ? 'permission denied' : (code ?? 'unreadable');
    throw new UsageError(`--input ${file}: cannot read it (${why})`);
  }
}

export async function runApi(ctx: Context, target: string, opts: ApiOptions): Promise<void> {
  checkOptions(opts, ctx.output);
  const headers = await headerOptions(ctx, opts);
  // A -H credential (`Private-Token: …`) is redacted from every line on stderr, as the profile's is.
  for (const v of secretHeaderValues(headers)) ctx.secrets.remember(v);
  const params = await buildParams(opts.rawField, opts.field, () => readStdinText(ctx.io, { what: 'a --field @- value' }));
  const hasParams = Object.keys(params).length > 0;
  const method = (opts.method ?? (hasParams || opts.input ? 'POST' : 'GET')).toUpperCase();
  const input = opts.input && opts.input !== '-' ? await openInput(opts.input) : undefined;
  const t = await resolveApiTarget(ctx, target, opts.service, { login: opts.user });
  const http = await ctx.http();
  const spec: RequestSpec = {
    method,
    url: t.url,
    auth: t.auth,
    headers: { accept: 'application/json', ...headers },
    signal: ctx.signal,
    streamResponse: true,
  };
  if (hasParams) {
    if (method === 'GET' || method === 'HEAD') spec.query = Object.fromEntries(Object.entries(params).map(([k, v]) => [k, v === null ? '' : String(v)]));
    else spec.json = isQueryApi(t) ? queryApiBody(params) : params;
  }
  if (opts.input) {
    spec.body = input ? input.createReadStream() : ctx.io.stdin;
    spec.headers = { 'content-type': 'application/json', ...spec.headers };
  }
  // Paging, checkpoints (node:crypto, node:fs/promises) load only for --paginate.
  if (opts.paginate) return (await import('./paginate.js')).paginate(ctx, opts, { http, t, spec, headers }, send);
  const res = await send(http, spec, ctx, opts, t);
  if (opts.silent) return void (await res.dump());
  await pipeBody(ctx, res);
}

/** The option combinations refused before anything is read or sent (exit 2). */
function checkOptions(opts: ApiOptions, output: Output): void {
  if (opts.method !== undefined && !METHODS.has(opts.method.toUpperCase()))
    throw new UsageError(`invalid method "${opts.method}" (one of ${[...METHODS].join(', ')})`);
  if (output.format === 'ndjson' && !opts.paginate) throw new UsageError('--ndjson goes with --paginate');
  if (opts.checkpoint !== undefined && !opts.paginate) throw new UsageError('--checkpoint goes with --paginate');
  if (opts.input && (opts.rawField.length || opts.field.length) && (opts.method ?? 'POST').toUpperCase() !== 'GET') {
    throw new UsageError('--input and fields together: fields become query parameters only with -X GET');
  }
}

/** One request; the HTTP client's auth hook refreshes the credential after a 401 and retries once (not a streamed --input). */
async function send(http: Awaited<ReturnType<Context['http']>>, spec: RequestSpec, ctx: Context, opts: ApiOptions, t: ApiTarget): Promise<HttpResponse> {
  try {
    // A body written out as it comes (not read whole for --jq/--template, nor a page) goes on while data flows: its silence is bounded, not its length.
    const res = await (spec.streamResponse && !ctx.output.shaped ? http.requestStream(spec) : http.request(spec));
    if (opts.include) printHead(ctx, res.status, res.headers);
    return res;
  } catch (err) {
    if (err instanceof HttpError) {
      // Which service refused it, for the one 401 hint (cli/errors/exit.ts); the auth hook named the credential.
      err.service ??= t.service;
      // Said before the head and the body are written: a reader that stops early (`| head`) still sees the failure's status.
      ctx.exitWith(exitCodeFor(err));
      if (opts.include) printHead(ctx, err.status, err.headers);
      // Like the code host's CLI: the error body is data (stdout); the message goes to stderr.
      // Not with --checkpoint: stdout is the listing a resumed run continues.
      if (!opts.silent && opts.checkpoint === undefined && err.body !== undefined && err.body !== '')
        ctx.io.out(typeof err.body === 'string' ? err.body : JSON.stringify(err.body, null, 2));
    }
    throw err;
  }
}

/** `--include`: the status line and headers of a response (or of an error's), then a blank line. */
function printHead(ctx: Context, status: number, headers: HttpResponse['headers']): void {
  ctx.io.out(`HTTP ${status}`);
  // Each Set-Cookie on its own line, as curl and the code host's CLI print them.
  for (const [k, v] of headerLines(headers)) ctx.io.out(`${k}: ${v}`);
  ctx.io.out('');
}

async function pipeBody(ctx: Context, res: HttpResponse): Promise<void> {
  const ct = res.headers['content-type'] ?? '';
  if (ctx.output.shaped) {
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      throw new ValidationError(`--jq/--template need a JSON response; the server answered ${ct || 'without a content type'}`);
    }
    return ctx.output.document(body);
  }
  if (ctx.io.stdoutIsTTY && ct.includes('json')) {
    const text = await res.text();
    try {
      ctx.io.out(JSON.stringify(JSON.parse(text), null, 2));
    } catch {
      ctx.io.out(text);
    }
    return;
  }
  if (ctx.io.stdoutIsTTY) return toTerminal(ctx, res, ct);
  // To a pipe or a file: each chunk written as it comes (synchronously, so the body is read no faster than
  // it is written; a full non-blocking pipe hands over to the stream, whose 'drain' is awaited), without
  // building the stdout stream or loading stream/promises at start-up.
  const { writeOut } = ctx.io;
  if (writeOut) {
    for await (const chunk of res.body as AsyncIterable<Uint8Array>) if (!writeOut(chunk)) await new Promise((r) => ctx.io.stdout.once('drain', r));
    return;
  }
  const { pipeline } = await import('node:stream/promises');
  await pipeline(res.body, ctx.io.stdout, { end: false });
}

export type { Credential };

/** A body that is not JSON on a terminal: its text through the sanitiser, binary refused by its bytes (curl's rule) or a certainly binary type; pipes and files get the bytes. */
async function toTerminal(ctx: Context, res: HttpResponse, ct: string): Promise<void> {
  const { binaryRefusal, binaryType, terminalStream } = await import('../../terminal/terminal-stream.js');
  const refuse = () => binaryRefusal(`the response (${ct || 'no content type'})`, 'redirect stdout to a file or a pipe: lanyard api … > FILE');
  const { pipeline } = await import('node:stream/promises');
  // A certainly binary type is refused at its first byte (an empty body, as a HEAD's, passes); any other by a NUL byte.
  await pipeline(res.body, terminalStream(refuse, { binary: binaryType(ct) }), ctx.io.stdout, { end: false });
}
