import { Mailbox, type MailboxMetadata } from '../../../shared/mailbox.js';
import { collectAfterPage } from './memory.js';
import type { ListedMessage, ListOptions, MailboxClient } from '../../../core/mailbox/client.js';
import { checkpointRun } from '../../../core/api/checkpoint.js';
import { runPages } from '../../../core/api/page-run.js';
import { ndjsonPageOutput, openCheckpoint, reportCheckpoint, requireLineOutput, shapedFormat } from '../../output/paged-output.js';
import { validateCount, validateLabel, validateMessageId } from '../../../core/mailbox/validate.js';
import type { Context } from '../../context.js';
import { readerGone } from '../../io.js';
import { UsageError } from '../../errors/usage-error.js';
import { type SeenState, seenState } from '../../state.js';
import { mailboxClient } from './common.js';
import type { MailboxListOptions } from './options.js';
import { messageColumns, type MessageRow } from './render.js';
import { pipeRow, renderTable, sanitize } from '../../output/output.js';

export async function runMailboxList(ctx: Context, o: MailboxListOptions): Promise<void> {
  let broken: Error | undefined;
  const onError = (e: Error) => (broken = e);
  ctx.io.stdout.on('error', onError);
  try {
    await list(ctx, o, () => broken);
  } catch (err) {
    // The reader went away (`| head`): stop quietly, like other Unix tools.
    if (!readerGone(err)) throw err;
  } finally {
    ctx.io.stdout.off('error', onError);
  }
}

/** Writes a piece of the listing to stdout (waiting while the pipe is full). */
type Write = (text: string) => Promise<void> | void;
type Messages = AsyncIterable<ListedMessage> | Iterable<ListedMessage>;

async function list(ctx: Context, o: MailboxListOptions, broken: () => Error | undefined): Promise<void> {
  const write: Write = (text) => {
    const e = broken();
    if (e) throw e;
    return writeOut(ctx, text);
  };
  if (o.checkpoint !== undefined) {
    if (!o.all) throw new UsageError('--checkpoint goes with --all');
    if (o.new) throw new UsageError('--checkpoint and --new are exclusive (--new records what it listed only when a run completes)');
    requireLineOutput(ctx.output, 'mailbox list --all');
  }
  // A table needs the metadata; ids alone are printed one per line for scripts.
  const metadata = !!o.metadata || !!o.includeBody || (!ctx.output.forProgram && ctx.io.stdoutIsTTY);
  const opts: ListOptions = {
    label: validateLabel(o.label),
    count: validateCount(o.count ?? '50'),
    start: o.start !== undefined ? validateMessageId(o.start, '--start') : undefined,
    oldestFirst: !!o.oldestFirst,
    includeBody: !!o.includeBody,
    metadata,
  };
  const client = await mailboxClient(ctx, o);
  if (o.checkpoint !== undefined) return listWithCheckpoint(ctx, opts, client, o.checkpoint);
  const listed: Messages = o.all ? client.listAll(opts) : await client.listPage(opts);
  // --new: the messages the previous --new run of this profile, mailbox and label did not list.
  const state = o.new ? await newState(ctx, client, o, opts.label) : undefined;
  const source = state ? onlyNew(listed, state) : listed;
  if (ctx.output.forProgram) return printJson(ctx, source, write);
  return printHuman(ctx, source, metadata, write);
}

/** --ndjson (a line per message), --jq/--template (the whole array), --json (an array streamed as it comes). */
async function printJson(ctx: Context, source: Messages, write: Write): Promise<void> {
  const out = ctx.output;
  if (out.format === 'ndjson') {
    let n = 0;
    for await (const m of source) {
      await write(out.line(flat(m)));
      if (++n % Mailbox.maxCount === 0) collectAfterPage(n / Mailbox.maxCount);
    }
    return;
  }
  if (out.shaped) {
    const all: unknown[] = [];
    for await (const m of source) all.push(flat(m));
    return out.document(all);
  }
  // Streamed as a JSON array, so memory stays flat with --all too.
  let n = 0;
  for await (const m of source) {
    await write((n++ ? ',\n  ' : '[\n  ') + JSON.stringify(flat(m)));
    if (n % Mailbox.maxCount === 0) collectAfterPage(n / Mailbox.maxCount);
  }
  await write(n ? '\n]\n' : '[]\n');
}

/** Ids one per line (no metadata), tab-separated rows into a pipe, else a table. */
async function printHuman(ctx: Context, source: Messages, metadata: boolean, write: Write): Promise<void> {
  if (!metadata) {
    // An id is the server's text too: one line each, whatever it holds.
    for await (const m of source) await write(sanitize(m.id) + '\n');
    return;
  }
  const row = (m: ListedMessage): MessageRow => ({ id: m.id, meta: m.metadata ?? ({} as MailboxMetadata) });
  if (!ctx.io.stdoutIsTTY) {
    for await (const m of source) await write(pipeRow(messageColumns, row(m)) + '\n');
    return;
  }
  const rows: MessageRow[] = [];
  for await (const m of source) rows.push(row(m));
  if (!rows.length) {
    ctx.io.err('No messages.');
    return;
  }
  renderTable(ctx.io, rows, messageColumns);
}

const flat = (m: ListedMessage) => (m.metadata ? { id: m.id, ...m.metadata } : { id: m.id });

/** `--all --ndjson --checkpoint FILE`: resumes after the last message an interrupted run of the same listing printed. */
async function listWithCheckpoint(ctx: Context, opts: ListOptions, client: MailboxClient, file: string): Promise<void> {
  const run = checkpointRun({
    command: 'mailbox list',
    profile: (await ctx.profile()).name,
    url: `${client.apiUrl}/label/${opts.label}`,
    extra: { count: opts.count, start: opts.start, metadata: opts.metadata, includeBody: opts.includeBody, oldestFirst: opts.oldestFirst },
    format: shapedFormat(ctx.output),
  });
  const checkCursor = (cursor: string) => {
    try {
      validateMessageId(cursor);
      return undefined;
    } catch {
      return 'the saved position is not a message id';
    }
  };
  const cp = await openCheckpoint(ctx, file, run, checkCursor);
  let pages = 0;
  try {
    const r = await runPages({
      // The first page has no cursor yet (an empty one); later pages start after the saved message id.
      first: '',
      fetch: async (after) => {
        const page = await client.listAfter(opts, after || undefined);
        collectAfterPage(++pages);
        return { items: page.messages.map(flat), next: page.next, emptyPages: 0 };
      },
      output: ndjsonPageOutput(ctx),
      checkpoint: cp,
    });
    reportCheckpoint(ctx, file, r);
  } finally {
    await cp.close();
  }
}

/** Writes to stdout honouring back-pressure (a slow pipe must not make memory grow). */
function writeOut(ctx: Context, raw: string): Promise<void> | void {
  const text = ctx.output.forStdout(raw);
  if (ctx.io.stdout.write(text)) return;
  return new Promise((resolve, reject) => {
    const out = ctx.io.stdout;
    const onDrain = () => {
      out.off('error', onError);
      resolve();
    };
    const onError = (e: Error) => {
      out.off('drain', onDrain);
      reject(e);
    };
    out.once('drain', onDrain);
    out.once('error', onError);
  });
}

/**
 * What `--new` remembers, per mailbox and label: the mailbox as resolved (the
 * API URL names server, domain and user, however they were given: flags or
 * the profile's settings), readable as `user@domain` plus a hash of the URL.
 * Before, the state was keyed by the --domain/--user flags as typed, so every
 * mailbox reached through the profile's settings shared one file: a mailbox
 * without state of its own starts from that file (left in place), so an
 * upgrade does not list the mailbox as all new again.
 */
async function newState(ctx: Context, client: MailboxClient, o: MailboxListOptions, label: number): Promise<SeenState> {
  const { createHash } = await import('node:crypto');
  const url = client.apiUrl;
  const [, domain = '', user = ''] = (/\/([^/]+)\/([^/]+)\/mailbox$/.exec(url) ?? []).map(decodeURIComponent);
  const hash = createHash('sha256').update(url).digest('hex').slice(0, 16);
  const state = await seenState(ctx, 'mailbox-list', [`${user}@${domain}`.slice(0, 80), hash, String(label)]);
  if (state.previous) return state;
  const legacy = await seenState(ctx, 'mailbox-list', [o.domain ?? '', o.user ?? '', String(label)]);
  return legacy.previous ? { previous: legacy.previous, path: state.path, save: (seen) => state.save(seen) } : state;
}

/** The messages the previous run did not list; once all are listed (not when the reader goes away), the state records them all. */
async function* onlyNew(source: Messages, state: SeenState): AsyncGenerator<ListedMessage> {
  const seen: string[] = [];
  for await (const m of source) {
    seen.push(m.id);
    if (!state.previous?.has(m.id)) yield m;
  }
  await state.save(seen);
}
