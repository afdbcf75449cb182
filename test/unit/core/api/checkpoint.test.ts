/** Resumable pagination: the checkpoint file (identity, validation, atomic writes) and the page loop that keeps it in step with the output. */
import { appendFileSync, closeSync, fstatSync, openSync, readFileSync, readSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Checkpoint, CheckpointError, checkpointRun } from '../../../../src/core/api/checkpoint.js';
import { type PageOutput, runPages } from '../../../../src/core/api/page-run.js';
import { apiPager, type FetchedPage } from '../../../../src/core/api/pagination.js';
import { FakeClock } from '../../../fakes/clock.js';
import type { LanyardError } from '../../../../src/core/errors.js';

const ORIGIN = 'https://api.example.test';
const FIRST = `${ORIGIN}/user/repos?per_page=2`;

/** A listing of `n` items, 2 per page, linked by `page=N` (like the code host's Link headers). */
function server(n: number, o: { failAt?: number; nextOf?: (page: number) => string | undefined } = {}) {
  const calls: string[] = [];
  const get = async (url: string): Promise<FetchedPage> => {
    calls.push(url);
    const page = Number(new URL(url).searchParams.get('page') ?? '1');
    if (page === o.failAt) throw new Error(`stopped at page ${page}`);
    const items = Array.from({ length: n }, (_, i) => ({ id: i + 1 })).slice((page - 1) * 2, page * 2);
    const next = o.nextOf ? o.nextOf(page) : page * 2 < n ? `${ORIGIN}/user/repos?per_page=2&page=${page + 1}` : undefined;
    return { headers: next ? { link: `<${next}>; rel="next"` } : {}, body: items };
  };
  return { get, calls };
}

/** Output to a regular file (like `>> out.ndjson`), one write per page. */
function fileOutput(path: string, o: { afterWrite?: (data: Buffer) => void } = {}): PageOutput {
  return {
    render: (items) => items.map((i) => JSON.stringify(i) + '\n').join(''),
    async write(data) {
      appendFileSync(path, data);
      o.afterWrite?.(data);
    },
    fileState() {
      const fd = openSync(path, 'a');
      try {
        const st = fstatSync(fd);
        return { dev: st.dev, ino: st.ino, size: st.size };
      } finally {
        closeSync(fd);
      }
    },
    async readTail(from, length) {
      const fd = openSync(path, 'r');
      try {
        const buf = Buffer.alloc(length);
        return buf.subarray(0, readSync(fd, buf, 0, length, from));
      } finally {
        closeSync(fd);
      }
    },
  };
}

describe('checkpoint', () => {
  let dir: string;
  let file: string;
  let out: string;
  const clock = new FakeClock();
  const run = checkpointRun({ command: 'api', profile: 'default', url: FIRST, extra: { service: 'hosting' }, format: 'ndjson' });
  const open = (r = run) =>
    Checkpoint.open(file, r, { now: () => clock.now(), checkCursor: (c) => (new URL(c).origin === ORIGIN ? undefined : 'another origin') });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lanyard-checkpoint-'));
    file = join(dir, 'run.checkpoint');
    out = join(dir, 'out.ndjson');
    writeFileSync(out, '');
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  async function pages(get: (url: string) => Promise<FetchedPage>, output: PageOutput = fileOutput(out)) {
    const cp = await open();
    try {
      const pager = apiPager({ service: 'hosting', firstUrl: FIRST, get, emptyPages: cp.saved?.emptyPages });
      return await runPages({ first: FIRST, fetch: (u) => pager.fetch(u), output, checkpoint: cp });
    } finally {
      await cp.close();
    }
  }
  const uninterrupted = (n: number) => Array.from({ length: n }, (_, i) => JSON.stringify({ id: i + 1 }) + '\n').join('');

  it('a run stopped at any page and resumed prints every item exactly once', async () => {
    for (const failAt of [1, 2, 3, 4]) {
      writeFileSync(out, '');
      await rm(file, { force: true });
      await expect(pages(server(7, { failAt }).get)).rejects.toThrow(`stopped at page ${failAt}`);
      expect(readFileSync(out, 'utf8')).toBe(uninterrupted((failAt - 1) * 2));
      const s = server(7);
      const r = await pages(s.get);
      // Resumed at the page that failed: nothing before it is fetched again.
      expect(s.calls[0]).toContain(failAt === 1 ? 'per_page=2' : `page=${failAt}`);
      expect(r).toMatchObject({ emitted: 7, emittedNow: 7 - (failAt - 1) * 2, resumed: failAt > 1 });
      expect(readFileSync(out, 'utf8')).toBe(uninterrupted(7));
    }
  });

  it('is written 0600 and records identity and position, never the credential', async () => {
    const withAuth = checkpointRun({
      command: 'api',
      profile: 'p',
      url: FIRST,
      headers: { Authorization: 'token ghp_secret123', Accept: 'application/json' },
      format: 'ndjson',
    });
    expect(JSON.stringify(withAuth)).not.toContain('ghp_secret123');
    expect(withAuth.args.headers).toMatch(/^accept: application\/json\nauthorization: sha256:[0-9a-f]{16}$/);
    // A credential in a header of any name (`-H 'Private-Token: …'`) is recorded as a digest too.
    const custom = checkpointRun({
      command: 'api',
      profile: 'p',
      url: FIRST,
      headers: { 'Private-Token': 'glpat-secret456', 'X-Api-Key': 'k-secret789' },
      format: 'ndjson',
    });
    expect(JSON.stringify(custom)).not.toMatch(/secret456|secret789/);
    expect(custom.args.headers).toMatch(/^private-token: sha256:[0-9a-f]{16}\nx-api-key: sha256:[0-9a-f]{16}$/);
    await expect(pages(server(5, { failAt: 2 }).get)).rejects.toThrow();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved).toMatchObject({
      lanyardCheckpoint: 1,
      run: { command: 'api', profile: 'default', origin: ORIGIN, path: '/user/repos', args: { query: 'per_page=2', service: 'hosting' }, format: 'ndjson' },
      position: { next: `${ORIGIN}/user/repos?per_page=2&page=2`, emitted: 2, pages: 1, emptyPages: 0 },
    });
    expect(saved.completedAt).toBeUndefined();
    // No temporary file is left beside it.
    expect((await readdir(dir)).sort()).toEqual(['out.ndjson', 'run.checkpoint']);
  });

  it('a credential in the query is refused up front; one in a next-page link stops before that page', async () => {
    expect(() => checkpointRun({ command: 'api', profile: 'p', url: `${FIRST}&access_token=abc`, format: 'ndjson' })).toThrow(CheckpointError);
    expect(() => checkpointRun({ command: 'api', profile: 'p', url: FIRST, query: { client_secret: 'x' }, format: 'ndjson' })).toThrow(/credential/);
    const s = server(7, { nextOf: (p) => (p === 1 ? `${ORIGIN}/user/repos?per_page=2&page=2` : `${ORIGIN}/user/repos?per_page=2&page=${p + 1}&token=leak`) });
    await expect(pages(s.get)).rejects.toThrow(/carries a credential/);
    expect(readFileSync(file, 'utf8')).not.toContain('leak');
    // The page whose checkpoint could not be written was not printed either.
    expect(readFileSync(out, 'utf8')).toBe(uninterrupted(2));
  });

  it('once complete it is marked so; a re-run prints nothing and reports completion', async () => {
    await pages(server(5).get);
    const done = JSON.parse(readFileSync(file, 'utf8'));
    expect(done.position).toEqual(expect.objectContaining({ emitted: 5, pages: 3 }));
    expect(done.position.next).toBeUndefined();
    expect(done.completedAt).toBe(new Date(clock.now()).toISOString());
    const cp = await open();
    expect(cp.completedAt).toBe(done.completedAt);
    await cp.close();
    const s = server(5);
    expect(await pages(s.get)).toMatchObject({ emitted: 5, emittedNow: 0, resumed: true });
    expect(s.calls).toEqual([]);
    expect(readFileSync(out, 'utf8')).toBe(uninterrupted(5));
  });

  it("another command's, profile's or arguments' checkpoint and a corrupt one: CheckpointError (exit 2), file byte-identical with the same mtime", async () => {
    await expect(pages(server(7, { failAt: 3 }).get)).rejects.toThrow();
    const others = [
      checkpointRun({ command: 'mailbox list', profile: 'default', url: FIRST, extra: { service: 'hosting' }, format: 'ndjson' }),
      checkpointRun({ command: 'api', profile: 'work', url: FIRST, extra: { service: 'hosting' }, format: 'ndjson' }),
      checkpointRun({ command: 'api', profile: 'default', url: `${ORIGIN}/user/repos?per_page=3`, extra: { service: 'hosting' }, format: 'ndjson' }),
      checkpointRun({ command: 'api', profile: 'default', url: FIRST, extra: { service: 'hosting' }, format: 'ndjson+jq:.id' }),
      checkpointRun({
        command: 'api',
        profile: 'default',
        url: FIRST,
        headers: { accept: 'application/vnd.raw' },
        extra: { service: 'hosting' },
        format: 'ndjson',
      }),
    ];
    const before = readFileSync(file);
    const mtime = statSync(file).mtimeMs;
    const messages: string[] = [];
    for (const other of others) {
      const err = await open(other).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CheckpointError);
      expect((err as CheckpointError).code).toBe('checkpoint_unusable');
      messages.push((err as Error).message);
    }
    expect(messages[0]).toMatch(/belongs to another run \(command "api", not "mailbox list"\)/);
    expect(messages[1]).toMatch(/profile "default", not "work"/);
    expect(messages[2]).toMatch(/query "per_page=2", not "per_page=3"/);
    for (const m of messages) expect(m).not.toMatch(/\n/);
    for (const corrupt of [
      '{"lanyardCheckpoint":1',
      '[]',
      '{"lanyardCheckpoint":9,"run":{},"position":{}}',
      before.toString().replace('"emitted": 4', '"emitted": -1'),
    ]) {
      writeFileSync(file, corrupt);
      const m = statSync(file).mtimeMs;
      await expect(open()).rejects.toBeInstanceOf(CheckpointError);
      expect(readFileSync(file, 'utf8')).toBe(corrupt);
      expect(statSync(file).mtimeMs).toBe(m);
    }
    writeFileSync(file, before);
    const m2 = statSync(file).mtimeMs;
    // A saved next page on another origin (an edited file) is not followed.
    writeFileSync(file, before.toString().replace(`${ORIGIN}/user`, 'https://evil.test/user'));
    await expect(open()).rejects.toThrow(/cannot be resumed: another origin/);
    expect(m2).toBeGreaterThan(0);
    expect(mtime).toBeGreaterThan(0);
  });

  it('two runs cannot hold the same checkpoint at once', async () => {
    const a = await open();
    await expect(open()).rejects.toThrow(/in use by another run/);
    // Busy, not unusable: a caller tries again once the other run has ended.
    expect(((await open().catch((e: unknown) => e)) as LanyardError).code).toBe('checkpoint_busy');
    await a.close();
    await (await open()).close();
  });

  it('killed after a page was written but before its checkpoint moved: the resumed run does not print it again (whole or partly written)', async () => {
    for (const cut of ['whole', 'half'] as const) {
      writeFileSync(out, '');
      await rm(file, { force: true });
      let page = 0;
      // Page 2 reaches the file, then the process "dies" before the rename.
      const dying = fileOutput(out, {
        afterWrite: () => {
          if (++page === 2) throw new Error('killed');
        },
      });
      if (cut === 'half') {
        const inner = dying.write;
        dying.write = async (data) => {
          if (page === 1) {
            appendFileSync(out, data.subarray(0, 7));
            throw new Error('killed');
          }
          return inner(data);
        };
      }
      await expect(pages(server(7).get, dying)).rejects.toThrow('killed');
      expect(JSON.parse(readFileSync(file, 'utf8')).position.emitted).toBe(2);
      const r = await pages(server(7).get);
      expect(readFileSync(out, 'utf8')).toBe(uninterrupted(7));
      expect(r.skippedBytes).toBe(cut === 'whole' ? uninterrupted(4).length - uninterrupted(2).length : 7);
    }
  });

  it('the empty-page guard carries over a resume', async () => {
    let n = 0;
    const empty = async (url: string): Promise<FetchedPage> => {
      const p = Number(new URL(url).searchParams.get('page') ?? '1');
      if (++n === 6) throw new Error('stop');
      return { headers: { link: `<${ORIGIN}/user/repos?per_page=2&page=${p + 1}>; rel="next"` }, body: [] };
    };
    await expect(pages(empty)).rejects.toThrow('stop');
    expect(JSON.parse(readFileSync(file, 'utf8')).position.emptyPages).toBe(5);
    n = -100;
    await expect(pages(empty)).rejects.toThrow(/10 pages in a row without items/);
  });
});

describe('apiPager: a resumed cursor of each service', () => {
  it('health: follows nextLink; a resumed $skiptoken URL continues where it stopped', async () => {
    const base = 'https://management.example.test/subscriptions/s/providers/Microsoft.ResourceHealth/events?api-version=2025-05-01';
    const get = async (url: string): Promise<FetchedPage> => {
      const skip = Number(new URL(url).searchParams.get('$skiptoken') ?? '0');
      return { headers: {}, body: { value: [{ n: skip }, { n: skip + 1 }], nextLink: skip < 4 ? `${base}&$skiptoken=${skip + 2}` : undefined } };
    };
    const fresh = apiPager({ service: 'health', firstUrl: base, get });
    const p1 = await fresh.fetch(base);
    expect(p1).toEqual({ items: [{ n: 0 }, { n: 1 }], next: `${base}&$skiptoken=2`, emptyPages: 0 });
    // A new process resumes at the saved cursor.
    const resumed = apiPager({ service: 'health', firstUrl: base, get });
    const p2 = await resumed.fetch(p1.next!);
    expect(p2.items).toEqual([{ n: 2 }, { n: 3 }]);
    const p3 = await resumed.fetch(p2.next!);
    expect(p3).toEqual({ items: [{ n: 4 }, { n: 5 }], emptyPages: 0 });
  });

  it('mailbox: a resumed page (start=last id) drops the repeated first id and stops when nothing new comes', async () => {
    const ids = ['a', 'b', 'c', 'd', 'e'];
    const first = 'http://mail.test/rest/v2/d/u/mailbox/label/0?count=2';
    const get = async (url: string): Promise<FetchedPage> => {
      const start = new URL(url).searchParams.get('start');
      const from = start ? ids.indexOf(start) : 0;
      return { headers: {}, body: ids.slice(from, from + 2) };
    };
    const one = await apiPager({ service: 'mailbox', firstUrl: first, get }).fetch(first);
    expect(one.items).toEqual(['a', 'b']);
    const seen = [...one.items];
    let next = one.next;
    while (next) {
      // Every page in a new process, as after a kill.
      const page = await apiPager({ service: 'mailbox', firstUrl: first, get }).fetch(next);
      seen.push(...page.items);
      next = page.next;
    }
    expect(seen).toEqual(ids);
  });
});
