/**
 * Request functions of the mailbox REST API (`/rest/v2/:domain/:user/mailbox`).
 * Bodies of raw messages and parts are streamed both ways; nothing here holds
 * a whole message in memory.
 */
import type { Readable } from 'node:stream';
import { Mailbox, type MailboxMetadata } from '../../shared/mailbox.js';
import { HttpError, LanyardError } from '../errors.js';
import { pathSegment } from '../path-segment.js';
import { type MailboxTarget, mailboxApiUrl } from './target.js';
import { checkWire } from '../wire/check.js';
import { MailboxAdjacentSchema, MailboxCreatedSchema, MailboxListSchema, MailboxMetadataSchema } from '../wire/schemas.js';
import type { HttpClient, HttpResponse, QueryValue, RequestSpec } from '../http/client.js';

export type { MailboxTarget } from './target.js';
export { mailboxApiUrl } from './target.js';

/** The message does not exist (the store answers 400 "Message not found"; 404 is treated alike). */
export class MessageNotFoundError extends LanyardError {
  constructor(readonly id: string) {
    super('not_found', `message ${id} not found`);
  }
}

export interface ListOptions {
  label: number;
  metadata?: boolean;
  count?: number;
  start?: string;
  /** Oldest first (reverse=false). */
  oldestFirst?: boolean;
  includeBody?: boolean;
}

export interface ListedMessage {
  id: string;
  metadata?: MailboxMetadata;
}

export interface MessageView {
  id: string;
  message: MailboxMetadata;
  prev?: string | null;
  next?: string | null;
}

export interface StreamedBody {
  body: Readable;
  /** `deflate` when the server sent a deflate stream (still encoded in `body`). */
  encoding?: string;
  contentType?: string;
  contentDisposition?: string;
  /** Content-Length when the server sent one (chunked responses have none). */
  length?: number;
}

export class MailboxClient {
  readonly #http: HttpClient;
  readonly #t: MailboxTarget;
  readonly #signal?: AbortSignal;

  constructor(http: HttpClient, target: MailboxTarget, signal?: AbortSignal) {
    this.#http = http;
    this.#t = target;
    this.#signal = signal;
  }

  /** Base URL of this mailbox's API. */
  get apiUrl(): string {
    return mailboxApiUrl(this.#t);
  }

  async #req(
    method: string,
    path: string,
    o: {
      query?: Record<string, QueryValue>;
      body?: Uint8Array | Readable | AsyncIterable<Uint8Array>;
      headers?: Record<string, string>;
      stream?: boolean;
      id?: string;
      /** Return a 3xx as it is (`url()`) instead of following it. */
      manualRedirect?: boolean;
    } = {},
  ): Promise<HttpResponse> {
    try {
      const spec: RequestSpec = {
        method,
        url: this.apiUrl + path,
        query: o.query,
        body: o.body,
        headers: o.headers,
        signal: this.#signal,
        streamResponse: o.stream,
        credential: { scheme: 'none' },
        redirect: o.manualRedirect ? 'manual' : undefined,
        okStatus: o.manualRedirect ? (s) => s >= 200 && s < 400 : undefined,
      };
      return await (o.stream ? this.#http.requestStream(spec) : this.#http.request(spec));
    } catch (err) {
      if (o.id && err instanceof HttpError && isNotFound(err)) throw new MessageNotFoundError(o.id);
      throw err;
    }
  }

  /** One page of a label: ids, or ids with metadata, in server order. */
  async listPage(o: ListOptions): Promise<ListedMessage[]> {
    const res = await this.#req('GET', `/label/${o.label}`, {
      query: {
        metadata: o.metadata ? 'true' : undefined,
        count: o.count ?? Mailbox.defaultCount,
        start: o.start,
        reverse: o.oldestFirst ? 'false' : undefined,
        includebody: o.includeBody ? 'true' : undefined,
      },
    });
    const body = await res.json<unknown>();
    return processListBody(body);
  }

  /**
   * Every message of a label, page after page: the next page starts at the
   * last id of the previous one (the store's `start` is inclusive), which is
   * dropped so nothing repeats and nothing is skipped. Memory: one page.
   */
  async *listAll(o: ListOptions): AsyncGenerator<ListedMessage> {
    let after: string | undefined;
    for (;;) {
      const page = await this.listAfter(o, after);
      yield* page.messages;
      if (page.next === undefined) return;
      after = page.next;
    }
  }

  /**
   * One page of `listAll`: the first page (from `o.start`), or the page after
   * the message `after` (fetched from it inclusive, that message dropped).
   * `next`: the cursor of the following page, absent at the end of the label.
   */
  async listAfter(o: ListOptions, after?: string): Promise<{ messages: ListedMessage[]; next?: string }> {
    const count = o.count ?? Mailbox.defaultCount;
    const want = after === undefined ? count : Math.min(count + 1, Mailbox.maxCount);
    const page = await this.listPage({ ...o, count: want, start: after ?? o.start });
    const messages = after === undefined ? page : page.filter((m) => m.id !== after);
    if (page.length < want || messages.length === 0) return { messages };
    return { messages, next: page[page.length - 1]!.id };
  }

  async get(id: string, o: { adjacent?: boolean; label?: number; markSeen?: boolean } = {}): Promise<MessageView> {
    const res = await this.#req('GET', `/message/${id}`, {
      id,
      query: {
        adjacent: o.adjacent ? 'true' : undefined,
        label: o.label,
        markseen: o.markSeen ? 'true' : undefined,
      },
    });
    return processMessageBody(id, await res.json<unknown>(), { adjacent: o.adjacent });
  }

  /** The raw message as sent (possibly deflate-encoded: see `encoding`). */
  async raw(id: string): Promise<StreamedBody> {
    const res = await this.#req('GET', `/message/${id}/raw`, { id, stream: true, headers: { accept: '*/*', 'accept-encoding': 'deflate' } });
    return streamed(res);
  }

  /** The object-store location (the 307 is not followed). */
  async url(id: string): Promise<string> {
    const res = await this.#req('GET', `/message/${id}/url`, { id, manualRedirect: true });
    await res.dump();
    const loc = res.headers.location;
    if (res.status < 300 || res.status >= 400 || !loc) {
      throw new LanyardError('protocol_error', `expected a redirect with a Location header, got HTTP ${res.status}`);
    }
    return new URL(loc, this.apiUrl).toString();
  }

  /** One body part by IMAP number (`1.2`) or content id (`<id@host>`), streamed. */
  async part(id: string, partId: string): Promise<StreamedBody> {
    const res = await this.#req('GET', `/message/${id}/${pathSegment(partId, 'part id')}`, { id, stream: true, headers: { accept: '*/*' } });
    return streamed(res);
  }

  async store(body: Uint8Array | Readable | AsyncIterable<Uint8Array>, o: { labels?: number[]; markers?: string[] } = {}): Promise<string> {
    const res = await this.#req('POST', '/message', {
      body,
      query: { label: o.labels?.length ? o.labels : undefined, marker: o.markers?.length ? o.markers : undefined },
      headers: { 'content-type': 'message/rfc822' },
    });
    return processCreated(await res.json<unknown>());
  }

  async update(id: string, body: Uint8Array | Readable | AsyncIterable<Uint8Array>): Promise<string> {
    const res = await this.#req('POST', `/message/${id}`, { id, body, headers: { 'content-type': 'message/rfc822' } });
    return processCreated(await res.json<unknown>());
  }

  async modify(id: string, ch: { add?: number[]; remove?: number[]; addMarkers?: string[]; removeMarkers?: string[] }): Promise<void> {
    const res = await this.#req('PUT', `/message/${id}`, {
      id,
      query: {
        addlabel: ch.add?.length ? ch.add : undefined,
        removelabel: ch.remove?.length ? ch.remove : undefined,
        addmarker: ch.addMarkers?.length ? ch.addMarkers : undefined,
        removemarker: ch.removeMarkers?.length ? ch.removeMarkers : undefined,
      },
    });
    await res.dump();
  }

  async delete(id: string): Promise<void> {
    const res = await this.#req('DELETE', `/message/${id}`, { id });
    await res.dump();
  }
}

function isNotFound(err: HttpError): boolean {
  if (err.status === 404) return true;
  const m = err.body && typeof err.body === 'object' ? (err.body as { message?: unknown }).message : err.body;
  return err.status === 400 && typeof m === 'string' && /message not found/i.test(m);
}

function streamed(res: HttpResponse): StreamedBody {
  const len = res.headers['content-length'];
  const enc = res.headers['content-encoding']?.trim().toLowerCase();
  return {
    body: res.body,
    encoding: enc && enc !== 'identity' ? enc : undefined,
    contentType: res.headers['content-type'],
    contentDisposition: res.headers['content-disposition'],
    length: len !== undefined && /^\d+$/.test(len) ? Number(len) : undefined,
  };
}

/** Array of ids, or an object keyed by id (insertion order is the server's order); checked against the wire type. */
export function processListBody(body: unknown): ListedMessage[] {
  const b = checkWire('mailbox', 'the message list', MailboxListSchema, body);
  if (Array.isArray(b)) return b.map((id) => ({ id: String(id) }));
  return Object.entries(b).map(([id, metadata]) => ({ id, metadata }));
}

/**
 * `{message, prev?, next?}` (the store wraps the metadata, and leaves out a
 * neighbour it did not find), else the metadata itself; checked against the
 * wire type. `prev` and `next` are in the view only when neighbours were asked
 * for (`adjacent`: `null` for none) or the server sent them.
 */
export function processMessageBody(id: string, body: unknown, o: { adjacent?: boolean } = {}): MessageView {
  const b = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  if (b?.message && typeof b.message === 'object' && !Array.isArray(b.message) && ('prev' in b || 'next' in b || !('labels' in b))) {
    const a = checkWire('mailbox', `message ${id}`, MailboxAdjacentSchema, body);
    const v: MessageView = { id, message: a.message };
    if (o.adjacent || 'prev' in b) v.prev = a.prev ?? null;
    if (o.adjacent || 'next' in b) v.next = a.next ?? null;
    return v;
  }
  return { id, message: checkWire('mailbox', `message ${id}`, MailboxMetadataSchema, body) };
}

export function processCreated(body: unknown): string {
  return checkWire('mailbox', 'the answer to a stored message', MailboxCreatedSchema, body).id;
}
