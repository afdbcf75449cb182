import { validateLabel, validateMarker, validateMessageId, validateRemovableLabel } from '../../../core/mailbox/validate.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors/usage-error.js';
import { inputBody, mailboxClient } from './common.js';
import type { MailboxLabelOptions, MailboxStoreOptions, MailboxTargetOptions } from './options.js';

export async function runMailboxStore(ctx: Context, file: string | undefined, o: MailboxStoreOptions): Promise<void> {
  const labels = o.label.map((l) => validateLabel(l));
  const markers = o.marker.map((m) => validateMarker(m));
  const client = await mailboxClient(ctx, o);
  const body = await inputBody(ctx, file);
  const id = await client.store(body, { labels, markers });
  ctx.output.document({ id }, () => ctx.io.out(id));
}

export async function runMailboxUpdate(ctx: Context, idArg: string, file: string | undefined, o: MailboxTargetOptions): Promise<void> {
  const id = validateMessageId(idArg);
  const client = await mailboxClient(ctx, o);
  const body = await inputBody(ctx, file);
  const newId = await client.update(id, body);
  ctx.output.document({ id: newId, replaced: id }, () => ctx.io.out(newId));
}

export async function runMailboxLabel(ctx: Context, idArg: string, o: MailboxLabelOptions): Promise<void> {
  const id = validateMessageId(idArg);
  const change = {
    add: o.add.map((l) => validateLabel(l, '--add')),
    remove: o.remove.map((l) => validateRemovableLabel(l, '--remove')),
    addMarkers: o.addMarker.map((m) => validateMarker(m, '--add-marker')),
    removeMarkers: o.removeMarker.map((m) => validateMarker(m, '--remove-marker')),
  };
  if (!change.add.length && !change.remove.length && !change.addMarkers.length && !change.removeMarkers.length) {
    throw new UsageError('nothing to change: give --add, --remove, --add-marker or --remove-marker');
  }
  const both = change.add.filter((l) => change.remove.includes(l));
  if (both.length) throw new UsageError(`label ${both[0]} is both added and removed`);
  const mboth = change.addMarkers.filter((m) => change.removeMarkers.includes(m));
  if (mboth.length) throw new UsageError(`marker ${mboth[0]!.toLowerCase()} is both added and removed`);
  await (await mailboxClient(ctx, o)).modify(id, change);
  ctx.output.document({ id, ...change }, () => ctx.io.err(`Updated ${id}`));
}

export async function runMailboxDelete(ctx: Context, idArg: string, o: MailboxTargetOptions): Promise<void> {
  const id = validateMessageId(idArg);
  await (await mailboxClient(ctx, o)).delete(id);
  ctx.output.document({ id, deleted: true }, () => ctx.io.err(`Deleted ${id} (removed from every label; still readable by id until purged)`));
}
