/**
 * MIME handling of the emulated mail store: validation of a stored message,
 * metadata extraction (mailparser: addresses, subject, date, bodies,
 * attachments with their IMAP part numbers) and streaming of one body part
 * by IMAP number or content id (mailsplit's splitter, decoded on the fly).
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { MailParser, type AddressObject, type AttachmentStream, type MessageText } from 'mailparser';
import { Splitter, type MimeNode, type SplitterChunk } from '@zone-eu/mailsplit';
import type { MailboxAddress, MailboxMetadata, MailboxPart } from '../../../shared/mailbox.js';

export class MimeError extends Error {}

export interface ParsedMessage
  extends Pick<MailboxMetadata, 'subject' | 'from' | 'to' | 'cc' | 'bcc' | 'replyTo' | 'messageId' | 'parts' | 'textBody' | 'htmlBody'> {
  /** Epoch ms of the Date header, if it parsed. */
  dateMs?: number;
}

const HEADER_LINE = /^[!-9;-~]+[ \t]*:/;

/** Rejects what the real store's MIME parser refuses: no header block, bad header lines, a multipart without boundary. */
export async function validateMime(file: string): Promise<void> {
  const fh = await open(file, 'r');
  let head: string;
  try {
    const buf = Buffer.alloc(256 * 1024);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    head = buf.subarray(0, bytesRead).toString('latin1');
  } finally {
    await fh.close();
  }
  if (!head.trim()) throw new MimeError('Invalid message: empty body');
  const end = head.search(/\r?\n\r?\n/);
  const block = end >= 0 ? head.slice(0, end) : head;
  const lines = block.split(/\r?\n/);
  if (!HEADER_LINE.test(lines[0]!)) throw new MimeError('Invalid message: no MIME header block');
  for (const line of lines) {
    if (!line || /^[ \t]/.test(line)) continue;
    if (!HEADER_LINE.test(line)) throw new MimeError(`Invalid message: malformed header line "${line.slice(0, 40)}"`);
  }
  const unfolded = block.replace(/\r?\n[ \t]+/g, ' ');
  const ct = /^content-type[ \t]*:(.*)$/im.exec(unfolded)?.[1];
  if (ct && /^\s*multipart\//i.test(ct) && !/boundary\s*=/i.test(ct)) {
    throw new MimeError('Invalid message: multipart without boundary');
  }
}

function addresses(v: AddressObject | AddressObject[] | undefined): MailboxAddress[] | undefined {
  if (!v) return undefined;
  const out: MailboxAddress[] = [];
  const walk = (list: Array<{ address?: string; name: string; group?: Array<{ address?: string; name: string }> }>) => {
    for (const a of list) {
      if (a.group) walk(a.group);
      else if (a.address) out.push({ address: a.address, name: a.name ?? '' });
    }
  };
  for (const o of Array.isArray(v) ? v : [v]) walk(o.value);
  return out.length ? out : undefined;
}

/** Parses the stored message (one streaming pass; attachments are counted, not kept). */
export function parseMessageFile(file: string): Promise<ParsedMessage> {
  return new Promise((resolve, reject) => {
    const parser = new MailParser({ skipImageLinks: true, skipTextToHtml: true, skipHtmlToText: true });
    const out: ParsedMessage = {};
    const parts: Record<string, MailboxPart> = {};
    parser.on('headers', (h: Map<string, unknown>) => {
      out.from = addresses(h.get('from') as AddressObject | undefined);
      out.to = addresses(h.get('to') as AddressObject | undefined);
      out.cc = addresses(h.get('cc') as AddressObject | undefined);
      out.bcc = addresses(h.get('bcc') as AddressObject | undefined);
      out.replyTo = addresses(h.get('reply-to') as AddressObject | undefined);
      const id = h.get('message-id');
      if (typeof id === 'string' && id) out.messageId = id;
      const s = h.get('subject');
      if (typeof s === 'string') out.subject = s;
      const d = h.get('date');
      if (d instanceof Date && !Number.isNaN(d.getTime())) out.dateMs = d.getTime();
    });
    parser.on('data', (data: AttachmentStream | MessageText) => {
      if (data.type === 'attachment') {
        let size = 0;
        data.content.on('data', (c: Buffer) => (size += c.length));
        data.content.on('end', () => {
          const id = (data as AttachmentStream & { partId?: string }).partId ?? String(Object.keys(parts).length + 1);
          const part: MailboxPart = { size, fileName: data.filename ?? '', mimeType: data.contentType };
          const cid = data.contentId?.replace(/^<|>$/g, '');
          if (cid) part.contentId = cid;
          if (data.contentDisposition) part.disposition = data.contentDisposition;
          parts[id] = part;
          data.release();
        });
      } else {
        if (data.text !== undefined) out.textBody = data.text;
        if (typeof data.html === 'string') out.htmlBody = data.html;
      }
    });
    parser.on('error', (err: Error) => reject(new MimeError(`Invalid message: ${err.message}`)));
    parser.on('end', () => {
      if (Object.keys(parts).length) out.parts = parts;
      resolve(out);
    });
    const src = createReadStream(file, { highWaterMark: 256 * 1024 });
    src.on('error', reject);
    src.pipe(parser);
  });
}

/** IMAP body-part number of a splitter node ("1" for the body of a single-part message). */
export function imapPartNumber(node: MimeNode): string {
  const nrs = (node.partNr || []).filter((n): n is number => typeof n === 'number');
  return nrs.length ? nrs.join('.') : '1';
}

export interface PartStream {
  contentType: string;
  charset?: string;
  fileName?: string;
  disposition: string;
  body: Readable;
}

export type PartSelector = { partId: string } | { contentId: string };

function matches(node: MimeNode, sel: PartSelector): boolean {
  if (node.multipart) return false;
  if (node.contentType === 'message/rfc822' && node.messageNode) return false;
  if ('partId' in sel) return imapPartNumber(node) === sel.partId;
  const headers = node.headers;
  const cid = headers ? headers.getFirst('content-id').trim() : '';
  return !!cid && cid.replace(/^<|>$/g, '') === sel.contentId;
}

/**
 * Streams the decoded content of one part of `raw` (the whole message as a
 * stream). Resolves undefined when no part matches. Never buffers the message.
 */
export async function streamPart(raw: Readable, sel: PartSelector): Promise<PartStream | undefined> {
  const splitter = new Splitter();
  raw.on('error', (err) => splitter.destroy(err));
  raw.pipe(splitter);
  const it = splitter[Symbol.asyncIterator]() as AsyncIterator<SplitterChunk>;
  const stop = () => {
    raw.unpipe(splitter);
    raw.destroy();
    splitter.destroy();
  };
  let target: MimeNode | undefined;
  for (;;) {
    const r = await it.next();
    if (r.done) break;
    if (r.value.type === 'node' && matches(r.value, sel)) {
      target = r.value;
      break;
    }
  }
  if (!target) {
    stop();
    return undefined;
  }
  const node = target;
  async function* bodyChunks(): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        const r = await it.next();
        if (r.done) return;
        const c = r.value;
        if (c.type === 'node') return;
        if (c.type === 'body' && c.node === node) yield c.value;
      }
    } finally {
      stop();
    }
  }
  const decoder = node.getDecoder();
  const body = Readable.from(bodyChunks()).pipe(decoder);
  const disposition = node.disposition || (node.filename ? 'attachment' : 'inline');
  return {
    contentType: node.contentType || 'application/octet-stream',
    charset: node.charset || undefined,
    fileName: node.filename || undefined,
    disposition,
    body,
  };
}
