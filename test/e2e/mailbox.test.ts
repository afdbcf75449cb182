/**
 * Mailbox end to end: the built CLI against the emulated mail store over
 * HTTP on 127.0.0.1 — every operation, every state transition, deflate both
 * ways, IMAP part numbering, content ids, unsafe file names and paging.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { startWorld, type World } from './harness.js';

let world: World;
let api: string;
let dir: string;

const mb = (args: string[], o?: Parameters<World['run']>[1]) => world.run(['--profile', 'emulator', 'mailbox', ...args], o);
const ok = async (args: string[], o?: Parameters<World['run']>[1]) => {
  const r = await mb(args, o);
  expect(r.stderr, `stderr of ${args.join(' ')}`).not.toMatch(/at .*\.js:\d+/);
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r;
};
const serverIds = async (label: number, reverse = true): Promise<string[]> =>
  (await (await fetch(`${api}/label/${label}?count=500&reverse=${reverse}`)).json()) as string[];
const serverMeta = async (id: string) => ((await (await fetch(`${api}/message/${id}`)).json()) as { message: Record<string, unknown> }).message;

const simple = (subject: string, body = 'hello') =>
  `From: Test <test@example.net>\r\nTo: alice@example.com\r\nSubject: ${subject}\r\nDate: Thu, 05 Nov 2026 12:00:00 +0000\r\n\r\n${body}\r\n`;

beforeAll(async () => {
  world = await startWorld();
  api = `${world.url}/rest/v2/example.com/alice/mailbox`;
  dir = await mkdtemp(join(tmpdir(), 'lanyard-mbx-'));
});
afterAll(async () => {
  await world?.stop();
});

describe('emulator profile and seeded mailbox', () => {
  it('registers mailbox.baseUrl/domain/user and lists the seed newest first', async () => {
    const info = (await (await fetch(`${world.url}/_emulator/info`)).json()) as { mailbox: { profile: Record<string, string> } };
    expect(info.mailbox.profile).toEqual({ 'mailbox.baseUrl': world.url, 'mailbox.domain': 'example.com', 'mailbox.user': 'alice' });
    const r = await ok(['list', '--json', '--metadata']);
    const list = JSON.parse(r.stdout) as Array<{ id: string; subject: string; date: string; labels: number[] }>;
    expect(list.map((m) => m.subject)).toEqual(['Réunion demain', 'Quarterly report', 'Welcome to Lanyard']);
    expect(list[1]!.date).toBe('2026-11-03T09:30:00.000+0000');
    for (const m of list) expect(m.labels).toContain(0);
  });

  it('plain output prints ids; --metadata prints tab-separated rows', async () => {
    const ids = (await ok(['list'])).stdout.trim().split('\n');
    expect(ids).toEqual((await serverIds(0)).slice(0, ids.length));
    const rows = (await ok(['list', '--metadata', '--label', '2'])).stdout.trim().split('\n');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.split('\t').slice(2, 5)).toEqual(['Carol Reports', 'Quarterly report', '0,1,2']);
  });

  it('--domain/--user select another mailbox', async () => {
    const r = await ok(['list', '--domain', 'example.org', '--user', 'nobody', '--json']);
    expect(JSON.parse(r.stdout)).toEqual([]);
  });
});

describe('get, parts and content ids', () => {
  let report: string;
  beforeAll(async () => {
    report = (await serverIds(2))[0]!;
  });

  it('shows the parsed message with parts keyed by IMAP number and adjacent ids', async () => {
    const r = await ok(['get', report, '--json', '--adjacent', '--label', '0']);
    const v = JSON.parse(r.stdout) as { message: Record<string, unknown>; prev: string; next: string };
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
    const human = await ok(['get', report]);
    expect(human.stdout).toMatch(/^Subject: Quarterly report$/m);
    expect(human.stdout).toMatch(/^1\.2\.2\timage\/png/m);
  });

  it('bodies: --include-body on lists; none when pre-parsed bodies are disabled', async () => {
    const withBody = JSON.parse((await ok(['list', '--label', '2', '--include-body', '--json'])).stdout) as Array<Record<string, unknown>>;
    expect(withBody[0]!.textBody).toMatch(/The report is attached/);
    const without = JSON.parse((await ok(['list', '--label', '2', '--metadata', '--json'])).stdout) as Array<Record<string, unknown>>;
    expect(without[0]!.textBody).toBeUndefined();
    await world.admin('mailbox/config', { preparsedBodies: false });
    try {
      const v = JSON.parse((await ok(['get', report, '--json'])).stdout) as { message: Record<string, unknown> };
      expect(v.message.textBody).toBeUndefined();
      expect(v.message.htmlBody).toBeUndefined();
      expect((await ok(['get', report])).stdout).toMatch(/no pre-parsed body/);
    } finally {
      await world.admin('mailbox/config', { preparsedBodies: true });
    }
  });

  it('fetches parts by IMAP number through mixed > alternative > related', async () => {
    expect((await ok(['part', report, '1.1'])).stdout).toBe('The report is attached. Logo inline in the HTML version.');
    expect((await ok(['part', report, '1.2.1'])).stdout).toBe('<p>The report is attached.</p><img src="cid:logo@lanyard.example">');
    expect((await ok(['part', report, '2'])).stdout).toBe('quarter,revenue\r\nQ3,1200');
    const png = join(dir, 'logo-by-number.png');
    await ok(['part', report, '1.2.2', '--output', png]);
    expect((await readFile(png)).subarray(1, 4).toString()).toBe('PNG');
  });

  it('fetches a part by content id', async () => {
    const out = join(dir, 'logo-by-cid.png');
    await ok(['part', report, '<logo@lanyard.example>', '--output', out]);
    expect(await readFile(out)).toEqual(await readFile(join(dir, 'logo-by-number.png')));
    const missing = await mb(['part', report, '<nope@example>']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/Part not found/);
  });

  it('saves into a directory under a safe name, never outside it, never overwriting without --force', async () => {
    const out = await mkdtemp(join(tmpdir(), 'lanyard-parts-'));
    await ok(['part', report, '3', '--output', out + '/']);
    expect(await readdir(out)).toEqual(['passwd']);
    expect(await readFile(join(out, 'passwd'), 'utf8')).toBe('not really a password file\n');
    const again = await mb(['part', report, '3', '--output', out]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/exists; use --force/);
    await writeFile(join(out, 'passwd'), 'old');
    await ok(['part', report, '3', '--output', out, '--force']);
    expect(await readFile(join(out, 'passwd'), 'utf8')).toBe('not really a password file\n');
  });

  it('sanitises hostile names: control characters, backslashes, dot-only names', async () => {
    const raw = [
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
    const id = (await ok(['store', '-'], { input: raw })).stdout.trim();
    const out = await mkdtemp(join(tmpdir(), 'lanyard-hostile-'));
    await ok(['part', id, '2', '--output', out]);
    await ok(['part', id, '3', '--output', out]);
    expect((await readdir(out)).sort()).toEqual(['part-3', 'windows.ini']);
    expect(await readFile(join(out, 'part-3'), 'utf8')).toBe('two');
  });
});

describe('raw, deflate and url', () => {
  const big = Array.from({ length: 4000 }, (_, i) => `line ${i} ${'lorem ipsum dolor '.repeat(4)}`).join('\r\n');
  let id: string;
  let file: string;

  beforeAll(async () => {
    await world.admin('mailbox/config', { compressThreshold: 1024 });
    file = join(dir, 'big.eml');
    await writeFile(file, simple('Big one', big));
    id = (await ok(['store', file])).stdout.trim();
  });
  afterAll(async () => {
    await world.admin('mailbox/config', { compressThreshold: 32768 });
  });

  it('the store keeps it deflated and sends raw RFC 1951 only to clients that accept deflate', async () => {
    const original = await readFile(file);
    const compressed = await fetch(`${api}/message/${id}/raw`, { headers: { 'accept-encoding': 'deflate' } });
    expect(compressed.headers.get('content-encoding')).toBe('deflate');
    // fetch would inflate on its own; read the wire bytes with node:http instead.
    const { request } = await import('node:http');
    const wire = await new Promise<Buffer>((resolve, reject) => {
      request(`${api}/message/${id}/raw`, { headers: { 'accept-encoding': 'deflate' } }, (res) => {
        expect(res.headers['transfer-encoding']).toBe('chunked');
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks)));
      })
        .on('error', reject)
        .end();
    });
    expect(wire.length).toBeLessThan(original.length / 4);
    expect(inflateRawSync(wire)).toEqual(original);
    const plain = await new Promise<{ enc?: string; body: Buffer }>((resolve, reject) => {
      request(`${api}/message/${id}/raw`, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ enc: res.headers['content-encoding'], body: Buffer.concat(chunks) }));
      })
        .on('error', reject)
        .end();
    });
    expect(plain.enc).toBeUndefined();
    expect(plain.body).toEqual(original);
  });

  it('mailbox raw inflates on the fly to stdout and to a file', async () => {
    const original = await readFile(file, 'utf8');
    const dbg = await world.run(['--debug', '--profile', 'emulator', 'mailbox', 'raw', id]);
    expect(dbg.code).toBe(0);
    expect(dbg.stderr).toMatch(/> accept-encoding: deflate/);
    expect(dbg.stderr).toMatch(/< content-encoding: deflate/);
    expect(dbg.stdout).toBe(original);
    const out = join(dir, 'raw-out.eml');
    await ok(['raw', id, '--output', out]);
    expect(await readFile(out, 'utf8')).toBe(original);
    expect((await mb(['raw', id, '--output', out])).code).toBe(2);
  });

  it('an existing --output is refused before any request; --force replaces it only once the transfer is complete', async () => {
    const out = join(dir, 'keep.eml');
    await writeFile(out, 'precious');
    const r = await world.run(['--debug', '--profile', 'emulator', 'mailbox', 'raw', id, '--output', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(/^> GET /m);
    await world.admin('faults', { type: 'reset', path: `/rest/v2/example.com/alice/mailbox/message/${id}/raw`, count: 10 });
    expect((await mb(['raw', id, '--output', out, '--force'])).code).toBe(1);
    await world.run(['emulator', 'fault', 'clear', '--url', world.url]);
    expect(await readFile(out, 'utf8')).toBe('precious');
    await ok(['raw', id, '--output', out, '--force']);
    expect(await readFile(out, 'utf8')).toBe(await readFile(file, 'utf8'));
    expect((await readdir(dir)).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('url prints the 307 Location without following it, and the location serves the message', async () => {
    const r = await ok(['url', id]);
    const loc = r.stdout.trim();
    expect(loc).toBe((await serverMeta(id)).uri);
    const res = await fetch(loc);
    expect(await res.text()).toBe(await readFile(file, 'utf8'));
  });

  it('a cut connection is retried; a persistent one fails (exit 1) and leaves no partial file', async () => {
    const path = `/rest/v2/example.com/alice/mailbox/message/${id}/raw`;
    const out = join(dir, 'cut.eml');
    await world.admin('faults', { type: 'truncate', path, count: 1 });
    await ok(['raw', id, '--output', out]);
    expect(await readFile(out, 'utf8')).toBe(await readFile(file, 'utf8'));
    await world.admin('faults', { type: 'truncate', path, count: 10 });
    const out2 = join(dir, 'cut2.eml');
    const r = await mb(['raw', id, '--output', out2]);
    await world.run(['emulator', 'fault', 'clear', '--url', world.url]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    await expect(readFile(out2)).rejects.toThrow(/ENOENT/);
  });

  it('Ctrl-C while waiting for the server exits 130', async () => {
    await world.admin('faults', { type: 'latency', latencyMs: 8000, path: `/rest/v2/example.com/alice/mailbox/message/${id}/raw`, count: 1 });
    const r = await mb(['raw', id], { onSpawn: (child) => void setTimeout(() => child.kill('SIGINT'), 1500) });
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
  });

  it('small messages stay uncompressed even when deflate is accepted', async () => {
    const small = (await ok(['store', '-'], { input: simple('small') })).stdout.trim();
    const res = await fetch(`${api}/message/${small}/raw`, { headers: { 'accept-encoding': 'deflate' } });
    expect(res.headers.get('content-encoding')).toBeNull();
    expect((await ok(['raw', small])).stdout).toBe(simple('small'));
  });
});

describe('state transitions', () => {
  it('store: label 0 only without labels; requested labels plus 0; lower-case markers reported upper case', async () => {
    const a = (await ok(['store', '-'], { input: simple('plain store') })).stdout.trim();
    expect((await serverMeta(a)).labels).toEqual([0]);
    expect((await serverMeta(a)).markers).toBeUndefined();
    const file = join(dir, 'labelled.eml');
    await writeFile(file, simple('labelled'));
    const b = JSON.parse((await ok(['store', file, '--label', '7', '--label', '9', '--marker', 'seen', '--marker', 'Forwarded', '--json'])).stdout) as {
      id: string;
    };
    const meta = await serverMeta(b.id);
    expect(meta.labels).toEqual([0, 7, 9]);
    expect(meta.markers).toEqual(['SEEN', 'FORWARDED']);
    expect(await serverIds(7)).toEqual([b.id]);
  });

  it('store refuses invalid MIME with the server message (exit 1)', async () => {
    const r = await mb(['store', '-'], { input: 'this is not a message at all\n' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/HTTP 400: Invalid message/);
  });

  it('label: adds and removes labels and markers in one PUT; label 0 stays', async () => {
    const id = (await ok(['store', '-', '--label', '1', '--marker', 'replied'], { input: simple('to relabel') })).stdout.trim();
    const dbg = await world.run([
      '--debug',
      '--profile',
      'emulator',
      'mailbox',
      'label',
      id,
      '--add',
      '4',
      '--add',
      '6',
      '--remove',
      '1',
      '--add-marker',
      'seen',
      '--remove-marker',
      'replied',
    ]);
    expect(dbg.code).toBe(0);
    expect(dbg.stderr.match(/^> PUT /gm)).toHaveLength(1);
    const meta = await serverMeta(id);
    expect(meta.labels).toEqual([0, 4, 6]);
    expect(meta.markers).toEqual(['SEEN']);
    expect(await serverIds(1)).not.toContain(id);
    const raw = await fetch(`${api}/message/${id}?removelabel=0`, { method: 'PUT' });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toEqual({ message: 'This label cannot be removed' });
  });

  it('get --mark-seen adds SEEN', async () => {
    const id = (await ok(['store', '-'], { input: simple('unread') })).stdout.trim();
    await ok(['get', id, '--mark-seen', '--json']);
    expect((await serverMeta(id)).markers).toEqual(['SEEN']);
  });

  it('update: a new id carrying labels and markers; the old one is deleted but readable', async () => {
    const old = (await ok(['store', '-', '--label', '3', '--marker', 'seen'], { input: simple('v1', 'first version') })).stdout.trim();
    const file = join(dir, 'v2.eml');
    await writeFile(file, simple('v2', 'second version'));
    const fresh = (await ok(['update', old, file])).stdout.trim();
    expect(fresh).not.toBe(old);
    const meta = await serverMeta(fresh);
    expect(meta.subject).toBe('v2');
    expect(meta.labels).toEqual([0, 3]);
    expect(meta.markers).toEqual(['SEEN']);
    expect(await serverIds(3)).toContain(fresh);
    expect(await serverIds(3)).not.toContain(old);
    expect(await serverIds(0)).not.toContain(old);
    expect((await ok(['raw', fresh])).stdout).toMatch(/second version/);
    expect((await ok(['raw', old])).stdout).toMatch(/first version/);
    const viaStdin = (await ok(['update', fresh, '-', '--json'], { input: simple('v3') })).stdout;
    expect(JSON.parse(viaStdin)).toMatchObject({ replaced: fresh });
  });

  it('delete: removed from every label listing including 0, readable by id (labels kept) until purged', async () => {
    const id = (await ok(['store', '-', '--label', '8'], { input: simple('doomed', 'bye') })).stdout.trim();
    await ok(['delete', id]);
    expect(await serverIds(0)).not.toContain(id);
    expect(await serverIds(8)).toEqual([]);
    // The server keeps a deleted message's labels until the purge; its listings skip it.
    expect((await ok(['get', id, '--json'])).stdout).toMatch(/"labels": \[\s*0,\s*8\s*\]/);
    expect((await ok(['raw', id])).stdout).toMatch(/bye/);
    const purged = (await world.admin('mailbox/purge', {})) as { purged: string[] };
    expect(purged.purged).toContain(id);
    for (const args of [
      ['get', id],
      ['raw', id],
      ['url', id],
      ['part', id, '1'],
      ['delete', id],
      ['label', id, '--add', '2'],
    ]) {
      const r = await mb(args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr.trim()).toBe(`message ${id} not found`);
    }
  });
});

describe('paging with --all', () => {
  let expected: string[];
  beforeAll(async () => {
    await world.admin('mailbox/generate', { count: 45, label: 11 });
    expected = await serverIds(11);
    expect(expected).toHaveLength(45);
  });

  it('follows pages newest first without duplicates or gaps (page size 7, 9, 45, 500)', async () => {
    for (const count of ['7', '9', '45', '500']) {
      const r = await ok(['list', '--label', '11', '--all', '--count', count, '--ndjson']);
      const ids = r.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { id: string }).id);
      expect(ids, `count ${count}`).toEqual(expected);
    }
  });

  it('and oldest first, with metadata', async () => {
    const r = await ok(['list', '--label', '11', '--all', '--count', '8', '--oldest-first', '--metadata', '--ndjson']);
    const rows = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; subject: string });
    expect(rows.map((x) => x.id)).toEqual([...expected].reverse());
    expect(rows[0]!.subject).toBe('Generated message 1');
  });

  it('one page only without --all; --start resumes there (inclusive)', async () => {
    const page = (await ok(['list', '--label', '11', '--count', '10'])).stdout.trim().split('\n');
    expect(page).toEqual(expected.slice(0, 10));
    const next = (await ok(['list', '--label', '11', '--count', '3', '--start', expected[9]!])).stdout.trim().split('\n');
    expect(next).toEqual(expected.slice(9, 12));
    const json = JSON.parse((await ok(['list', '--label', '11', '--all', '--count', '20', '--json'])).stdout) as Array<{ id: string }>;
    expect(json.map((x) => x.id)).toEqual(expected);
  });
});

describe('validation before any request (exit 2, one line)', () => {
  const cases: Array<[string[], RegExp]> = [
    [['get', 'not-a-uuid'], /message id: "not-a-uuid" is not a UUID/],
    [['list', '--label', '-1'], /--label: labels are whole numbers/],
    [['list', '--label', 'inbox'], /--label: labels are whole numbers/],
    [['list', '--count', '0'], /--count: must be between 1 and 500/],
    [['list', '--count', '501'], /--count: must be between 1 and 500/],
    [['list', '--start', '123'], /--start: "123" is not a UUID/],
    [['part', '00000000-0000-1000-8000-000000000000', '1..2'], /part id: "1..2" is neither/],
    [['part', '00000000-0000-1000-8000-000000000000', '0'], /part id: "0" is neither/],
    [['store', '-', '--marker', 'flagged'], /--marker: unknown marker "flagged"/],
    [['store', join(tmpdir(), 'no-such-file.eml')], /no such file/],
    [['label', '00000000-0000-1000-8000-000000000000', '--remove', '0'], /--remove 0: label 0 holds every message and cannot be removed/],
    [['label', '00000000-0000-1000-8000-000000000000'], /nothing to change/],
    [['get', '00000000-0000-1000-8000-000000000000', '--adjacent'], /--adjacent needs --label/],
  ];
  it.each(cases)('%j', async (args, re) => {
    const r = await world.run(['--debug', '--profile', 'emulator', 'mailbox', ...args], { input: simple('x') });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(re);
    expect(r.stderr).not.toMatch(/^> (GET|POST|PUT|DELETE) /m);
    // One message line (plus a hint at most); --debug adds the stack, which is ignored here.
    const lines = r.stderr
      .trim()
      .split('\n')
      .filter((l) => !/^\s+at |^\w*Error: |^\(run with/.test(l));
    expect(lines.length, r.stderr).toBeLessThanOrEqual(2);
  });

  it('a profile without mailbox settings names the config set to run', async () => {
    const r = await world.run(['mailbox', 'list']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no mailbox\.baseUrl/);
    expect(r.stderr).toMatch(/lanyard config set mailbox\.baseUrl/);
  });
});
