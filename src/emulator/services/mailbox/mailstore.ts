/**
 * The emulated mail store: metadata state + object store + id generator, and
 * the operations of the spec's state table (store, modify, update, delete,
 * purge), independent of HTTP.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { Mailbox } from '../../../shared/mailbox.js';
import type { EmulatorClock } from '../../clock.js';
import { MimeError, parseMessageFile, validateMime } from './mime.js';
import { ObjectStore } from './objects.js';
import { MailState, type MessageRecord } from './state.js';
import { TimeUuidGenerator } from './timeuuid.js';

export interface MailConfig {
  /** Messages larger than this many bytes are stored raw-deflated. */
  compressThreshold: number;
  /** Keep pre-parsed text and HTML bodies in the metadata. */
  preparsedBodies: boolean;
}

export const defaultMailConfig: MailConfig = { compressThreshold: 32 * 1024, preparsedBodies: true };

/** A 400 with `{"message": ...}` in the real store's words. */
export class MailError extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/** `domain/user`, also the mailbox's folder in the object store: a name that could leave it is refused. */
export function mailboxKey(domain: string, user: string): string {
  for (const [what, v] of [
    ['domain', domain],
    ['user', user],
  ] as const) {
    if (!v || v === '.' || v === '..' || /[/\\\0]/.test(v)) throw new MailError(`Invalid ${what}: ${v}`);
  }
  return `${domain.toLowerCase()}/${user.toLowerCase()}`;
}

const MARKERS = new Set<string>(Mailbox.markers);

/** Accepts `seen`/`SEEN`; throws a MailError for unknown markers. */
export function parseMarker(m: string): string {
  const up = m.trim().toUpperCase();
  if (!MARKERS.has(up)) throw new MailError(`Invalid marker: ${m}`);
  return up;
}

export function parseLabel(v: string): number {
  if (!/^\d{1,9}$/.test(v.trim())) throw new MailError(`Invalid label: ${v}`);
  return Number(v);
}

export class MailStore {
  readonly objects: ObjectStore;
  readonly state: MailState;
  config: MailConfig = { ...defaultMailConfig };
  readonly #gen = new TimeUuidGenerator();
  readonly #clock: EmulatorClock;

  constructor(dir: string, clock: EmulatorClock) {
    this.objects = new ObjectStore(join(dir, 'objects'));
    this.state = new MailState(dir);
    this.#clock = clock;
  }

  /** Loads persisted state; false when the store is new. */
  async open(): Promise<boolean> {
    await this.objects.init();
    const existed = this.state.load();
    for (const box of this.state.mailboxes.values()) {
      const last = box.order[box.order.length - 1];
      if (last) this.#gen.observe(last);
    }
    return existed;
  }

  async clear(): Promise<void> {
    this.state.clear();
    await this.objects.clear();
  }

  get(mb: string, id: string): MessageRecord {
    const rec = this.state.get(mb, id);
    if (!rec) throw new MailError(Mailbox.messages.notFound);
    return rec;
  }

  /** Stores a raw message from a stream: POST /message. */
  async store(mb: string, body: Readable | AsyncIterable<Uint8Array>, labels: number[], markers: string[]): Promise<MessageRecord> {
    const { tmp, size } = await this.objects.receive(body);
    try {
      await validateMime(tmp);
      const parsed = await parseMessageFile(tmp);
      const arrival = this.#clock.now();
      const id = this.#gen.next(arrival);
      const object = await this.objects.commit(tmp, `${mb}/${id}`, size > this.config.compressThreshold);
      const rec: MessageRecord = {
        id,
        labels: [...new Set([Mailbox.allMailsLabel, ...labels])].sort((a, b) => a - b),
        markers: [...new Set(markers)],
        deleted: false,
        size,
        dateMs: parsed.dateMs ?? arrival,
        subject: parsed.subject,
        from: parsed.from,
        to: parsed.to,
        cc: parsed.cc,
        bcc: parsed.bcc,
        replyTo: parsed.replyTo,
        messageId: parsed.messageId,
        parts: parsed.parts,
        textBody: parsed.textBody,
        htmlBody: parsed.htmlBody,
        object,
      };
      this.state.put(mb, [rec]);
      return rec;
    } catch (err) {
      await rm(tmp, { force: true });
      if (err instanceof MimeError) throw new MailError(err.message);
      throw err;
    }
  }

  /** POST /message/:uuid: a new message carrying labels and markers; the old one is deleted. */
  async update(mb: string, id: string, body: Readable): Promise<MessageRecord> {
    const old = this.get(mb, id);
    if (old.deleted) throw new MailError(Mailbox.messages.notFound);
    const labels = old.labels;
    const markers = old.markers;
    const rec = await this.store(mb, body, labels, markers);
    this.state.delete(mb, old.id);
    return rec;
  }

  /** PUT /message/:uuid. */
  modify(mb: string, id: string, ch: { add: number[]; remove: number[]; addMarkers: string[]; removeMarkers: string[] }): void {
    if (ch.remove.includes(Mailbox.allMailsLabel)) throw new MailError(Mailbox.messages.labelNotRemovable);
    const rec = this.get(mb, id);
    if (rec.deleted) throw new MailError(Mailbox.messages.notFound);
    if (!ch.add.length && !ch.remove.length && !ch.addMarkers.length && !ch.removeMarkers.length) {
      throw new MailError('Nothing to modify: give addlabel, removelabel, addmarker or removemarker');
    }
    const labels = new Set(rec.labels);
    for (const l of ch.add) labels.add(l);
    for (const l of ch.remove) labels.delete(l);
    const markers = new Set(rec.markers);
    for (const m of ch.addMarkers) markers.add(m);
    for (const m of ch.removeMarkers) markers.delete(m);
    this.state.setFlags(
      mb,
      rec.id,
      [...labels].sort((a, b) => a - b),
      [...markers],
    );
  }

  markSeen(mb: string, rec: MessageRecord): void {
    if (rec.markers.includes('SEEN')) return;
    this.state.setFlags(mb, rec.id, rec.labels, [...rec.markers, 'SEEN']);
  }

  /** DELETE: into the purge queue (removed from every label, still readable by id). */
  delete(mb: string, id: string): void {
    const rec = this.get(mb, id);
    if (!rec.deleted) this.state.delete(mb, rec.id, this.#clock.now());
  }

  /** The purge command: removes queued messages (deleted at or before `beforeMs`, default all) from metadata and the object store. */
  async purge(mb?: string, beforeMs = Number.POSITIVE_INFINITY): Promise<string[]> {
    const purged: string[] = [];
    for (const [key, box] of this.state.mailboxes) {
      if (mb && key !== mb) continue;
      for (const rec of [...box.messages.values()]) {
        if (!rec.deleted || (rec.deletedAtMs ?? 0) > beforeMs) continue;
        this.state.purge(key, rec.id);
        await this.objects.remove(rec.object);
        purged.push(rec.id);
      }
    }
    return purged;
  }

  /** Bulk generation for benchmarks: `count` small messages, written with one journal append. */
  async generateMany(mb: string, count: number, label: number | undefined): Promise<{ first?: string; last?: string }> {
    const recs: MessageRecord[] = [];
    for (let i = 0; i < count; i++) {
      const arrival = this.#clock.now();
      const id = this.#gen.next(arrival);
      const subject = `Generated message ${i + 1}`;
      const raw = Buffer.from(
        `From: Generator <gen@example.net>\r\nTo: <${mb.split('/')[1]}@${mb.split('/')[0]}>\r\nSubject: ${subject}\r\n` +
          `Date: ${new Date(arrival).toUTCString()}\r\nMessage-ID: <${id}@example.net>\r\n\r\nBody of message ${i + 1}.\r\n`,
      );
      const key = `${mb}/${id}.eml`;
      const path = this.objects.path({ key });
      if (i === 0) await mkdir(join(path, '..'), { recursive: true });
      await writeFile(path, raw);
      recs.push({
        id,
        labels: [...new Set([Mailbox.allMailsLabel, ...(label !== undefined ? [label] : [])])],
        markers: [],
        deleted: false,
        size: raw.length,
        dateMs: arrival,
        subject,
        from: [{ address: 'gen@example.net', name: 'Generator' }],
        to: [{ address: `${mb.split('/')[1]}@${mb.split('/')[0]}`, name: '' }],
        object: { key, compressed: false, storedSize: raw.length },
      });
    }
    this.state.put(mb, recs);
    return { first: recs[0]?.id, last: recs[recs.length - 1]?.id };
  }

  /** One large message (a base64 attachment of `bytes` random bytes) for the raw benchmark. */
  async generateLarge(mb: string, bytes: number, compress: boolean | undefined): Promise<MessageRecord> {
    const arrival = this.#clock.now();
    const head =
      `From: Generator <gen@example.net>\r\nSubject: Large message (${bytes} bytes)\r\nDate: ${new Date(arrival).toUTCString()}\r\n` +
      `MIME-Version: 1.0\r\nContent-Type: application/octet-stream; name="blob.bin"\r\n` +
      `Content-Disposition: attachment; filename="blob.bin"\r\nContent-Transfer-Encoding: base64\r\n\r\n`;
    async function* content(): AsyncGenerator<Buffer> {
      yield Buffer.from(head);
      const block = 57 * 16 * 1024; // whole 76-char base64 lines
      for (let done = 0; done < bytes; done += block) {
        const n = Math.min(block, bytes - done);
        const b64 = randomBytes(n).toString('base64');
        yield Buffer.from(b64.replace(/.{1,76}/g, '$&\r\n'));
      }
    }
    const { tmp, size } = await this.objects.receive(Readable.from(content()));
    const id = this.#gen.next(arrival);
    const object = await this.objects.commit(tmp, `${mb}/${id}`, compress ?? size > this.config.compressThreshold);
    const rec: MessageRecord = {
      id,
      labels: [Mailbox.allMailsLabel],
      markers: [],
      deleted: false,
      size,
      dateMs: arrival,
      subject: `Large message (${bytes} bytes)`,
      from: [{ address: 'gen@example.net', name: 'Generator' }],
      parts: { '1': { size: bytes, fileName: 'blob.bin', mimeType: 'application/octet-stream' } },
      object,
    };
    this.state.put(mb, [rec]);
    return rec;
  }
}
