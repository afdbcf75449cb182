import type { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { StreamedBody } from '../../../core/mailbox/client.js';
import { dispositionFileName, pathInside, safeFileName } from '../../../core/mailbox/filename.js';
import { inflaterFor } from '../../../core/mailbox/inflate.js';
import { validateLabel, validateMessageId, validatePartId } from '../../../core/mailbox/validate.js';
import { CancelledError, LanyardError, ValidationError } from '../../../core/errors.js';
import { makeDir } from '../../../shared/make-dir.js';
import type { Context } from '../../context.js';
import { readerGone } from '../../io.js';
import { UsageError } from '../../errors/usage-error.js';
import { CliError } from '../../errors/cli-error.js';
import { mailboxClient, openOutputFile, progressStage, type OutputFile } from './common.js';
import type { MailboxGetOptions, MailboxOutputOptions, MailboxTargetOptions } from './options.js';
import { renderMessage } from './render.js';
import { guardMemory } from './memory.js';
import { binaryRefusal, binaryType, terminalStream } from '../../terminal/terminal-stream.js';

const PART_HINT = 'use --output FILE|DIR or redirect stdout';

export async function runMailboxGet(ctx: Context, idArg: string, o: MailboxGetOptions): Promise<void> {
  const id = validateMessageId(idArg);
  if (o.adjacent && o.label === undefined) throw new UsageError('--adjacent needs --label N (the label whose neighbours to show)');
  const label = o.label !== undefined ? validateLabel(o.label) : undefined;
  const client = await mailboxClient(ctx, o);
  const v = await client.get(id, { adjacent: o.adjacent, label, markSeen: o.markSeen });
  ctx.output.document(v, () => renderMessage(ctx.io, v));
}

export async function runMailboxUrl(ctx: Context, idArg: string, o: MailboxTargetOptions): Promise<void> {
  const id = validateMessageId(idArg);
  const url = await (await mailboxClient(ctx, o)).url(id);
  ctx.output.document({ id, url }, () => ctx.io.out(url));
}

export async function runMailboxRaw(ctx: Context, idArg: string, o: MailboxOutputOptions): Promise<void> {
  const id = validateMessageId(idArg);
  const client = await mailboxClient(ctx, o);
  // The size (for a progress bar) costs one small request; only worth it when a bar can be drawn.
  const out = o.output !== undefined ? await openOutputFile(o.output, o.force) : undefined;
  let res: StreamedBody;
  let total: number | undefined;
  try {
    total = ctx.io.stderrIsTTY && !(out === undefined && ctx.io.stdoutIsTTY) ? (await client.get(id)).message.size : undefined;
    res = await client.raw(id);
  } catch (err) {
    await out?.abort();
    throw err;
  }
  await deliver(ctx, res, out, { total, label: `message ${id.slice(0, 8)}`, hint: 'use --output FILE or redirect stdout' });
}

export async function runMailboxPart(ctx: Context, idArg: string, partArg: string, o: MailboxOutputOptions): Promise<void> {
  const id = validateMessageId(idArg);
  const part = validatePartId(partArg);
  let outPath = o.output;
  let intoDir = false;
  if (outPath !== undefined) {
    const fs = await import('node:fs/promises');
    const st = await fs.stat(outPath).catch(() => undefined);
    intoDir = !!st?.isDirectory() || /[\\/]$/.test(outPath);
    // `DIR/` that does not exist yet is created, as `gh release download --dir` does
    if (intoDir && !st)
      try {
        makeDir(outPath);
      } catch (err) {
        throw new ValidationError(`cannot create directory ${outPath}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
    else if (intoDir && st?.isDirectory() === false) throw new ValidationError(`${outPath} is not a directory`);
  }
  const client = await mailboxClient(ctx, o);
  let out = outPath !== undefined && !intoDir ? await openOutputFile(outPath, o.force) : undefined;
  let res: StreamedBody;
  try {
    res = await client.part(id, part.value);
  } catch (err) {
    await out?.abort();
    throw err;
  }
  if (intoDir) {
    const name = safeFileName(dispositionFileName(res.contentDisposition)) ?? `part-${part.kind === 'number' ? part.value : 'cid'}`;
    try {
      outPath = pathInside(outPath!, name);
      out = await openOutputFile(outPath, o.force);
    } catch (err) {
      discard(res);
      throw err instanceof ValidationError ? err : new ValidationError((err as Error).message);
    }
  } else if (outPath === undefined && ctx.io.stdoutIsTTY && binaryType(res.contentType)) {
    discard(res);
    throw binaryRefusal(`part ${part.value} (${res.contentType})`, PART_HINT);
  }
  await deliver(ctx, res, out, { label: `part ${part.value}`, hint: PART_HINT });
  if (out && intoDir) ctx.io.err(`Saved ${out.path}`);
}

function discard(res: StreamedBody): void {
  res.body.on('error', () => undefined);
  res.body.destroy();
}

/** Streams a response body (inflating deflate) to a file or stdout, with a progress bar on a TTY. */
async function deliver(ctx: Context, res: StreamedBody, out: OutputFile | undefined, what: { total?: number; label: string; hint: string }): Promise<void> {
  const { total, label } = what;
  const stages: Transform[] = [];
  if (res.encoding && res.encoding !== 'deflate') {
    discard(res);
    await out?.abort();
    throw new LanyardError('protocol_error', `unsupported Content-Encoding "${res.encoding}"`);
  }
  try {
    if (res.encoding === 'deflate') stages.push(await inflaterFor(res.body));
    const progress = progressStage(ctx, { total: total ?? res.length, label, toStdout: !out });
    if (progress) stages.push(progress);
    // On a terminal the text is sanitised and binary refused; a file or a pipe gets the exact bytes.
    if (!out && ctx.io.stdoutIsTTY) stages.push(terminalStream(() => binaryRefusal(label, what.hint)));
    const dest: Writable = out?.stream ?? ctx.io.stdout;
    guardMemory(res.body);
    await (pipeline as (...a: unknown[]) => Promise<void>)(res.body, ...stages, dest, { signal: ctx.signal, end: !!out });
  } catch (err) {
    if (!res.body.destroyed) discard(res);
    await out?.abort();
    if (readerGone(err)) return;
    if ((err as { name?: string }).name === 'AbortError' || ctx.signal.aborted) throw new CancelledError();
    if (err instanceof LanyardError || err instanceof CliError) throw err;
    const code = (err as { code?: string }).code;
    if (code && /^Z_/.test(code)) throw new LanyardError('protocol_error', `the deflate stream from the server is corrupt (${code})`);
    throw new LanyardError('network_error', `transfer failed: ${(err as Error).message}`);
  }
  await out?.commit();
}
