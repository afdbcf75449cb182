/**
 * The mailbox's labels and account as the mail store's REST resources serve
 * them (elasticinbox-java `MailboxResource`, `LabelResource`,
 * `AccountResource`, `LabelUtils`, `ReservedLabels`, `LabelMap`): the label
 * list (with counters), adding, renaming and deleting a label, the purge, and
 * the batch modify and delete of messages. Independent of HTTP.
 */
import { Mailbox } from '../../../shared/mailbox.js';
import { MailError, type MailStore } from './mailstore.js';

/** The labels every mailbox has (ids 0–10), which cannot be renamed or deleted. */
export const RESERVED_LABELS: ReadonlyMap<number, string> = new Map(
  ['all', 'inbox', 'drafts', 'sent', 'trash', 'spam', 'starred', 'important', 'notifications', 'attachments', 'pop3'].map((n, i) => [i, n]),
);
/** New labels get ids above the reserved range and below this. */
const FIRST_LABEL_ID = 20;
const MAX_LABEL_ID = 9999;
const MAX_LABEL_NAME_LENGTH = 250;
const NESTED = '^';

/** The store's messages, in its words. */
export const LabelMessages = {
  noName: 'Label name must be specified',
  tooLong: 'Label name exceeds maximum allowed length',
  exists: 'Label with this name already exists',
  nestedReserved: 'Netsted labels are not allowed under reserved labels',
  nestedSeparator: 'Illegal use of nested label separator',
  reserved: "This is reserved label and can't be modified",
  missing: 'Label does not exist',
  tooMany: 'Too many labels',
  malformed: 'Malformed JSON request',
} as const;

export interface LabelCounters {
  name: string;
  total: number;
  unread: number;
  /** Label 0 only: the bytes of every message. */
  size?: number;
}

/** Every label of a mailbox: the reserved ones and its own. */
export function labelNames(store: MailStore, mb: string): Map<number, string> {
  return new Map([...RESERVED_LABELS, ...(store.state.mailbox(mb)?.labels ?? [])]);
}

/** `GET /mailbox?metadata=true`: per label its name, messages and unread ones (not SEEN); label 0 also the size. */
export function labelCounters(store: MailStore, mb: string): Map<number, LabelCounters> {
  const out = new Map<number, LabelCounters>();
  for (const [id, name] of labelNames(store, mb)) out.set(id, { name, total: 0, unread: 0, ...(id === Mailbox.allMailsLabel ? { size: 0 } : {}) });
  for (const r of store.state.mailbox(mb)?.messages.values() ?? []) {
    if (r.deleted) continue;
    for (const l of r.labels) {
      const c = out.get(l);
      if (!c) continue;
      c.total++;
      if (!r.markers.includes('SEEN')) c.unread++;
      if (c.size !== undefined) c.size += r.size;
    }
  }
  return out;
}

function validateName(name: string, existing: Map<number, string>, self?: number): void {
  if (name.length > MAX_LABEL_NAME_LENGTH) throw new MailError(LabelMessages.tooLong);
  for (const [id, n] of existing) if (id !== self && n.toLowerCase() === name.toLowerCase()) throw new MailError(LabelMessages.exists, 409);
  for (const r of RESERVED_LABELS.values()) if (name.startsWith(r + NESTED)) throw new MailError(LabelMessages.nestedReserved);
  if (name.includes(NESTED + NESTED)) throw new MailError(LabelMessages.nestedSeparator);
}

/** `POST /mailbox/label`: the new label's id (the lowest free one from 20). */
export function addLabel(store: MailStore, mb: string, name: string | undefined): number {
  if (!name) throw new MailError(LabelMessages.noName);
  const existing = labelNames(store, mb);
  validateName(name, existing);
  let id = FIRST_LABEL_ID;
  while (existing.has(id)) id++;
  if (id >= MAX_LABEL_ID) throw new MailError(LabelMessages.tooMany);
  store.state.setLabel(mb, id, name);
  return id;
}

/** `PUT /mailbox/label/:id`: a new name (a reserved label: 409; an unknown one: 400). */
export function renameLabel(store: MailStore, mb: string, id: number, name: string | undefined): void {
  if (RESERVED_LABELS.has(id)) throw new MailError(LabelMessages.reserved, 409);
  const existing = labelNames(store, mb);
  if (!existing.has(id)) throw new MailError(LabelMessages.missing);
  if (!name) return;
  validateName(name, existing, id);
  store.state.setLabel(mb, id, name);
}

/** `DELETE /mailbox/label/:id`: the label and its id on every message (a reserved label: 400). */
export function deleteLabel(store: MailStore, mb: string, id: number): void {
  if (RESERVED_LABELS.has(id)) throw new MailError(LabelMessages.reserved);
  store.state.removeLabel(mb, id);
}

/** A JSON array of message ids (the batch operations' body), deduplicated; anything else is a 400. */
export function messageIdList(text: string, isId: (s: string) => boolean): string[] {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new MailError(LabelMessages.malformed);
  }
  if (!Array.isArray(v) || !v.length || !v.every((x) => typeof x === 'string' && isId(x))) throw new MailError(LabelMessages.malformed);
  return [...new Set((v as string[]).map((x) => x.toLowerCase()))];
}

/** `PUT /mailbox/message` with a list of ids: the single modify applied to each message there is (others are skipped). */
export function modifyMany(store: MailStore, mb: string, ids: string[], ch: Parameters<MailStore['modify']>[2]): void {
  for (const id of ids) {
    const rec = store.state.get(mb, id);
    if (rec && !rec.deleted) store.modify(mb, id, ch);
  }
}

/** `DELETE /mailbox/message` with a list of ids: each message there is into the purge queue. */
export function deleteMany(store: MailStore, mb: string, ids: string[]): void {
  for (const id of ids) if (store.state.get(mb, id)) store.delete(mb, id);
}

/** `DELETE /rest/v2/:domain/:user`: the account's messages (their objects too) and labels. */
export async function dropAccount(store: MailStore, mb: string): Promise<void> {
  for (const rec of [...(store.state.mailbox(mb)?.messages.values() ?? [])]) await store.objects.remove(rec.object);
  store.state.drop(mb);
}
