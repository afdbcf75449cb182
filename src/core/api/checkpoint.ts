/**
 * Resumable pagination (`--checkpoint FILE`): what identifies a paginated run,
 * where it stands, and (page-run.ts) the page loop that keeps the file and the output in step.
 *
 * The file holds the run's identity (command, profile, service origin and
 * path, the arguments that shape the listing, the output format) and its
 * position (the next page's cursor, items and pages emitted so far). It is
 * never a place for a secret: a cursor or a query with a credential-like
 * parameter is refused, secret headers count by name only.
 *
 * Order per page: the checkpoint after the page is written to a temporary file
 * (0600, fsync) first; then the page is written to the output and flushed;
 * then the temporary file is renamed over the checkpoint (one system call). A
 * stop anywhere else (rate limit, Ctrl-C, an error, a kill while a page is
 * fetched) leaves a checkpoint that matches the output exactly. Only a kill
 * between the page's write and that rename leaves the checkpoint one page
 * behind; when the output is a regular file (`>> out.ndjson`) the resumed run
 * finds the page's bytes at the recorded end of the file and does not print
 * them again (see outputOverlap in page-run.ts).
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { open, readFile, rm } from 'node:fs/promises';
import { basename } from 'node:path';
import { LanyardError } from '../errors.js';
import { type StagedFile, stageFile } from '../fs/atomic-file.js';
import { isSecretField, isSecretHeader } from '../http/redact.js';

/** Format version of the file (a newer one is refused, not guessed at). */
export const CHECKPOINT_VERSION = 1;

/** What makes two runs the same listing. Nothing here may be a secret. */
export interface CheckpointRun {
  /** `api` or `mailbox list`. */
  command: string;
  profile: string;
  /** Service origin and path of the first page (query excluded: see `args`). */
  origin: string;
  path: string;
  /** Everything else that shapes the listing or its output, as plain strings (query, page size, filters, headers by name). */
  args: Record<string, string>;
  /** Output format (`ndjson`, `ndjson+jq:EXPR`, `ndjson+template:…`). */
  format: string;
}

/** Where a run stands after its last fully written page. */
export interface CheckpointPosition {
  /** Cursor of the next page (a URL, or a mailbox start id); absent once the listing is complete. */
  next?: string;
  /** Items written so far (over every run of this listing). */
  emitted: number;
  pages: number;
  /** Pages in a row without items (the pagination guard's count carries over). */
  emptyPages: number;
  /** When the output is a regular file: its device, inode and size after the last page (to recognise a page written just before a kill). */
  output?: { dev: number; ino: number; size: number };
}

interface CheckpointFile {
  lanyardCheckpoint: number;
  run: CheckpointRun;
  position: CheckpointPosition;
  /** ISO time of the last update; `completedAt` once the listing is complete. */
  updatedAt: string;
  completedAt?: string;
}

/** A checkpoint that cannot be used: another run's, corrupt, or unsafe. Exit 2; the file is left as it was. */
export class CheckpointError extends LanyardError {
  constructor(message: string) {
    super('checkpoint_unusable', message);
  }
}

/** Credential-like query parameters or userinfo in a URL (never written to a checkpoint). */
export function secretInUrl(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.username || u.password) return 'user information';
  for (const k of u.searchParams.keys()) if (isSecretField(k)) return `the query parameter "${k}"`;
  return undefined;
}

/** The identity of an `api --paginate` or `mailbox list --all` run, from the first page's URL and the options that shape it. */
export function checkpointRun(o: {
  command: string;
  profile: string;
  url: string;
  query?: Record<string, string | undefined>;
  headers?: Record<string, string>;
  extra?: Record<string, string | number | boolean | undefined>;
  format: string;
}): CheckpointRun {
  const secret = secretInUrl(o.url) ?? Object.keys(o.query ?? {}).find(isSecretField);
  if (secret)
    throw new CheckpointError(
      `--checkpoint: the request carries a credential (${secret.startsWith('the ') || secret.startsWith('user') ? secret : `the query parameter "${secret}"`}); a checkpoint never stores one — send it in a header or from the environment`,
    );
  const u = new URL(o.url);
  const args: Record<string, string> = {};
  const query = new URLSearchParams(u.search);
  for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined) query.append(k, v);
  query.sort();
  if (query.size) args.query = query.toString();
  const headers = Object.entries(o.headers ?? {})
    .map(([k, v]) => [k.toLowerCase(), v] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // A secret header changes whose listing it is, not its shape: it counts by name, and by a digest of the value.
  if (headers.length) args.headers = headers.map(([k, v]) => `${k}: ${isSecretHeader(k) ? `sha256:${digest(`${k}\n${v}`)}` : v}`).join('\n');
  for (const [k, v] of Object.entries(o.extra ?? {})) if (v !== undefined && v !== false) args[k] = String(v);
  return { command: o.command, profile: o.profile, origin: u.origin, path: u.pathname, args, format: o.format };
}

function digest(s: string): string {
  return createHash('sha256').update(s).digest('hex').slice(0, 16);
}

const FIELD_NAMES: Array<[keyof CheckpointRun, string]> = [
  ['command', 'command'],
  ['profile', 'profile'],
  ['origin', 'service origin'],
  ['path', 'path'],
  ['format', 'output format'],
];

/** The first difference between two runs, in words; undefined when they are the same listing. */
export function runDifference(saved: CheckpointRun, now: CheckpointRun): string | undefined {
  for (const [k, name] of FIELD_NAMES) {
    if (saved[k] !== now[k]) return `${name} "${String(saved[k])}", not "${String(now[k])}"`;
  }
  const keys = [...new Set([...Object.keys(saved.args), ...Object.keys(now.args)])].sort();
  for (const k of keys) {
    if (saved.args[k] === now.args[k]) continue;
    // Header values may be credentials (kept only as digests): named, not shown.
    if (k === 'headers') return 'other request headers';
    const what = k === 'query' ? 'query' : k;
    return `${what} ${JSON.stringify(saved.args[k] ?? '(none)')}, not ${JSON.stringify(now.args[k] ?? '(none)')}`;
  }
  return undefined;
}

function isRun(v: unknown): v is CheckpointRun {
  const r = v as CheckpointRun;
  return (
    !!r &&
    typeof r === 'object' &&
    ['command', 'profile', 'origin', 'path', 'format'].every((k) => typeof (r as unknown as Record<string, unknown>)[k] === 'string') &&
    !!r.args &&
    typeof r.args === 'object' &&
    !Array.isArray(r.args) &&
    Object.values(r.args).every((x) => typeof x === 'string')
  );
}

const count = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function isPosition(v: unknown): v is CheckpointPosition {
  const p = v as CheckpointPosition;
  if (!p || typeof p !== 'object' || !count(p.emitted) || !count(p.pages) || !count(p.emptyPages)) return false;
  if (p.next !== undefined && (typeof p.next !== 'string' || !p.next)) return false;
  if (p.output !== undefined && !(p.output && count(p.output.dev) && count(p.output.ino) && count(p.output.size))) return false;
  return true;
}

export interface CheckpointOptions {
  now: () => number;
  /** The file as the user named it (messages); default its base name. */
  name?: string;
  /** Validates a saved cursor (e.g. on the service's origin); a string says why it cannot be used. */
  checkCursor?: (cursor: string) => string | undefined;
}

/**
 * One checkpoint file, opened for a run: `saved` is where an earlier run of
 * the same listing stopped (undefined: start fresh), `completed` when that run
 * finished. Hold it with `open()` (takes `FILE.lock` so two runs cannot interleave) and `close()` it.
 */
export class Checkpoint {
  readonly file: string;
  readonly run: CheckpointRun;
  readonly saved?: CheckpointPosition;
  readonly completedAt?: string;
  readonly #now: () => number;
  #staged?: StagedFile;
  #release?: () => Promise<void>;

  private constructor(file: string, run: CheckpointRun, now: () => number, saved?: CheckpointPosition, completedAt?: string) {
    this.file = file;
    this.run = run;
    this.#now = now;
    this.saved = saved;
    this.completedAt = completedAt;
  }

  /**
   * Reads FILE: missing → a fresh run; corrupt, of another format version, of
   * another run or with an unusable cursor → {@link CheckpointError}, and the
   * file is not written. A file another run holds → `checkpoint_busy`.
   */
  static async open(file: string, run: CheckpointRun, o: CheckpointOptions): Promise<Checkpoint> {
    const name = o.name ?? basename(file);
    const parsed = await readCheckpoint(file, name);
    if (parsed) {
      const diff = runDifference(parsed.run, run);
      if (diff) throw new CheckpointError(`checkpoint ${name} belongs to another run (${diff}); left unchanged — use another file for this listing`);
      const bad = parsed.position.next !== undefined ? o.checkCursor?.(parsed.position.next) : undefined;
      if (bad) throw new CheckpointError(`checkpoint ${name} cannot be resumed: ${bad}; left unchanged`);
    }
    const cp = new Checkpoint(file, run, o.now, parsed?.position, parsed?.completedAt);
    cp.#release = await holdLock(`${file}.lock`, name);
    // Another run may have moved it on between the read and the lock: read it again under the lock.
    const again = await readCheckpoint(file, name).catch(async (e) => {
      await cp.close();
      throw e;
    });
    if (JSON.stringify(again?.position) !== JSON.stringify(parsed?.position)) {
      await cp.close();
      throw new LanyardError('checkpoint_busy', `checkpoint ${name} changed while being opened (another run?); try again`);
    }
    return cp;
  }

  /**
   * Writes the position after the coming page to a temporary file beside the
   * checkpoint (0600, flushed to disk). `commit()` puts it in place; nothing
   * changes in FILE until then.
   */
  async stage(position: CheckpointPosition): Promise<void> {
    if (position.next !== undefined) {
      const secret = secretInUrl(position.next);
      if (secret)
        throw new LanyardError(
          'protocol_error',
          `--checkpoint: the next-page link carries a credential (${secret}); stopped before that page so none is written to ${basename(this.file)}`,
        );
    }
    await this.discard();
    const now = new Date(this.#now()).toISOString();
    const body: CheckpointFile = { lanyardCheckpoint: CHECKPOINT_VERSION, run: this.run, position, updatedAt: now };
    if (position.next === undefined) body.completedAt = now;
    this.#staged = await stageFile(this.file, JSON.stringify(body, null, 2) + '\n');
  }

  /** Puts the staged position in place (one rename). */
  async commit(): Promise<void> {
    const staged = this.#staged;
    this.#staged = undefined;
    await staged?.commit();
  }

  /** Removes a staged position that was not committed. */
  async discard(): Promise<void> {
    const staged = this.#staged;
    this.#staged = undefined;
    await staged?.discard();
  }

  /** Discards what is staged and releases the lock. */
  async close(): Promise<void> {
    await this.discard();
    const release = this.#release;
    this.#release = undefined;
    await release?.().catch(() => undefined);
  }
}

/**
 * `FILE.lock`, created exclusively, names its holder (`pid@host`). A lock of
 * a process of this host that no longer runs (killed) is taken over at once;
 * a live holder's is an error. Returns the release.
 */
async function holdLock(lock: string, name: string): Promise<() => Promise<void>> {
  const me = `${process.pid}@${hostname()}`;
  for (let attempt = 0; ; attempt++) {
    try {
      const fh = await open(lock, 'wx', 0o600);
      await fh.writeFile(me);
      await fh.close();
      return async () => {
        if ((await readFile(lock, 'utf8').catch(() => '')) === me) await rm(lock, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new LanyardError('validation', `checkpoint ${name}: cannot create its lock file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    const holder = await readFile(lock, 'utf8').catch(() => '');
    const m = /^(\d+)@(.*)$/.exec(holder);
    const alive = m ? m[2] !== hostname() || isRunning(Number(m[1])) : false;
    if (alive || attempt > 0)
      throw new LanyardError('checkpoint_busy', `checkpoint ${name} is in use by another run (process ${m?.[1] ?? '?'}); wait for it to end`);
    // The holder is gone (killed): its lock goes, unless another run has just replaced it.
    if ((await readFile(lock, 'utf8').catch(() => '')) === holder) await rm(lock, { force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function readCheckpoint(file: string, name: string): Promise<CheckpointFile | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CheckpointError(`checkpoint ${name} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let v: CheckpointFile;
  try {
    v = JSON.parse(text) as CheckpointFile;
  } catch {
    throw new CheckpointError(`checkpoint ${name} is not a Lanyard checkpoint (not JSON); left unchanged`);
  }
  if (!v || typeof v !== 'object' || typeof v.lanyardCheckpoint !== 'number')
    throw new CheckpointError(`checkpoint ${name} is not a Lanyard checkpoint; left unchanged`);
  if (v.lanyardCheckpoint !== CHECKPOINT_VERSION)
    throw new CheckpointError(`checkpoint ${name} has format version ${v.lanyardCheckpoint}, this Lanyard reads ${CHECKPOINT_VERSION}; left unchanged`);
  if (!isRun(v.run) || !isPosition(v.position)) throw new CheckpointError(`checkpoint ${name} is damaged (a field is missing or invalid); left unchanged`);
  return v;
}
