/**
 * Metadata of the emulated mail store, kept in memory and persisted as an
 * append-only journal (`<dataDir>/mailbox/journal.ndjson`). A crash can at
 * worst tear the last line, which replay ignores; on load the journal is
 * compacted into a snapshot written to a temporary file and renamed.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { MailboxMetadata } from '../../../shared/mailbox.js';
import type { StoredObject } from './objects.js';
import { compareTimeUuid } from './timeuuid.js';

/** The parsed fields kept as they go on the wire. */
type ParsedFields = Pick<MailboxMetadata, 'subject' | 'from' | 'to' | 'cc' | 'bcc' | 'replyTo' | 'messageId' | 'parts' | 'textBody' | 'htmlBody'>;

export interface MessageRecord extends ParsedFields {
  id: string;
  labels: number[];
  markers: string[];
  /** In the purge queue: removed from every label, still readable by id. */
  deleted: boolean;
  /** When it was deleted (emulator time), for the purge's `age`. */
  deletedAtMs?: number;
  size: number;
  dateMs: number;
  object: StoredObject;
}

export interface MailboxState {
  messages: Map<string, MessageRecord>;
  /** Every id (deleted ones too), ascending by time. */
  order: string[];
  /** The mailbox's own labels (id → name); the reserved ones are not stored. */
  labels: Map<number, string>;
}

type JournalOp =
  | { op: 'put'; mb: string; rec: MessageRecord }
  | { op: 'flags'; mb: string; id: string; labels: number[]; markers: string[] }
  | { op: 'delete'; mb: string; id: string; at?: number }
  | { op: 'purge'; mb: string; id: string }
  | { op: 'label'; mb: string; id: number; name: string }
  | { op: 'unlabel'; mb: string; id: number }
  | { op: 'drop'; mb: string };

export interface ListQuery {
  label: number;
  reverse: boolean;
  start?: string;
  count: number;
}

export class MailState {
  readonly #file: string;
  #fd: number | undefined;
  readonly mailboxes = new Map<string, MailboxState>();

  constructor(dir: string) {
    this.#file = join(dir, 'journal.ndjson');
  }

  /** Replays and compacts the journal; false when there was none. */
  load(): boolean {
    const existed = existsSync(this.#file);
    if (existed) {
      const text = readFileSync(this.#file, 'utf8');
      for (const line of text.split('\n')) {
        if (!line.trim()) continue;
        let op: JournalOp;
        try {
          op = JSON.parse(line) as JournalOp;
        } catch {
          continue; // a line torn by a crash
        }
        this.#apply(op);
      }
    }
    this.#compact();
    return existed;
  }

  /** Drops every mailbox and truncates the journal. */
  clear(): void {
    this.mailboxes.clear();
    this.#compact();
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  mailbox(mb: string): MailboxState | undefined {
    return this.mailboxes.get(mb);
  }

  get(mb: string, id: string): MessageRecord | undefined {
    return this.mailboxes.get(mb)?.messages.get(id.toLowerCase());
  }

  put(mb: string, recs: MessageRecord[]): void {
    this.#write(recs.map((rec) => ({ op: 'put', mb, rec }) as JournalOp));
  }

  setFlags(mb: string, id: string, labels: number[], markers: string[]): void {
    this.#write([{ op: 'flags', mb, id, labels, markers }]);
  }

  delete(mb: string, id: string, atMs?: number): void {
    this.#write([{ op: 'delete', mb, id, ...(atMs === undefined ? {} : { at: atMs }) }]);
  }

  /** Adds or renames one of the mailbox's own labels. */
  setLabel(mb: string, id: number, name: string): void {
    this.#write([{ op: 'label', mb, id, name }]);
  }

  /** Removes a label: its definition and its id from every message (one journal append). */
  removeLabel(mb: string, id: number): void {
    const box = this.mailboxes.get(mb);
    const ops: JournalOp[] = [];
    for (const r of box?.messages.values() ?? [])
      if (r.labels.includes(id))
        ops.push({
          op: 'flags',
          mb,
          id: r.id,
          labels: r.labels.filter((l) => l !== id),
          markers: r.markers,
        });
    ops.push({ op: 'unlabel', mb, id });
    this.#write(ops);
  }

  /** The account's deletion: every message and label of the mailbox. */
  drop(mb: string): void {
    this.#write([{ op: 'drop', mb }]);
  }

  purge(mb: string, id: string): void {
    this.#write([{ op: 'purge', mb, id }]);
  }

  /** Messages of a label in time order from `start` (inclusive, like a column slice). */
  list(mb: string, q: ListQuery): MessageRecord[] {
    const box = this.mailboxes.get(mb);
    if (!box) return [];
    const out: MessageRecord[] = [];
    const step = q.reverse ? -1 : 1;
    let i: number;
    if (q.start === undefined) i = q.reverse ? box.order.length - 1 : 0;
    else {
      const lb = lowerBound(box.order, q.start);
      if (q.reverse) i = box.order[lb] !== undefined && compareTimeUuid(box.order[lb]!, q.start) === 0 ? lb : lb - 1;
      else i = lb;
    }
    for (; i >= 0 && i < box.order.length && out.length < q.count; i += step) {
      const rec = box.messages.get(box.order[i]!)!;
      if (!rec.deleted && rec.labels.includes(q.label)) out.push(rec);
    }
    return out;
  }

  /** Neighbours of `id` within `label` in newest-first order: prev is newer, next is older. */
  adjacent(mb: string, id: string, label: number): { prev: string | null; next: string | null } {
    const box = this.mailboxes.get(mb);
    if (!box) return { prev: null, next: null };
    const at = lowerBound(box.order, id);
    const has = (k: number) => {
      const r = box.messages.get(box.order[k]!);
      return !!r && !r.deleted && r.labels.includes(label) && r.id !== id;
    };
    let prev: string | null = null;
    let next: string | null = null;
    for (let k = at; k < box.order.length; k++)
      if (has(k)) {
        prev = box.order[k]!;
        break;
      }
    for (let k = at - 1; k >= 0; k--)
      if (has(k)) {
        next = box.order[k]!;
        break;
      }
    return { prev, next };
  }

  #write(ops: JournalOp[]): void {
    if (!ops.length) return;
    this.#fd ??= openSync(this.#file, 'a');
    writeSync(this.#fd, ops.map((o) => JSON.stringify(o)).join('\n') + '\n');
    fsyncSync(this.#fd);
    for (const op of ops) this.#apply(op);
  }

  #apply(op: JournalOp): void {
    if (op.op === 'drop') {
      this.mailboxes.delete(op.mb);
      return;
    }
    let box = this.mailboxes.get(op.mb);
    if (!box) {
      box = { messages: new Map(), order: [], labels: new Map() };
      this.mailboxes.set(op.mb, box);
    }
    switch (op.op) {
      case 'put': {
        const exists = box.messages.has(op.rec.id);
        box.messages.set(op.rec.id, op.rec);
        if (!exists) insertSorted(box.order, op.rec.id);
        return;
      }
      case 'flags': {
        const r = box.messages.get(op.id);
        if (r) {
          r.labels = op.labels;
          r.markers = op.markers;
        }
        return;
      }
      case 'delete': {
        const r = box.messages.get(op.id);
        if (r) {
          // Its labels stay until the purge (listings skip it).
          r.deleted = true;
          if (op.at !== undefined) r.deletedAtMs = op.at;
        }
        return;
      }
      case 'label':
        box.labels.set(op.id, op.name);
        return;
      case 'unlabel':
        box.labels.delete(op.id);
        return;
      case 'purge': {
        if (box.messages.delete(op.id)) {
          const k = lowerBound(box.order, op.id);
          if (box.order[k] === op.id) box.order.splice(k, 1);
        }
        return;
      }
    }
  }

  /** Rewrites the journal as a snapshot (temp file, fsync, rename). */
  #compact(): void {
    this.close();
    const tmp = this.#file + '.tmp';
    const fd = openSync(tmp, 'w');
    try {
      const lines: string[] = [];
      const flush = () => {
        if (lines.length) writeSync(fd, lines.join('\n') + '\n');
        lines.length = 0;
      };
      for (const [mb, box] of this.mailboxes) {
        for (const [id, name] of box.labels) lines.push(JSON.stringify({ op: 'label', mb, id, name }));
        for (const id of box.order) {
          lines.push(JSON.stringify({ op: 'put', mb, rec: box.messages.get(id) }));
          if (lines.length >= 1000) flush();
        }
      }
      flush();
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.#file);
  }

  /** Removes the journal file (used when the data dir is wiped). */
  removeFile(): void {
    this.close();
    rmSync(this.#file, { force: true });
  }
}

function lowerBound(order: string[], id: string): number {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareTimeUuid(order[mid]!, id) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function insertSorted(order: string[], id: string): void {
  const last = order[order.length - 1];
  if (last === undefined || compareTimeUuid(last, id) < 0) order.push(id);
  else order.splice(lowerBound(order, id), 0, id);
}
