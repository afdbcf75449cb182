/**
 * The request journal: every request the emulator answered, with its time,
 * service, caller, method, path, status, duration and the fault applied, and
 * what it sent (query, headers, a JSON or form body) with secrets redacted, so
 * a test can assert what a script sent. Kept in memory (the newest
 * `capacity` entries), read over `GET /_emulator/requests` and in process.
 */
export interface JournalEntry {
  /** Increasing number: `since` of the next read. */
  seq: number;
  /** ISO time on the emulator clock when the request arrived. */
  time: string;
  service: string;
  /** Who called: the authenticated account when a service knows it, the credential's kind, the client's address and agent. */
  caller: { ip: string; userAgent?: string; auth?: string; login?: string };
  method: string;
  path: string;
  /** Query parameters, secrets redacted. */
  query: Record<string, string | string[]>;
  /** Request headers, secrets redacted. */
  headers: Record<string, string>;
  /** A JSON or form body the service read, secrets redacted. */
  body?: unknown;
  /** The status answered, or 0 when the connection was cut before an answer. */
  status: number;
  durationMs: number;
  /** The fault or chaos rule applied, if any. */
  fault?: { id: number; type: string; chaos?: boolean };
}

export interface JournalQuery {
  service?: string;
  since?: number;
  limit?: number;
}

export const REDACTED = '[redacted]';

/** Names of fields, parameters and headers that carry secrets (tokens, keys, passwords, codes, assertions). */
const SECRET_NAME = /token|secret|password|passwd|pass$|code|key|assertion|verifier|credential|cookie|session|authorization|signature|^sig$|csrf/i;
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key', 'api-key', 'ocp-apim-subscription-key']);

/** Redacts secret-named fields of a JSON value, at any depth. */
export function redactValue(v: unknown, name = ''): unknown {
  if (name && SECRET_NAME.test(name) && v !== null && typeof v !== 'object') return REDACTED;
  if (Array.isArray(v)) return v.map((x) => redactValue(x, name));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = redactValue(x, k);
    return out;
  }
  return v;
}

/** An Authorization value with its secret replaced: the scheme, and a Basic credential's user name. */
export function redactAuthorization(v: string): string {
  const [scheme = '', rest = ''] = v.split(/\s+(.*)/s);
  if (/^basic$/i.test(scheme)) {
    const user = Buffer.from(rest, 'base64').toString('utf8').split(':')[0] ?? '';
    return `Basic ${user}:${REDACTED}`;
  }
  return `${scheme} ${REDACTED}`;
}

export function redactHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, raw] of Object.entries(h)) {
    if (raw === undefined) continue;
    const v = Array.isArray(raw) ? raw.join(', ') : raw;
    if (k === 'authorization' || k === 'proxy-authorization') out[k] = redactAuthorization(v);
    else out[k] = SECRET_HEADERS.has(k) || SECRET_NAME.test(k) ? REDACTED : v;
  }
  return out;
}

export function redactQuery(q: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const k of new Set(q.keys())) {
    const all = q.getAll(k).map((v) => (SECRET_NAME.test(k) ? REDACTED : v));
    out[k] = all.length === 1 ? all[0]! : all;
  }
  return out;
}

/** A body as the journal keeps it: JSON or form fields redacted; other types by size only. */
export function redactBody(contentType: string | undefined, bytes: Buffer | undefined): unknown {
  if (!bytes?.length) return undefined;
  const ct = (contentType ?? '').toLowerCase();
  const text = bytes.toString('utf8');
  if (ct.includes('json')) {
    try {
      return redactValue(JSON.parse(text));
    } catch {
      return { bytes: bytes.length };
    }
  }
  if (ct.startsWith('application/x-www-form-urlencoded')) return redactQuery(new URLSearchParams(text));
  return { bytes: bytes.length, contentType: contentType ?? null };
}

export class Journal {
  #entries: JournalEntry[] = [];
  #seq = 0;
  readonly #listeners = new Set<(e: JournalEntry) => void>();

  constructor(readonly capacity = 5000) {}

  add(e: Omit<JournalEntry, 'seq'>): JournalEntry {
    const entry = { seq: ++this.#seq, ...e };
    this.#entries.push(entry);
    if (this.#entries.length > this.capacity) this.#entries.splice(0, this.#entries.length - this.capacity);
    for (const l of this.#listeners) l(entry);
    return entry;
  }

  list(q: JournalQuery = {}): JournalEntry[] {
    const out = this.#entries.filter((e) => (q.since === undefined || e.seq > q.since) && (!q.service || e.service === q.service));
    return q.limit !== undefined ? out.slice(0, q.limit) : out;
  }

  /** The sequence number of the newest entry (0 when none yet). */
  get last(): number {
    return this.#seq;
  }

  clear(): void {
    this.#entries = [];
  }

  /** Calls `f` with every new entry; returns the unsubscribe. */
  subscribe(f: (e: JournalEntry) => void): () => void {
    this.#listeners.add(f);
    return () => this.#listeners.delete(f);
  }
}
