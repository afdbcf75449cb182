/**
 * HTTP face of the emulated mail store: `/rest/v2/:domain/:user/mailbox/...`
 * and the object-store locations the `/url` route points at. Errors are JSON
 * `{"message": "..."}` with status 400, like the real store.
 */
import { pipeline } from 'node:stream/promises';
import { Mailbox } from '../../../shared/mailbox.js';
import type { EmuRequest, EmuResponse, Router } from '../../router.js';
import { MailError, mailboxKey, parseLabel, parseMarker, type MailStore } from './mailstore.js';
import { streamPart } from './mime.js';
import type { MessageRecord } from './state.js';
import { isUuid } from './timeuuid.js';
import { modificationOf, registerLabelRoutes, type Wrap } from './label-routes.js';

export const OBJECT_PREFIX = '/_objects/mailbox';

type Handler = (req: EmuRequest, res: EmuResponse, mb: string) => Promise<void> | void;

/** Runs a handler for the request's mailbox (`domain/user`), answering a MailError as `{"message": ...}`. */
const wrap: Wrap = (h: Handler) => async (req: EmuRequest, res: EmuResponse) => {
  try {
    await h(req, res, mailboxKey(req.params.domain!, req.params.user!));
  } catch (err) {
    if (res.sent) return void res.raw.destroy();
    if (err instanceof MailError) {
      req.raw.resume();
      return res.json(err.status, { message: err.message });
    }
    throw err;
  }
};

/** The message id of the path, lower-cased; a MailError unless it is a UUID. */
function msgId(req: EmuRequest): string {
  const id = req.params.uuid!;
  if (!isUuid(id)) throw new MailError(`Invalid message id: ${id}`);
  return id.toLowerCase();
}

/** What the message routes share: the store, the base path of a mailbox, and a message's locations and metadata. */
interface MailRoutes {
  store: MailStore;
  baseUrl: () => string;
  /** `/rest/v2/:domain/:user/mailbox`. */
  base: string;
  objectUrl(rec: MessageRecord): string;
  meta(rec: MessageRecord, bodies: boolean): Record<string, unknown>;
}

/** Every route of the mail store, in the order the router matches them (`/raw` and `/url` before `/:partid`). */
export function registerMailboxRoutes(router: Router, store: MailStore, baseUrl: () => string): void {
  const base = `${Mailbox.pathPrefix}/:domain/:user/mailbox`;
  const objectUrl = (rec: MessageRecord) => `${baseUrl()}${OBJECT_PREFIX}/${rec.object.key.split('/').map(encodeURIComponent).join('/')}`;
  const m: MailRoutes = { store, baseUrl, base, objectUrl, meta: (rec, bodies) => toMetadata(rec, objectUrl(rec), bodies && store.config.preparsedBodies) };
  registerListAndStoreRoutes(router, m);
  registerMessageReadRoutes(router, m);
  registerMessageWriteRoutes(router, m);
  registerLabelRoutes(router, store, baseUrl, wrap, base);
  registerObjectRoute(router, store);
}

/** A label's messages (ids, or metadata by id) and storing a new message. */
function registerListAndStoreRoutes(router: Router, { store, baseUrl, base, meta }: MailRoutes): void {
  router.get(
    `${base}/label/:labelid`,
    wrap((req, res, mb) => {
      const label = parseLabel(req.params.labelid!);
      const count = req.query.get('count') ?? String(Mailbox.defaultCount);
      if (!/^\d+$/.test(count) || Number(count) < 1) throw new MailError(`Invalid count: ${count}`);
      const start = req.query.get('start') ?? undefined;
      if (start !== undefined && !isUuid(start)) throw new MailError(`Invalid start id: ${start}`);
      const recs = store.state.list(mb, {
        label,
        reverse: !isFalse(req.query.get('reverse'), true),
        start: start?.toLowerCase(),
        count: Math.min(Number(count), Mailbox.maxCount),
      });
      if (!isTrue(req.query.get('metadata')))
        return res.json(
          200,
          recs.map((r) => r.id),
        );
      const bodies = isTrue(req.query.get('includebody'));
      const out: Record<string, unknown> = {};
      for (const r of recs) out[r.id] = meta(r, bodies);
      res.json(200, out);
    }),
  );

  router.post(
    `${base}/message`,
    wrap(async (req, res, mb) => {
      const labels = req.query.getAll('label').map(parseLabel);
      const markers = req.query.getAll('marker').map(parseMarker);
      const rec = await store.store(mb, req.raw, labels, markers);
      created(res, req, rec.id, baseUrl());
    }),
  );
}

/** A message: raw, its object-store URL, one part, its metadata (with its neighbours in a label). */
function registerMessageReadRoutes(router: Router, { store, base, objectUrl, meta }: MailRoutes): void {
  router.get(
    `${base}/message/:uuid/raw`,
    wrap(async (req, res, mb) => {
      const rec = store.get(mb, msgId(req));
      await sendObject(req, res, store, rec);
    }),
  );

  router.get(
    `${base}/message/:uuid/url`,
    wrap((req, res, mb) => {
      const rec = store.get(mb, msgId(req));
      res.redirect(307, objectUrl(rec));
    }),
  );

  router.get(
    `${base}/message/:uuid/:partid`,
    wrap(async (req, res, mb) => {
      const rec = store.get(mb, msgId(req));
      const p = req.params.partid!;
      let sel: { partId: string } | { contentId: string };
      if (/^<[^<>]+>$/.test(p)) sel = { contentId: p.slice(1, -1) };
      else if (/^\d+(\.\d+)*$/.test(p)) sel = { partId: p };
      else throw new MailError(`Invalid part id: ${p}`);
      const part = await streamPart(store.objects.readPlain(rec.object), sel);
      if (!part) throw new MailError('Part not found');
      const ct = part.contentType + (part.charset ? `; charset=${part.charset}` : '');
      // The server always names a part an attachment, whatever its own Content-Disposition.
      res.head(200, { 'content-type': ct, 'content-disposition': contentDisposition('attachment', part.fileName) });
      await pipeline(part.body, res.raw);
    }),
  );

  router.get(
    `${base}/message/:uuid`,
    wrap((req, res, mb) => {
      const rec = store.get(mb, msgId(req));
      if (isTrue(req.query.get('markseen'))) store.markSeen(mb, rec);
      const m = meta(rec, true);
      if (isTrue(req.query.get('adjacent'))) {
        const l = req.query.get('label');
        if (l === null) throw new MailError('Parameter label is required with adjacent');
        const { prev, next } = store.state.adjacent(mb, rec.id, parseLabel(l));
        // The server leaves out what it did not find (no `null`).
        return res.json(200, { message: m, ...(next ? { next } : {}), ...(prev ? { prev } : {}) });
      }
      res.json(200, { message: m });
    }),
  );
}

/** A message replaced, its labels and markers changed, deleted. */
function registerMessageWriteRoutes(router: Router, { store, baseUrl, base }: MailRoutes): void {
  router.post(
    `${base}/message/:uuid`,
    wrap(async (req, res, mb) => {
      const rec = await store.update(mb, msgId(req), req.raw);
      created(res, req, rec.id, baseUrl());
    }),
  );

  router.put(
    `${base}/message/:uuid`,
    wrap((req, res, mb) => {
      store.modify(mb, msgId(req), modificationOf(req.query));
      res.empty(204);
    }),
  );

  router.delete(
    `${base}/message/:uuid`,
    wrap((req, res, mb) => {
      store.delete(mb, msgId(req));
      res.empty(204);
    }),
  );
}

/** The object store itself (what `/url` points at). */
function registerObjectRoute(router: Router, store: MailStore): void {
  router.get(
    `${OBJECT_PREFIX}/:domain/:user/:object`,
    wrap(async (req, res, mb) => {
      const m = /^([0-9a-f-]{36})\.(eml|deflate)$/i.exec(req.params.object!);
      const rec = m ? store.state.get(mb, m[1]!) : undefined;
      if (!rec) return res.json(404, { message: 'Object not found' });
      await sendObject(req, res, store, rec);
    }),
  );
}

/** 201 with the new message's absolute URL in `Location` (as the server's JAX-RS builds it). */
function created(res: EmuResponse, req: EmuRequest, id: string, base: string): void {
  const path = req.path.replace(/\/message(\/[^/]+)?\/?$/, `/message/${id}`);
  res.json(201, { id }, { location: base + path });
}

/** The raw message, chunked: deflated as stored for clients that accept deflate, inflated otherwise. */
async function sendObject(req: EmuRequest, res: EmuResponse, store: MailStore, rec: MessageRecord): Promise<void> {
  const deflate = rec.object.compressed && acceptsDeflate(req.header('accept-encoding'));
  const headers: Record<string, string> = { 'content-type': 'text/plain', vary: 'Accept-Encoding' };
  if (deflate) headers['content-encoding'] = 'deflate';
  res.head(200, headers);
  if (req.method === 'HEAD') return void res.raw.end();
  const src = deflate ? store.objects.readStored(rec.object) : store.objects.readPlain(rec.object);
  await pipeline(src, res.raw);
}

export function acceptsDeflate(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((item) => {
    const [coding, ...params] = item.trim().toLowerCase().split(';');
    if (coding!.trim() !== 'deflate' && coding!.trim() !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return !q || Number(q.slice(2)) > 0;
  });
}

function contentDisposition(type: string, fileName: string | undefined): string {
  if (!fileName) return type;
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `${type}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase())}`;
}

const isTrue = (v: string | null) => v !== null && /^(true|1|yes|)$/i.test(v);
const isFalse = (v: string | null, dflt: boolean) => (v === null ? !dflt : /^(false|0|no)$/i.test(v));

/** `YYYY-MM-DDThh:mm:ss.SSS+0000`. */
export function formatDate(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '+0000');
}

export function toMetadata(rec: MessageRecord, uri: string, bodies: boolean): Record<string, unknown> {
  const m: Record<string, unknown> = { labels: rec.labels };
  if (rec.markers.length) m.markers = rec.markers;
  m.size = rec.size;
  m.date = formatDate(rec.dateMs);
  if (rec.subject !== undefined) m.subject = rec.subject;
  m.uri = uri;
  for (const k of ['from', 'to', 'cc', 'bcc', 'replyTo'] as const) if (rec[k]?.length) m[k] = rec[k];
  if (rec.messageId !== undefined) m.messageId = rec.messageId;
  if (rec.parts && Object.keys(rec.parts).length) m.parts = rec.parts;
  if (bodies) {
    if (rec.textBody !== undefined) m.textBody = rec.textBody;
    if (rec.htmlBody !== undefined) m.htmlBody = rec.htmlBody;
  }
  return m;
}
