import { stat } from 'node:fs/promises';
import type { Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { StreamedBody } from '../../../core/mailbox/client.js';
import { dispositionFileName, pathInside, safeFileName } from '../../../core/mailbox/filename.js';
import { inflateAuto } from '../../../core/mailbox/inflate.js';
import { validateLabel, validateMessageId, validatePartId } from '../../../core/mailbox/validate.js';
import { CancelledError, LanyardError, ValidationError } from '../../../core/errors.js';
import type { Context } from '../../context.js';
import { printJson } from '../../output.js';
import { UsageError } from '../../usage-error.js';
import { mailboxClient, openOutputFile, progressStage, removePartial } from './common.js';
import type { MailboxGetOptions, MailboxOutputOptions, MailboxTargetOptions } from './index.js';
import { renderMessage } from './render.js';
import { guardMemory } from './memory.js';

const PROGRESS_MIN_BYTES = 1024 * 1024;

export async function runMailboxGet(ctx: Context, idArg: string, o: MailboxGetOptions): Promise<void> {
  const id = validateMessageId(idArg);
  if (o.adjacent && o.label === undefined) throw new UsageError('--adjacent needs --label N (the label whose neighbours to show)');
  const label = o.label !== undefined ? validateLabel(o.label) : undefined;
  const client = await mailboxClient(ctx, o);
  const v = await client.get(id, { adjacent: o.adjacent, label, markSeen: o.markSeen });
  if (o.json) printJson(ctx.io, v);
  else renderMessage(ctx.io, v);
}

export async function runMailboxUrl(ctx: Context, idArg: string, o: MailboxTargetOptions): Promise<void> {
  const id = validateMessageId(idArg);
  const url = await (await mailboxClient(ctx, o)).url(id);
  if (o.json) printJson(ctx.io, { id, url });
  else ctx.io.out(url);
}

export async function runMailboxRaw(ctx: Context, idArg: string, o: MailboxOutputOptions): Promise<void> {
  const id = validateMessageId(idArg);
  const client = await mailboxClient(ctx, o);
  // The size (for a progress bar) costs one small request; only worth it on a terminal.
  const total = ctx.io.stderrIsTTY ? (await client.get(id)).message.size : undefined;
  const res = await client.raw(id);
  await deliver(ctx, res, o.output, o.force, total, `message ${id.slice(0, 8)}`);
}

export async function runMailboxPart(ctx: Context, idArg: string, partArg: string, o: MailboxOutputOptions): Promise<void> {
  const id = validateMessageId(idArg);
  const part = validatePartId(partArg);
  let outPath = o.output;
  let intoDir = false;
  if (outPath !== undefined) {
    const st = await stat(outPath).catch(() => undefined);
    intoDir = !!st?.isDirectory() || /[\\/]$/.test(outPath);
    if (intoDir && !st) throw new ValidationError(`directory ${outPath} does not exist`);
  }
  const client = await mailboxClient(ctx, o);
  const res = await client.part(id, part.value);
  if (intoDir) {
    const name = safeFileName(dispositionFileName(res.contentDisposition)) ?? `part-${part.kind === 'number' ? part.value : 'cid'}`;
    try {
      outPath = pathInside(outPath!, name);
    } catch (err) {
      discard(res);
      throw new ValidationError((err as Error).message);
    }
  } else if (outPath === undefined && ctx.io.stdoutIsTTY && !/^text\//i.test(res.contentType ?? '')) {
    discard(res);
    throw new UsageError(`part ${part.value} is ${res.contentType ?? 'binary'}; not writing it to a terminal`, 'use --output FILE|DIR or redirect stdout');
  }
  await deliver(ctx, res, outPath, o.force, undefined, `part ${part.value}`);
  if (outPath !== undefined && intoDir) ctx.io.err(`Saved ${outPath}`);
}

function discard(res: StreamedBody): void {
  res.body.on('error', () => undefined);
  res.body.destroy();
}

/** Streams a response body (inflating deflate) to a file or stdout, with a progress bar on a TTY. */
async function deliver(ctx: Context, res: StreamedBody, output: string | undefined, force: boolean | undefined, total: number | undefined, label: string): Promise<void> {
  const stages: Array<Transform | ((s: AsyncIterable<Uint8Array>) => AsyncGenerator<Buffer>)> = [];
  if (res.encoding === 'deflate') stages.push(inflateAuto);
  else if (res.encoding) {
    discard(res);
    throw new LanyardError('protocol', `unsupported Content-Encoding "${res.encoding}"`);
  }
  if (ctx.io.stderrIsTTY && (total ?? res.length ?? PROGRESS_MIN_BYTES) >= PROGRESS_MIN_BYTES) stages.push(progressStage(ctx, total ?? res.length, label));
  let dest: Writable;
  if (output !== undefined) {
    try {
      dest = await openOutputFile(output, force);
    } catch (err) {
      discard(res);
      throw err;
    }
  } else dest = ctx.io.stdout;
  guardMemory(res.body);
  try {
    await (pipeline as (...a: unknown[]) => Promise<void>)(res.body, ...stages, dest, { signal: ctx.signal, end: output !== undefined });
  } catch (err) {
    if (output !== undefined) await removePartial(output);
    if ((err as { code?: string }).code === 'EPIPE') return;
    if ((err as { name?: string }).name === 'AbortError' || ctx.signal.aborted) throw new CancelledError();
    if (err instanceof LanyardError) throw err;
    const code = (err as { code?: string }).code;
    if (code && /^Z_/.test(code)) throw new LanyardError('protocol', `the deflate stream from the server is corrupt (${code})`);
    throw new LanyardError('network_error', `transfer failed: ${(err as Error).message}`);
  }
}
