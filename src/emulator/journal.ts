/**
 * The request journal: every request the emulator answered, with its time,
 * service, caller, method, path, status, duration and the fault applied, and
 * what it sent (query, headers, a JSON or form body) with secrets redacted, so
 * a test can assert what a script sent. Kept in memory, read over
 * `GET /_emulator/requests` and in process.
 *
 * Bounded in entries and in bytes (`JournalLimits`): the newest `maxEntries`
 * entries, whose estimated size stays under `maxBytes`; a body larger than
 * `maxBodyBytes` is kept truncated, with a marker (`TruncatedBody`). On the
 * request loop the journal only keeps what the request was made of; the
 * redacted entry is built when somebody reads it, or at once when somebody
 * listens (`subscribe`).
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
  /** A JSON or form body the service read, secrets redacted; beyond `maxBodyBytes`, a `TruncatedBody`. */
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

/** A body larger than the journal's `maxBodyBytes`: its start (redacted as a whole first), its size, the marker. */
export interface TruncatedBody {
  truncated: true;
  /** The size of the body as sent, bytes. */
  bytes: number;
  contentType: string | null;
  /** The first `maxBodyBytes` bytes of the redacted body as JSON or form text. */
  preview: string;
}

/** How much the journal keeps. */
export interface JournalLimits {
  /** The newest entries kept (default 5000). */
  maxEntries: number;
  /** The estimated size of every kept entry together, bytes (default 32 MiB): the oldest go first. */
  maxBytes: number;
  /** A body larger than this (bytes, default 64 KiB) is kept as a `TruncatedBody`. */
  maxBodyBytes: number;
}

/** The journal's default bounds: 5000 entries, 32 MiB, 64 KiB per body. */
export const JOURNAL_LIMITS: Readonly<JournalLimits> = Object.freeze({ maxEntries: 5000, maxBytes: 32 * 2 ** 20, maxBodyBytes: 64 * 2 ** 10 });

/** What the request loop hands the journal: the request as it came (redacted only when read). */
export interface JournalRecord {
  /** Epoch ms on the emulator clock when the request arrived. */
  time: number;
  service: string;
  /** The client's address, and the account when the service knows it. */
  ip: string;
  login?: string;
  method: string;
  path: string;
  /** The query string as sent (`?a=b`, or empty). */
  query: string;
  headers: Record<string, string | string[] | undefined>;
  /** The body a handler read whole, if any. */
  body?: Buffer;
  status: number;
  durationMs: number;
  fault?: JournalEntry['fault'];
}

/** Fixed cost of an entry in the byte estimate (the objects and strings around its fields). */
const ENTRY_OVERHEAD = 512;

/** One kept request: its record until someone reads it, then the redacted entry. */
interface Slot {
  seq: number;
  service: string;
  bytes: number;
  record?: JournalRecord;
  entry?: JournalEntry;
}

export class Journal {
  readonly limits: Readonly<JournalLimits>;
  /** Slots; the kept ones start at #start (dropped ones are cut off in batches). */
  #slots: Slot[] = [];
  #start = 0;
  #bytes = 0;
  #seq = 0;
  readonly #listeners = new Set<(e: JournalEntry) => void>();

  constructor(limits: Partial<JournalLimits> = {}) {
    this.limits = Object.freeze(checkLimits({ ...JOURNAL_LIMITS, ...limits }));
  }

  /** The entry limit (`limits.maxEntries`). */
  get capacity(): number {
    return this.limits.maxEntries;
  }

  /** Keeps a request; builds its entry at once only when somebody listens. */
  add(r: JournalRecord): void {
    // A body over the limit is redacted and cut now, and not kept as it came.
    const body = r.body && r.body.length > this.limits.maxBodyBytes ? largeBody(r, this.limits.maxBodyBytes) : undefined;
    const record = body ? { ...r, body: undefined } : r.body && r.body.buffer.byteLength > r.body.length ? { ...r, body: ownCopy(r.body) } : r;
    const slot: Slot = { seq: ++this.#seq, service: r.service, bytes: estimate(record, body), record };
    if (body) {
      slot.entry = entryOf(slot.seq, record, body);
      slot.record = undefined;
    }
    this.#slots.push(slot);
    this.#bytes += slot.bytes;
    this.#trim();
    if (this.#listeners.size === 0) return;
    const e = this.#entryOf(slot);
    for (const l of this.#listeners) l(e);
  }

  list(q: JournalQuery = {}): JournalEntry[] {
    const out: JournalEntry[] = [];
    const max = q.limit ?? Number.POSITIVE_INFINITY;
    for (let i = this.#firstAfter(q.since ?? 0); i < this.#slots.length && out.length < max; i++) {
      const s = this.#slots[i]!;
      if (!q.service || s.service === q.service) out.push(this.#entryOf(s));
    }
    return out;
  }

  /** The sequence number of the newest entry (0 when none yet). */
  get last(): number {
    return this.#seq;
  }

  /** How many entries are kept, and their estimated size in bytes. */
  get size(): { entries: number; bytes: number } {
    return { entries: this.#slots.length - this.#start, bytes: this.#bytes };
  }

  clear(): void {
    this.#slots = [];
    this.#start = 0;
    this.#bytes = 0;
  }

  /** Calls `f` with every new entry; returns the unsubscribe. */
  subscribe(f: (e: JournalEntry) => void): () => void {
    this.#listeners.add(f);
    return () => this.#listeners.delete(f);
  }

  #entryOf(s: Slot): JournalEntry {
    if (!s.entry) {
      s.entry = entryOf(s.seq, s.record!);
      s.record = undefined;
    }
    return s.entry;
  }

  /** The index of the first kept slot with a sequence number above `seq` (numbers increase). */
  #firstAfter(seq: number): number {
    let lo = this.#start;
    let hi = this.#slots.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#slots[mid]!.seq <= seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Drops the oldest entries beyond the limits; cuts dropped slots off once they are as many as the kept ones. */
  #trim(): void {
    const { maxEntries, maxBytes } = this.limits;
    while (this.#slots.length - this.#start > maxEntries || (this.#bytes > maxBytes && this.#slots.length - this.#start > 1)) {
      const s = this.#slots[this.#start]!;
      this.#slots[this.#start++] = undefined as unknown as Slot;
      this.#bytes -= s.bytes;
    }
    if (this.#start > 64 && this.#start >= this.#slots.length - this.#start) {
      this.#slots = this.#slots.slice(this.#start);
      this.#start = 0;
    }
  }
}

/** A small body read into Node's shared pool: kept as a copy, not holding the pool's whole slab. */
function ownCopy(b: Buffer): Buffer {
  const c = Buffer.allocUnsafeSlow(b.length);
  b.copy(c);
  return c;
}

function checkLimits(l: JournalLimits): JournalLimits {
  for (const [k, v] of Object.entries(l)) if (!Number.isSafeInteger(v) || v < 1) throw new RangeError(`journal ${k} must be a whole number >= 1, got ${v}`);
  return l;
}

/** The redacted entry of a record (`body`: a large body already redacted and cut). */
function entryOf(seq: number, r: JournalRecord, body?: unknown): JournalEntry {
  const kept = body ?? redactBody(header(r.headers, 'content-type'), r.body);
  const query = new URLSearchParams(r.query);
  return {
    seq,
    time: new Date(r.time).toISOString(),
    service: r.service,
    caller: callerOf(r, query),
    method: r.method,
    path: r.path,
    query: redactQuery(query),
    headers: redactHeaders(r.headers),
    ...(kept !== undefined ? { body: kept } : {}),
    status: r.status,
    durationMs: r.durationMs,
    ...(r.fault ? { fault: r.fault } : {}),
  };
}

/** Who called: address, agent, the credential's kind (a scheme, or `api-key`), the account. */
function callerOf(r: JournalRecord, query: URLSearchParams): JournalEntry['caller'] {
  const agent = header(r.headers, 'user-agent');
  const auth = header(r.headers, 'authorization')?.split(/\s+/)[0] ?? (header(r.headers, 'x-api-key') || query.has('api_key') ? 'api-key' : undefined);
  return { ip: r.ip, ...(agent ? { userAgent: agent } : {}), ...(auth ? { auth } : {}), ...(r.login ? { login: r.login } : {}) };
}

function header(h: JournalRecord['headers'], name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * A body over the limit: a JSON or form body redacted whole, then cut to
 * `max` bytes of its text, with the marker; any other body by its size only
 * (as every body of its type is kept).
 */
function largeBody(r: JournalRecord, max: number): unknown {
  const contentType = header(r.headers, 'content-type');
  const ct = (contentType ?? '').toLowerCase();
  const raw = r.body!;
  let text: string | undefined;
  if (ct.includes('json')) {
    try {
      text = JSON.stringify(redactValue(JSON.parse(raw.toString('utf8'))));
    } catch {
      /* not JSON: its size only */
    }
  } else if (ct.startsWith('application/x-www-form-urlencoded')) {
    const form = new URLSearchParams();
    for (const [k, v] of new URLSearchParams(raw.toString('utf8'))) form.append(k, SECRET_NAME.test(k) ? REDACTED : v);
    text = form.toString();
  }
  if (text === undefined) return redactBody(contentType, raw);
  const preview = Buffer.from(text)
    .subarray(0, max)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  return { truncated: true, bytes: raw.length, contentType: contentType ?? null, preview } satisfies TruncatedBody;
}

/** Estimated bytes a record holds: its strings (UTF-16: two bytes a character), a kept body, a fixed overhead. */
function estimate(r: JournalRecord, body: unknown): number {
  let n = ENTRY_OVERHEAD + r.path.length * 2;
  for (const k in r.headers) {
    const v = r.headers[k];
    n += (k.length + (typeof v === 'string' ? v.length : Array.isArray(v) ? v.join(', ').length : 0)) * 2 + 32;
  }
  n += r.query.length * 2;
  // A kept body is read into its redacted value later: count it twice (the bytes, then the value).
  if (r.body) n += r.body.length * 2;
  if (body) n += ((body as Partial<TruncatedBody>).preview?.length ?? 0) * 2 + 64;
  return n;
}
