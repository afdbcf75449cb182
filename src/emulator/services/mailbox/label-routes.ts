/**
 * HTTP face of the labels, the account, the purge and the batch operations
 * (see labels.ts): `/rest/v2/:domain/:user[/mailbox[/label[/:id]|/purge|/message]]`.
 */
import { Mailbox } from '../../../shared/mailbox.js';
import type { EmuRequest, EmuResponse, Router } from '../../router.js';
import { addLabel, deleteLabel, deleteMany, dropAccount, LabelMessages, labelCounters, labelNames, messageIdList, modifyMany, renameLabel } from './labels.js';
import { MailError, parseLabel, parseMarker, type MailStore } from './mailstore.js';
import { isUuid } from './timeuuid.js';

/** Runs a handler for the request's mailbox (`domain/user`), answering a MailError as `{"message": ...}`. */
export type Wrap = (h: (req: EmuRequest, res: EmuResponse, mb: string) => Promise<void> | void) => (req: EmuRequest, res: EmuResponse) => Promise<void>;

/** A modify's changes from its query parameters (`addlabel`, `removelabel`, `addmarker`, `removemarker`, each repeatable). */
export function modificationOf(q: URLSearchParams): Parameters<MailStore['modify']>[2] {
  return {
    add: q.getAll('addlabel').map(parseLabel),
    remove: q.getAll('removelabel').map(parseLabel),
    addMarkers: q.getAll('addmarker').map(parseMarker),
    removeMarkers: q.getAll('removemarker').map(parseMarker),
  };
}

/** The label name: from a JSON body `{"name": ...}`, else the `name` query parameter. */
async function labelName(req: EmuRequest): Promise<string | undefined> {
  const text = (await req.text()).trim();
  const fromQuery = req.query.get('name') ?? undefined;
  if (!text) return fromQuery;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new MailError(LabelMessages.malformed);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new MailError(LabelMessages.malformed);
  const name = (v as { name?: unknown }).name;
  if (name !== undefined && name !== null && typeof name !== 'string') throw new MailError(LabelMessages.malformed);
  return (name as string | undefined) ?? fromQuery;
}

/** The purge's `age`: a date (deleted at or before it are purged); none: now (every deleted message). */
function ageOf(req: EmuRequest): number {
  const age = req.query.get('age');
  if (age === null) return Number.POSITIVE_INFINITY;
  const ms = /^\d+$/.test(age) ? Number(age) : Date.parse(age);
  if (Number.isNaN(ms)) throw new MailError(`Invalid age: ${age}`);
  return ms;
}

export function registerLabelRoutes(router: Router, store: MailStore, baseUrl: () => string, wrap: Wrap, base: string): void {
  registerAccountRoutes(router, store, baseUrl, wrap);

  // The label list: id → name, or with metadata id → {name, total, unread[, size]}.
  router.get(
    base,
    wrap((req, res, mb) => {
      const meta = /^(true|1)$/i.test(req.query.get('metadata') ?? '');
      res.json(200, Object.fromEntries(meta ? labelCounters(store, mb) : labelNames(store, mb)));
    }),
  );
  router.put(
    `${base}/purge`,
    wrap(async (req, res, mb) => {
      await store.purge(mb, ageOf(req));
      res.empty(204);
    }),
  );

  router.post(
    `${base}/label`,
    wrap(async (req, res, mb) => {
      const id = addLabel(store, mb, await labelName(req));
      res.json(201, { id }, { location: `${baseUrl()}${req.path.replace(/\/+$/, '')}/${id}` });
    }),
  );
  router.put(
    `${base}/label/:labelid`,
    wrap(async (req, res, mb) => {
      renameLabel(store, mb, parseLabel(req.params.labelid!), await labelName(req));
      res.empty(204);
    }),
  );
  router.delete(
    `${base}/label/:labelid`,
    wrap((req, res, mb) => {
      deleteLabel(store, mb, parseLabel(req.params.labelid!));
      res.empty(204);
    }),
  );

  registerBatchRoutes(router, store, wrap, base);
}

/** The account (`/rest/v2/:domain/:user`): its information is not implemented by the server (204), adding answers 201 {"ok":true}. */
function registerAccountRoutes(router: Router, store: MailStore, baseUrl: () => string, wrap: Wrap): void {
  const account = `${Mailbox.pathPrefix}/:domain/:user`;
  router.get(
    account,
    wrap((_req, res) => res.empty(204)),
  );
  router.post(
    account,
    wrap((req, res) => res.json(201, { ok: true }, { location: `${baseUrl()}${req.path.replace(/\/+$/, '')}/mailbox` })),
  );
  router.delete(
    account,
    wrap(async (_req, res, mb) => {
      await dropAccount(store, mb);
      res.empty(204);
    }),
  );
}

/** Batch operations on the messages a JSON array of ids in the body names: modify, delete. */
function registerBatchRoutes(router: Router, store: MailStore, wrap: Wrap, base: string): void {
  router.put(
    `${base}/message`,
    wrap(async (req, res, mb) => {
      modifyMany(store, mb, messageIdList(await req.text(), isUuid), modificationOf(req.query));
      res.empty(204);
    }),
  );
  router.delete(
    `${base}/message`,
    wrap(async (req, res, mb) => {
      deleteMany(store, mb, messageIdList(await req.text(), isUuid));
      res.empty(204);
    }),
  );
}
