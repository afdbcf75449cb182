import { Command } from 'commander';
import type { Context } from '../../context.js';
import { commandGroup, examples, withJson, runs, SERVICE_EXITS } from '../../command-kit.js';
import type { MailboxTargetOptions, MailboxListOptions, MailboxGetOptions, MailboxOutputOptions, MailboxStoreOptions, MailboxLabelOptions } from './options.js';
import { paged } from '../../output/pager.js';

const collect = (v: string, prev: string[]) => [...prev, v];

function target(cmd: Command): Command {
  return cmd
    .option('--domain <domain>', "mailbox domain (default: the profile's mailbox.domain)")
    .option('--user <user>', "mailbox user (default: the profile's mailbox.user)");
}

/** The group's line in `lanyard --help` (program.ts lists groups without declaring them). */
export const summary = 'list, read, store, label and delete mailbox messages';

const read = () => import('./run-read.js');
const write = () => import('./run-write.js');

export function mailboxCommand(ctx: Context): Command {
  return commandGroup(
    new Command('mailbox').description(summary),
    ctx,
    [list, get, raw, url, part, store, update, label, remove],
    [
      'lanyard --profile emulator mailbox list',
      'ID=$(lanyard mailbox list | head -n 1)',
      'lanyard mailbox list --all --metadata --ndjson',
      'lanyard mailbox raw "$ID" --output message.eml',
      'lanyard mailbox store message.eml --label 1 --marker seen',
    ],
  );
}

function list(mailbox: Command, ctx: Context): void {
  examples(
    target(paged(withJson(mailbox.command('list').description('list the messages of a label, newest first'), { ndjson: true })))
      .option('-l, --label <n>', 'label id (0 = every message)', '0')
      .option('--metadata', 'fetch metadata (headers, size, labels, markers), not just ids')
      .option('-n, --count <n>', 'messages per page, 1-500', '50')
      .option('--start <uuid>', 'start at this message (inclusive)')
      .option('--oldest-first', 'oldest first instead of newest first')
      .option('--include-body', 'include pre-parsed text/HTML bodies (implies --metadata)')
      .option('--all', 'follow pages until the label is exhausted (streams with --ndjson)')
      .option('--checkpoint <file>', 'with --all --ndjson: record progress in FILE after each page and resume from it (see docs/scripts-and-ci.md)')
      .option('--new', 'only messages the previous --new run of this profile, mailbox and label did not list; state in the state directory')
      .action(runs(ctx, async (ctx, opts: MailboxListOptions) => (await import('./run-list.js')).runMailboxList(ctx, opts))),
    [
      'lanyard mailbox list',
      'lanyard mailbox list --label 1 --count 20',
      'lanyard mailbox list --all --metadata --ndjson > messages.ndjson',
      'lanyard mailbox list --all --oldest-first --json',
      'lanyard mailbox list --all --new --ndjson',
      'lanyard mailbox list --all --metadata --ndjson --checkpoint messages.checkpoint >> messages.ndjson',
    ],
    SERVICE_EXITS,
  );
}

function get(mailbox: Command, ctx: Context): void {
  examples(
    target(paged(withJson(mailbox.command('get').argument('<uuid>', 'message id').description('show a parsed message (headers, bodies, parts)'))))
      .option('--adjacent', 'also show the previous and next message ids (needs --label)')
      .option('-l, --label <n>', 'label for --adjacent')
      .option('--mark-seen', 'mark the message SEEN')
      .action(runs(ctx, async (ctx, id: string, opts: MailboxGetOptions) => (await read()).runMailboxGet(ctx, id, opts))),
    ['lanyard mailbox get "$ID"', 'lanyard mailbox get "$ID" --adjacent --label 1 --json', 'lanyard mailbox get "$ID" --mark-seen'],
    SERVICE_EXITS,
  );
}

function raw(mailbox: Command, ctx: Context): void {
  examples(
    target(mailbox.command('raw').argument('<uuid>', 'message id').description('stream the raw RFC 5322 message (deflate decoded on the fly)'))
      .option('-o, --output <file>', 'write to this file instead of stdout')
      .option('-f, --force', 'overwrite an existing file')
      .action(runs(ctx, async (ctx, id: string, opts: MailboxOutputOptions) => (await read()).runMailboxRaw(ctx, id, opts))),
    ['lanyard mailbox raw "$ID" > message.eml', 'lanyard mailbox raw "$ID" --output message.eml'],
    SERVICE_EXITS,
  );
}

function url(mailbox: Command, ctx: Context): void {
  examples(
    target(
      withJson(mailbox.command('url').argument('<uuid>', 'message id').description('print the object-store location of the raw message (not followed)')),
    ).action(runs(ctx, async (ctx, id: string, opts: MailboxTargetOptions) => (await read()).runMailboxUrl(ctx, id, opts))),
    ['lanyard mailbox url "$ID"', 'curl -s "$(lanyard mailbox url "$ID")"'],
    SERVICE_EXITS,
  );
}

function part(mailbox: Command, ctx: Context): void {
  examples(
    target(
      mailbox
        .command('part')
        .argument('<uuid>', 'message id')
        .argument('<part>', 'IMAP part number (1, 1.2, 2.1.3) or content id in angle brackets (<logo@host>)')
        .description('stream one body part (attachment, inline image, alternative body)'),
    )
      .option('-o, --output <file|dir>', "write to a file, or into a directory (a trailing / creates it) under the part's (sanitised) file name")
      .option('-f, --force', 'overwrite an existing file')
      .action(runs(ctx, async (ctx, id: string, which: string, opts: MailboxOutputOptions) => (await read()).runMailboxPart(ctx, id, which, opts))),
    ['lanyard mailbox part "$ID" 2 --output ./downloads/', 'lanyard mailbox part "$ID" "<logo@example.com>" > logo.png', 'lanyard mailbox part "$ID" 1.1'],
    SERVICE_EXITS,
  );
}

function store(mailbox: Command, ctx: Context): void {
  examples(
    target(
      withJson(
        mailbox.command('store').argument('[file]', 'raw RFC 5322 message; "-" or nothing reads stdin').description('store a message; prints its new id'),
      ),
    )
      .option('-l, --label <n>', 'label to put it in (repeatable; label 0 is always added)', collect, [])
      .option('-m, --marker <name>', 'marker: seen, replied, forwarded (repeatable)', collect, [])
      .action(runs(ctx, async (ctx, file: string | undefined, opts: MailboxStoreOptions) => (await write()).runMailboxStore(ctx, file, opts))),
    ['lanyard mailbox store message.eml --label 1 --marker seen', 'cat message.eml | lanyard mailbox store - --json'],
    SERVICE_EXITS,
  );
}

function update(mailbox: Command, ctx: Context): void {
  examples(
    target(
      withJson(
        mailbox
          .command('update')
          .argument('<uuid>', 'message id')
          .argument('[file]', 'new raw message; "-" or nothing reads stdin')
          .description('replace a message (new id, labels and markers kept); prints the new id'),
      ),
    ).action(runs(ctx, async (ctx, id: string, file: string | undefined, opts: MailboxTargetOptions) => (await write()).runMailboxUpdate(ctx, id, file, opts))),
    ['lanyard mailbox update "$ID" edited.eml'],
    SERVICE_EXITS,
  );
}

function label(mailbox: Command, ctx: Context): void {
  examples(
    target(withJson(mailbox.command('label').argument('<uuid>', 'message id').description('add or remove labels and markers (one request)')))
      .option('-a, --add <n>', 'label to add (repeatable)', collect, [])
      .option('-r, --remove <n>', 'label to remove (repeatable; label 0 cannot be removed)', collect, [])
      .option('--add-marker <name>', 'marker to add: seen, replied, forwarded (repeatable)', collect, [])
      .option('--remove-marker <name>', 'marker to remove (repeatable)', collect, [])
      .action(runs(ctx, async (ctx, id: string, opts: MailboxLabelOptions) => (await write()).runMailboxLabel(ctx, id, opts))),
    ['lanyard mailbox label "$ID" --add 4 --remove 1', 'lanyard mailbox label "$ID" --add-marker seen --remove-marker replied'],
    SERVICE_EXITS,
  );
}

/** `mailbox delete` (`delete` is a word of the language). */
function remove(mailbox: Command, ctx: Context): void {
  examples(
    target(
      withJson(mailbox.command('delete').argument('<uuid>', 'message id').description('delete a message (removed from every label; purged later)')),
    ).action(runs(ctx, async (ctx, id: string, opts: MailboxTargetOptions) => (await write()).runMailboxDelete(ctx, id, opts))),
    ['lanyard mailbox delete "$ID"'],
    SERVICE_EXITS,
  );
}
