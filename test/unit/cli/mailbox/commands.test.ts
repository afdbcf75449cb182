/**
 * The `mailbox` commands as run functions against the in-process emulator's
 * mail store (formerly spawned end to end): list shapes and paging, get,
 * parts by IMAP number and content id, safe file names, raw and url, the
 * output file's rules, every state transition, and the validation that
 * happens before any request (exit 2, one line). The emulator keeps its
 * state from test to test, as the e2e file's world did.
 * test/e2e/mailbox.test.ts keeps the wiring (the profile, stdin, --debug
 * headers of a deflated transfer, Ctrl-C) and the store's wire format.
 */
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MailboxLabelOptions, MailboxListOptions, MailboxStoreOptions } from '../../../../src/cli/commands/mailbox/options.js';
import { runMailboxList } from '../../../../src/cli/commands/mailbox/run-list.js';
import { runMailboxGet, runMailboxPart, runMailboxRaw, runMailboxUrl } from '../../../../src/cli/commands/mailbox/run-read.js';
import { runMailboxDelete, runMailboxLabel, runMailboxStore, runMailboxUpdate } from '../../../../src/cli/commands/mailbox/run-write.js';
import type { Context } from '../../../../src/cli/context.js';
import { type RunOptions, useEmulatorCommands } from '../on-emulator.js';

const on = useEmulatorCommands({}, { resetEach: false });
let dir: string;
const api = () => `${on.emu.url}/rest/v2/example.com/alice/mailbox`;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-mbx-'));
});

type Run = (ctx: Context) => Promise<unknown>;
const list =
  (o: Partial<MailboxListOptions> = {}): Run =>
  (c) =>
    runMailboxList(c, { label: '0', count: '50', ...o });
const store =
  (file: string | undefined, o: Partial<MailboxStoreOptions> = {}): Run =>
  (c) =>
    runMailboxStore(c, file, { label: [], marker: [], ...o });
const label =
  (id: string, o: Partial<MailboxLabelOptions>): Run =>
  (c) =>
    runMailboxLabel(c, id, { add: [], remove: [], addMarker: [], removeMarker: [], ...o });
const get =
  (id: string, o = {}): Run =>
  (c) =>
    runMailboxGet(c, id, o);
const raw =
  (id: string, o = {}): Run =>
  (c) =>
    runMailboxRaw(c, id, o);
const part =
  (id: string, which: string, o = {}): Run =>
  (c) =>
    runMailboxPart(c, id, which, o);

/** A run that must succeed, with no stack trace on stderr. */
async function ok(f: Run, o: RunOptions = {}) {
  const r = await on.run(f, o);
  expect(r.stderr).not.toMatch(/at .*\.js:\d+/);
  expect(r.code, r.stderr).toBe(0);
  return r;
}
const json = (f: Run, o: RunOptions = {}) => ok(f, { format: 'json', ...o }).then((r) => JSON.parse(r.stdout));
const serverIds = async (lbl: number, reverse = true): Promise<string[]> =>
  (await (await fetch(`${api()}/label/${lbl}?count=500&reverse=${reverse}`)).json()) as string[];
const serverMeta = async (id: string) => ((await (await fetch(`${api()}/message/${id}`)).json()) as { message: Record<string, unknown> }).message;
const simple = (subject: string, body = 'hello') =>
  `From: Test <test@example.net>\r\nTo: alice@example.com\r\nSubject: ${subject}\r\nDate: Thu, 05 Nov 2026 12:00:00 +0000\r\n\r\n${body}\r\n`;
const stored = async (input: string, o: Partial<MailboxStoreOptions> = {}) => (await ok(store('-', o), { stdin: input })).stdout.trim();

describe('list', () => {
  it('lists the seed newest first (--json --metadata); plain output prints ids; --metadata rows are tab-separated', async () => {
    const seed = (await json(list({ metadata: true }))) as Array<{ id: string; subject: string; date: string; labels: number[] }>;
    expect(seed.map((m) => m.subject)).toEqual(['Réunion demain', 'Quarterly report', 'Welcome to Lanyard']);
    expect(seed[1]!.date).toBe('2026-11-03T09:30:00.000+0000');
    for (const m of seed) expect(m.labels).toContain(0);
    const ids = (await ok(list())).stdout.trim().split('\n');
    expect(ids).toEqual((await serverIds(0)).slice(0, ids.length));
    const rows = (await ok(list({ metadata: true, label: '2' }))).stdout.trim().split('\n');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.split('\t').slice(2, 5)).toEqual(['Carol Reports', 'Quarterly report', '0,1,2']);
  });

  it('--domain/--user select another mailbox', async () => {
    expect(await json(list({ domain: 'example.org', user: 'nobody' }))).toEqual([]);
  });

  it('a profile without mailbox settings names the config set to run (exit 2)', async () => {
    const r = await on.run(list(), { settings: { 'mailbox.baseUrl': undefined, 'mailbox.domain': undefined, 'mailbox.user': undefined } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no mailbox\.baseUrl/);
    expect(r.stderr).toMatch(/lanyard config set mailbox\.baseUrl/);
  });
});

describe('get, parts and content ids', () => {
  let report: string;
  beforeAll(async () => {
    report = (await serverIds(2))[0]!;
  });

  it('shows the parsed message with parts keyed by IMAP number and adjacent ids', async () => {
    const v = (await json(get(report, { adjacent: true, label: '0' }))) as { message: Record<string, unknown>; prev: string; next: string };
    const all = await serverIds(0);
    const at = all.indexOf(report);
    expect(v.prev).toBe(all[at - 1]);
    expect(v.next).toBe(all[at + 1]);
    expect(v.message.cc).toEqual([{ address: 'erin@example.org', name: 'Erin' }]);
    expect(v.message.to).toEqual([
      { address: 'alice@example.com', name: 'Alice' },
      { address: 'dave@example.com', name: '' },
    ]);
    expect(v.message.parts).toEqual({
      '1.2.2': { size: 70, fileName: 'logo.png', mimeType: 'image/png', contentId: 'logo@lanyard.example', disposition: 'inline' },
      '2': { size: 24, fileName: 'report.csv', mimeType: 'text/csv', disposition: 'attachment' },
      '3': { size: 27, fileName: '../../etc/passwd', mimeType: 'application/octet-stream', disposition: 'attachment' },
    });
    expect(v.message.textBody).toMatch(/The report is attached/);
    expect(v.message.htmlBody).toMatch(/<p>The report is attached.<\/p>/);
    const human = await ok(get(report));
    expect(human.stdout).toMatch(/^Subject: Quarterly report$/m);
    expect(human.stdout).toMatch(/^1\.2\.2\timage\/png/m);
  });

  it('bodies: --include-body on lists; none when pre-parsed bodies are disabled', async () => {
    const withBody = (await json(list({ label: '2', includeBody: true }))) as Array<Record<string, unknown>>;
    expect(withBody[0]!.textBody).toMatch(/The report is attached/);
    const without = (await json(list({ label: '2', metadata: true }))) as Array<Record<string, unknown>>;
    expect(without[0]!.textBody).toBeUndefined();
    await on.emu.admin('mailbox', 'config', { preparsedBodies: false });
    try {
      const v = (await json(get(report))) as { message: Record<string, unknown> };
      expect(v.message.textBody).toBeUndefined();
      expect(v.message.htmlBody).toBeUndefined();
      expect((await ok(get(report))).stdout).toMatch(/no pre-parsed body/);
    } finally {
      await on.emu.admin('mailbox', 'config', { preparsedBodies: true });
    }
  });

  it('fetches parts by IMAP number through mixed > alternative > related, and by content id', async () => {
    expect((await ok(part(report, '1.1'))).stdout).toBe('The report is attached. Logo inline in the HTML version.');
    expect((await ok(part(report, '1.2.1'))).stdout).toBe('<p>The report is attached.</p><img src="cid:logo@lanyard.example">');
    expect((await ok(part(report, '2'))).stdout).toBe('quarter,revenue\r\nQ3,1200');
    const png = join(dir, 'logo-by-number.png');
    await ok(part(report, '1.2.2', { output: png }));
    expect((await readFile(png)).subarray(1, 4).toString()).toBe('PNG');
    const out = join(dir, 'logo-by-cid.png');
    await ok(part(report, '<logo@lanyard.example>', { output: out }));
    expect(await readFile(out)).toEqual(await readFile(png));
    const missing = await on.run(part(report, '<nope@example>'));
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/Part not found/);
  });

  it('saves into a directory under a safe name, never outside it, never overwriting without --force', async () => {
    const out = await mkdtemp(join(tmpdir(), 'lanyard-parts-'));
    await ok(part(report, '3', { output: `${out}/` }));
    expect(await readdir(out)).toEqual(['passwd']);
    expect(await readFile(join(out, 'passwd'), 'utf8')).toBe('not really a password file\n');
    const again = await on.run(part(report, '3', { output: out }));
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/exists; use --force/);
    await writeFile(join(out, 'passwd'), 'old');
    await ok(part(report, '3', { output: out, force: true }));
    expect(await readFile(join(out, 'passwd'), 'utf8')).toBe('not really a password file\n');
  });
});

describe('raw, output files and url', () => {
  const big = Array.from({ length: 4000 }, (_, i) => `line ${i} ${'lorem ipsum dolor '.repeat(4)}`).join('\r\n');
  let id: string;
  let file: string;
  beforeAll(async () => {
    await on.emu.admin('mailbox', 'config', { compressThreshold: 1024 });
    file = join(dir, 'big.eml');
    await writeFile(file, simple('Big one', big));
    id = (await ok(store(file))).stdout.trim();
  });

  it('raw inflates a deflated message on the fly, to stdout and to a file; an existing file is exit 2', async () => {
    const original = await readFile(file, 'utf8');
    expect((await ok(raw(id))).stdout).toBe(original);
    const out = join(dir, 'raw-out.eml');
    await ok(raw(id, { output: out }));
    expect(await readFile(out, 'utf8')).toBe(original);
    expect((await on.run(raw(id, { output: out }))).code).toBe(2);
  });

  it('an existing --output is refused before any request; --force replaces it only once the transfer is complete', async () => {
    const out = join(dir, 'keep.eml');
    await writeFile(out, 'precious');
    const r = await on.run(raw(id, { output: out }), { globals: { debug: true } });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/^> GET /m);
    on.emu.fault({ type: 'reset', path: `/rest/v2/example.com/alice/mailbox/message/${id}/raw`, count: 10 });
    expect((await on.run(raw(id, { output: out, force: true }))).code).toBe(1);
    on.emu.clearFaults();
    expect(await readFile(out, 'utf8')).toBe('precious');
    await ok(raw(id, { output: out, force: true }));
    expect(await readFile(out, 'utf8')).toBe(await readFile(file, 'utf8'));
    expect((await readdir(dir)).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('url prints the 307 Location without following it, and the location serves the message', async () => {
    const loc = (await ok((c) => runMailboxUrl(c, id, {}))).stdout.trim();
    expect(loc).toBe((await serverMeta(id)).uri);
    expect(await (await fetch(loc)).text()).toBe(await readFile(file, 'utf8'));
  });

  it('a cut connection is retried; a persistent one fails (exit 1, one line) and leaves no partial file', async () => {
    const path = `/rest/v2/example.com/alice/mailbox/message/${id}/raw`;
    const out = join(dir, 'cut.eml');
    on.emu.fault({ type: 'truncate', path, count: 1 });
    await ok(raw(id, { output: out }));
    expect(await readFile(out, 'utf8')).toBe(await readFile(file, 'utf8'));
    on.emu.fault({ type: 'truncate', path, count: 10 });
    const out2 = join(dir, 'cut2.eml');
    const r = await on.run(raw(id, { output: out2 }));
    on.emu.clearFaults();
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    await expect(readFile(out2)).rejects.toThrow(/ENOENT/);
  });

  it('small messages stay uncompressed even when deflate is accepted', async () => {
    const small = await stored(simple('small'));
    const res = await fetch(`${api()}/message/${small}/raw`, { headers: { 'accept-encoding': 'deflate' } });
    expect(res.headers.get('content-encoding')).toBeNull();
    expect((await ok(raw(small))).stdout).toBe(simple('small'));
  });
});

describe('state transitions', () => {
  it('store: label 0 only without labels; requested labels plus 0; lower-case markers reported upper case', async () => {
    const a = await stored(simple('plain store'));
    expect((await serverMeta(a)).labels).toEqual([0]);
    expect((await serverMeta(a)).markers).toBeUndefined();
    const file = join(dir, 'labelled.eml');
    await writeFile(file, simple('labelled'));
    const b = (await json(store(file, { label: ['7', '9'], marker: ['seen', 'Forwarded'] }))) as { id: string };
    const meta = await serverMeta(b.id);
    expect(meta.labels).toEqual([0, 7, 9]);
    expect(meta.markers).toEqual(['SEEN', 'FORWARDED']);
    expect(await serverIds(7)).toEqual([b.id]);
  });

  it('store refuses invalid MIME with the server message (exit 1)', async () => {
    const r = await on.run(store('-'), { stdin: 'this is not a message at all\n' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/HTTP 400: Invalid message/);
  });

  it('sanitises hostile part names: control characters, backslashes, dot-only names', async () => {
    const hostile = [
      'From: x@example.net',
      'Subject: hostile names',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary=b',
      '',
      '--b',
      'Content-Type: text/plain',
      '',
      'body',
      '--b',
      'Content-Type: application/octet-stream',
      'Content-Disposition: attachment; filename="..\\\\..\\\\win\u0007dows.ini"',
      '',
      'one',
      '--b',
      'Content-Type: application/octet-stream',
      'Content-Disposition: attachment; filename=".."',
      '',
      'two',
      '--b--',
      '',
    ].join('\r\n');
    const id = await stored(hostile);
    const out = await mkdtemp(join(tmpdir(), 'lanyard-hostile-'));
    await ok(part(id, '2', { output: out }));
    await ok(part(id, '3', { output: out }));
    expect((await readdir(out)).sort()).toEqual(['part-3', 'windows.ini']);
    expect(await readFile(join(out, 'part-3'), 'utf8')).toBe('two');
  });

  it('label: adds and removes labels and markers in one PUT; label 0 stays', async () => {
    const id = await stored(simple('to relabel'), { label: ['1'], marker: ['replied'] });
    const r = await ok(label(id, { add: ['4', '6'], remove: ['1'], addMarker: ['seen'], removeMarker: ['replied'] }), { globals: { debug: true } });
    expect(r.stderr.match(/^> PUT /gm)).toHaveLength(1);
    const meta = await serverMeta(id);
    expect(meta.labels).toEqual([0, 4, 6]);
    expect(meta.markers).toEqual(['SEEN']);
    expect(await serverIds(1)).not.toContain(id);
    const refused = await fetch(`${api()}/message/${id}?removelabel=0`, { method: 'PUT' });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ message: 'This label cannot be removed' });
  });

  it('get --mark-seen adds SEEN', async () => {
    const id = await stored(simple('unread'));
    await json(get(id, { markSeen: true }));
    expect((await serverMeta(id)).markers).toEqual(['SEEN']);
  });

  it('update: a new id carrying labels and markers; the old one is deleted but readable', async () => {
    const old = await stored(simple('v1', 'first version'), { label: ['3'], marker: ['seen'] });
    const file = join(dir, 'v2.eml');
    await writeFile(file, simple('v2', 'second version'));
    const fresh = (await ok((c) => runMailboxUpdate(c, old, file, {}))).stdout.trim();
    expect(fresh).not.toBe(old);
    const meta = await serverMeta(fresh);
    expect(meta.subject).toBe('v2');
    expect(meta.labels).toEqual([0, 3]);
    expect(meta.markers).toEqual(['SEEN']);
    expect(await serverIds(3)).toContain(fresh);
    expect(await serverIds(3)).not.toContain(old);
    expect(await serverIds(0)).not.toContain(old);
    expect((await ok(raw(fresh))).stdout).toMatch(/second version/);
    expect((await ok(raw(old))).stdout).toMatch(/first version/);
    expect(await json((c) => runMailboxUpdate(c, fresh, '-', {}), { stdin: simple('v3') })).toMatchObject({ replaced: fresh });
  });

  it('delete: removed from every label listing including 0, readable by id (labels kept) until purged', async () => {
    const id = await stored(simple('doomed', 'bye'), { label: ['8'] });
    await ok((c) => runMailboxDelete(c, id, {}));
    expect(await serverIds(0)).not.toContain(id);
    expect(await serverIds(8)).toEqual([]);
    // The server keeps a deleted message's labels until the purge; its listings skip it.
    expect((await ok(get(id), { format: 'json' })).stdout).toMatch(/"labels": \[\s*0,\s*8\s*\]/);
    expect((await ok(raw(id))).stdout).toMatch(/bye/);
    const purged = (await on.emu.admin('mailbox', 'purge', {})) as { purged: string[] };
    expect(purged.purged).toContain(id);
    for (const [name, f] of [
      ['get', get(id)],
      ['raw', raw(id)],
      ['url', (c: Context) => runMailboxUrl(c, id, {})],
      ['part', part(id, '1')],
      ['delete', (c: Context) => runMailboxDelete(c, id, {})],
      ['label', label(id, { add: ['2'] })],
    ] as Array<[string, Run]>) {
      const r = await on.run(f);
      expect(r.code, name).toBe(1);
      expect(r.stderr.trim()).toBe(`message ${id} not found`);
    }
  });
});

describe('paging with --all', () => {
  let expected: string[];
  beforeAll(async () => {
    await on.emu.admin('mailbox', 'generate', { count: 45, label: 11 });
    expected = await serverIds(11);
    expect(expected).toHaveLength(45);
  });
  const ndjsonIds = (stdout: string) =>
    stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; subject: string });

  it('follows pages newest first without duplicates or gaps (page size 7, 9, 45, 500)', async () => {
    for (const count of ['7', '9', '45', '500']) {
      const r = await ok(list({ label: '11', all: true, count }), { format: 'ndjson' });
      expect(
        ndjsonIds(r.stdout).map((x) => x.id),
        `count ${count}`,
      ).toEqual(expected);
    }
  });

  it('and oldest first, with metadata', async () => {
    const r = await ok(list({ label: '11', all: true, count: '8', oldestFirst: true, metadata: true }), { format: 'ndjson' });
    const rows = ndjsonIds(r.stdout);
    expect(rows.map((x) => x.id)).toEqual([...expected].reverse());
    expect(rows[0]!.subject).toBe('Generated message 1');
  });

  it('one page only without --all; --start resumes there (inclusive)', async () => {
    expect((await ok(list({ label: '11', count: '10' }))).stdout.trim().split('\n')).toEqual(expected.slice(0, 10));
    expect((await ok(list({ label: '11', count: '3', start: expected[9] }))).stdout.trim().split('\n')).toEqual(expected.slice(9, 12));
    const all = (await json(list({ label: '11', all: true, count: '20' }))) as Array<{ id: string }>;
    expect(all.map((x) => x.id)).toEqual(expected);
  });
});

describe('validation before any request (exit 2, one line)', () => {
  const UUID = '00000000-0000-1000-8000-000000000000';
  const cases: Array<[string, Run, RegExp]> = [
    ['get not-a-uuid', get('not-a-uuid'), /message id: "not-a-uuid" is not a UUID/],
    ['list --label -1', list({ label: '-1' }), /--label: labels are whole numbers/],
    ['list --label inbox', list({ label: 'inbox' }), /--label: labels are whole numbers/],
    ['list --count 0', list({ count: '0' }), /--count: must be between 1 and 500/],
    ['list --count 501', list({ count: '501' }), /--count: must be between 1 and 500/],
    ['list --start 123', list({ start: '123' }), /--start: "123" is not a UUID/],
    ['part 1..2', part(UUID, '1..2'), /part id: "1..2" is neither/],
    ['part 0', part(UUID, '0'), /part id: "0" is neither/],
    ['store --marker flagged', store('-', { marker: ['flagged'] }), /--marker: unknown marker "flagged"/],
    ['store a missing file', store(join(tmpdir(), 'no-such-file.eml')), /no such file/],
    ['label --remove 0', label(UUID, { remove: ['0'] }), /--remove 0: label 0 holds every message and cannot be removed/],
    ['label, nothing', label(UUID, {}), /nothing to change/],
    ['get --adjacent', get(UUID, { adjacent: true }), /--adjacent needs --label/],
  ];
  it.each(cases)('%s', async (_, f, re) => {
    const r = await on.run(f, { globals: { debug: true }, stdin: simple('x') });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(re);
    expect(r.stderr).not.toMatch(/^> (GET|POST|PUT|DELETE) /m);
    // One message line (plus a hint at most).
    expect(r.stderr.trim().split('\n').length, r.stderr).toBeLessThanOrEqual(2);
  });
});
