/**
 * The mailbox service of the emulator: a mail store with the REST API of
 * `/rest/v2/:domain/:user/mailbox` (spec part a), persisted under
 * `<dataDir>/mailbox/`, plus admin verbs (config, purge, generate).
 */
import { join } from 'node:path';
import { Mailbox, MailboxSeed } from '../../../shared/mailbox.js';
import type { AdminVerb, EmulatorEnv, EmulatorService } from '../../service.js';
import { MailError, MailStore, defaultMailConfig, mailboxKey, parseLabel } from './mailstore.js';
import { registerMailboxRoutes } from './routes.js';
import { seedMailbox } from './seed.js';
import { mailboxConsole } from '../../console/views/others.js';

export async function createMailboxService(env: EmulatorEnv): Promise<EmulatorService> {
  const store = new MailStore(join(env.dataDir, 'mailbox'), env.clock);
  const existed = await store.open();
  if (!existed) await seedMailbox(store);
  return {
    name: 'mailbox',
    register(router) {
      registerMailboxRoutes(router, store, () => env.baseUrl());
    },
    async reset() {
      await store.clear();
      store.config = { ...defaultMailConfig };
      await seedMailbox(store);
    },
    info: () => mailboxInfo(store, env.baseUrl()),
    admin: mailboxAdmin(store),
    console: () => mailboxConsole(store),
    close() {
      store.state.close();
    },
  };
}

/** The seeded mailbox's locations, its newest 20 messages, the store's configuration and the profile settings. */
function mailboxInfo(store: MailStore, base: string): Record<string, unknown> {
  const mb = mailboxKey(MailboxSeed.domain, MailboxSeed.user);
  const box = store.state.mailbox(mb);
  const messages = box
    ? [...box.order]
        .reverse()
        .slice(0, 20)
        .map((id) => {
          const r = box.messages.get(id)!;
          return { id, subject: r.subject ?? '', labels: r.labels, deleted: r.deleted };
        })
    : [];
  return {
    baseUrl: base,
    apiUrl: `${base}${Mailbox.pathPrefix}/${MailboxSeed.domain}/${MailboxSeed.user}/mailbox`,
    domain: MailboxSeed.domain,
    user: MailboxSeed.user,
    messageCount: box?.messages.size ?? 0,
    messages,
    config: store.config,
    profile: { 'mailbox.baseUrl': base, 'mailbox.domain': MailboxSeed.domain, 'mailbox.user': MailboxSeed.user },
  };
}

/** The mailbox an admin verb names (`domain`, `user`), the seeded one by default. */
const target = (b: Record<string, unknown>) => mailboxKey(String(b.domain ?? MailboxSeed.domain), String(b.user ?? MailboxSeed.user));

/** An optional whole number from `min` to `max`; a MailError otherwise. */
function num(v: unknown, name: string, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new MailError(`${name} must be an integer from ${min} to ${max}`);
  return n;
}

/** Admin verbs: the store's configuration, purging deleted messages, bulk messages. */
function mailboxAdmin(store: MailStore): Record<string, AdminVerb> {
  return {
    /** {compressThreshold?: bytes, preparsedBodies?: boolean} → the configuration. */
    config(b) {
      const t = num(b.compressThreshold, 'compressThreshold', 0, Number.MAX_SAFE_INTEGER);
      if (t !== undefined) store.config.compressThreshold = t;
      if (b.preparsedBodies !== undefined) store.config.preparsedBodies = b.preparsedBodies === true || b.preparsedBodies === 'true';
      return store.config;
    },
    /** {domain?, user?} → {purged: [ids]}: removes queued (deleted) messages for good. */
    async purge(b) {
      const all = b.domain === undefined && b.user === undefined;
      return { purged: await store.purge(all ? undefined : target(b)) };
    },
    /** {domain?, user?, count?, label?} or {bytes, compress?}: bulk messages for benchmarks. */
    async generate(b) {
      const mb = target(b);
      const bytes = num(b.bytes, 'bytes', 1, 8 * 1024 ** 3);
      if (bytes !== undefined) {
        const rec = await store.generateLarge(mb, bytes, b.compress === undefined ? undefined : b.compress === true);
        return { id: rec.id, size: rec.size, compressed: rec.object.compressed };
      }
      const count = num(b.count, 'count', 1, 1_000_000) ?? 100;
      const label = b.label === undefined ? undefined : parseLabel(String(b.label));
      return { count, ...(await store.generateMany(mb, count, label)) };
    },
  };
}
