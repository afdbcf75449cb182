/**
 * `mailbox list` and `get` beyond shapes and paging (commands.test.ts): what
 * the server wrote reaching a pipe as tab-separated rows (one message a line,
 * one field a column, raw sizes); what `--new` remembers per mailbox,
 * whichever way the mailbox was chosen, with the state of earlier versions
 * taken over; `get`'s neighbours only when asked for.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { messageColumns } from '../../../../src/cli/commands/mailbox/render.js';
import type { MailboxListOptions } from '../../../../src/cli/commands/mailbox/options.js';
import { runMailboxList } from '../../../../src/cli/commands/mailbox/run-list.js';
import { runMailboxGet } from '../../../../src/cli/commands/mailbox/run-read.js';
import type { Context } from '../../../../src/cli/context.js';
import { type RunOptions, useEmulatorCommands } from '../on-emulator.js';

const on = useEmulatorCommands();
const api = (user = 'alice') => `${on.emu.url}/rest/v2/example.com/${user}/mailbox`;
const list =
  (o: Partial<MailboxListOptions> = {}) =>
  (c: Context) =>
    runMailboxList(c, { label: '0', count: '50', ...o });
async function ok(f: (c: Context) => Promise<unknown>, o: RunOptions = {}) {
  const r = await on.run(f, o);
  expect(r.code, r.stderr).toBe(0);
  return r;
}
async function storeRaw(raw: string, o: { user?: string; label?: number } = {}): Promise<string> {
  const q = o.label !== undefined ? `?label=${o.label}` : '';
  const res = await fetch(`${api(o.user)}/message${q}`, { method: 'POST', headers: { 'content-type': 'message/rfc822' }, body: raw });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}
const simple = (subject: string) => `From: Test <test@example.net>\r\nTo: alice@example.com\r\nSubject: ${subject}\r\n\r\nhello\r\n`;
const lines = (s: string) => s.split('\n').filter(Boolean);

describe('piped rows', () => {
  it('a subject holding line breaks, tabs and escapes stays one row of as many fields as columns, the size in bytes', async () => {
    const hostile = `Line1\nFAKE-ID\tx\t\u001b[31mred`;
    const encoded = `=?UTF-8?B?${Buffer.from(hostile).toString('base64')}?=`;
    await storeRaw(simple(encoded), { label: 12 });
    await storeRaw(simple('plain'), { label: 12 });
    // The server hands the decoded subject back as it is (the attack needs it to).
    const meta = (await (await fetch(`${api()}/label/12?metadata=true`)).json()) as Record<string, { subject: string }>;
    expect(Object.values(meta).map((m) => m.subject)).toContain(hostile);
    const r = await ok(list({ label: '12', metadata: true }));
    const rows = lines(r.stdout);
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      const fields = row.split('\t');
      expect(fields, row).toHaveLength(messageColumns.length);
      expect(fields[0]).toMatch(/^[0-9a-f-]{36}$/);
      expect(fields[messageColumns.length - 1]).toMatch(/^\d+$/);
      expect(fields[1]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/);
    }
    expect(r.stdout).not.toMatch(/\u001b/);
    expect(r.stdout).not.toMatch(/^FAKE-ID/m);
    expect(rows[1]!.split('\t')[3]).toBe('Line1 FAKE-ID x ^[[31mred');
  });

  it('ids alone (no --metadata): one line per id whatever a server puts in one', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(['one\nFAKE-ID', '\u001b[2Jtwo\r\n']));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const r = await ok(list(), { profileSettings: { 'mailbox.baseUrl': baseUrl, 'mailbox.domain': 'example.com', 'mailbox.user': 'alice' } });
      expect(r.stdout).toBe('one FAKE-ID\n^[[2Jtwo \n');
    } finally {
      server.close();
    }
  });
});

describe('--new', () => {
  let state: string;
  beforeEach(async () => {
    state = await mkdtemp(join(tmpdir(), 'lanyard-new-'));
  });
  const env = () => ({ LANYARD_STATE_DIR: state });
  const newIds = async (o: Partial<MailboxListOptions> = {}, settings?: RunOptions['settings']) =>
    lines((await ok(list({ all: true, new: true, ...o }), { env: env(), settings })).stdout);
  const alicesIds = async () => (await (await fetch(`${api()}/label/0?count=500`)).json()) as string[];

  it('remembers per mailbox resolved, not per flags: another user through the settings or --user keeps its own state', async () => {
    const all = await alicesIds();
    expect(await newIds()).toEqual(all);
    expect(await newIds()).toEqual([]);
    const bobs = await storeRaw(simple('for bob'), { user: 'bob' });
    expect(await newIds({}, { 'mailbox.user': 'bob' })).toEqual([bobs]);
    expect(await newIds({}, { 'mailbox.user': 'bob' })).toEqual([]);
    // Back to alice through the settings: her state is hers, nothing is new.
    expect(await newIds()).toEqual([]);
    // The same mailbox chosen by flag shares its state.
    expect(await newIds({ user: 'bob' })).toEqual([]);
    expect(await newIds({ domain: 'example.com', user: 'alice' })).toEqual([]);
    const fresh = await storeRaw(simple('new for alice'));
    expect(await newIds({ user: 'alice' })).toEqual([fresh]);
    expect(await newIds({}, { 'mailbox.user': 'bob' })).toEqual([]);
  });

  it('a mailbox without state of its own takes over what an earlier version recorded (per flags), leaving that file', async () => {
    const all = await alicesIds();
    const dir = join(state, 'profiles', 'emulator');
    await mkdir(dir, { recursive: true });
    const legacy = join(dir, 'mailbox-list------0.json');
    await writeFile(legacy, JSON.stringify({ gate: 'mailbox-list', scope: ['', '', '0'], seen: all.slice(1) }));
    expect(await newIds()).toEqual([all[0]]);
    expect(await newIds()).toEqual([]);
    expect(JSON.parse(await readFile(legacy, 'utf8')).seen).toEqual(all.slice(1));
    const files = (await readdir(dir)).filter((f) => f !== 'mailbox-list------0.json');
    expect(files).toEqual([expect.stringMatching(/^mailbox-list--alice_example\.com--[0-9a-f]{16}--0\.json$/)]);
  });
});

describe('get and its neighbours', () => {
  it('without --adjacent: no prev/next keys in --json, no Prev/Next lines; with it, null at the end of the label', async () => {
    const [newest] = (await (await fetch(`${api()}/label/0`)).json()) as string[];
    const plain = JSON.parse((await ok((c) => runMailboxGet(c, newest!, {}), { format: 'json' })).stdout) as Record<string, unknown>;
    expect(Object.keys(plain)).toEqual(['id', 'message']);
    const human = (await ok((c) => runMailboxGet(c, newest!, {}))).stdout;
    expect(human).toMatch(/^Subject: /m);
    expect(human).not.toMatch(/^(Prev|Next):/m);
    const adjacent = JSON.parse((await ok((c) => runMailboxGet(c, newest!, { adjacent: true, label: '0' }), { format: 'json' })).stdout);
    expect(adjacent).toMatchObject({ id: newest, prev: null, next: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const shown = (await ok((c) => runMailboxGet(c, newest!, { adjacent: true, label: '0' }))).stdout;
    expect(shown).toMatch(/^Prev: +\(none\)$/m);
    expect(shown).toMatch(/^Next: +[0-9a-f-]{36}$/m);
  });
});
