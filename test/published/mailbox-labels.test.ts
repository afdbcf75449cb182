/**
 * The mailbox's labels, account, purge and batch operations as the mail
 * store's JAX-RS resources serve them (elasticinbox/elasticinbox-java at
 * 07bacffbb53ae80556593559daf9a9588a9a6913: rest/v2/MailboxResource.java,
 * LabelResource.java, MessageResource.java, AccountResource.java;
 * core/model/LabelMap.java, ReservedLabels.java, LabelConstants.java;
 * core/utils/LabelUtils.java; core/cassandra/CassandraLabelDAO.java): the
 * label list with counters, label add/rename/delete with the store's
 * refusals, batch modify and delete, the purge and the account endpoints.
 */
import { describe, expect, it } from 'vitest';
import { useInProcessEmulator } from '../e2e/in-process-emulator.js';

const ref = useInProcessEmulator();
const api = () => ref.emu.urls.mailbox.api;
const RESERVED = ['all', 'inbox', 'drafts', 'sent', 'trash', 'spam', 'starred', 'important', 'notifications', 'attachments', 'pop3'];

async function store(labels: number[] = [], subject = 'labels'): Promise<string> {
  const q = labels.map((l) => `label=${l}`).join('&');
  const res = await fetch(`${api()}/message${q ? `?${q}` : ''}`, { method: 'POST', body: `From: a@example.net\r\nSubject: ${subject}\r\n\r\nhello\r\n` });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}
const json = async (path: string, init?: RequestInit) => {
  const res = await fetch(`${api()}${path}`, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
};
const jsonBody = (method: string, body: unknown): RequestInit => ({ method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('labels, account, purge and batch operations as the published resources serve them', () => {
  it('the label list: the reserved labels 0–10 by name; with metadata total, unread and (label 0 only) size', async () => {
    const names = await json('');
    expect(names.status).toBe(200);
    for (const [i, n] of RESERVED.entries()) expect(names.body[String(i)]).toBe(n);
    const before = (await json('?metadata=true')).body;
    expect(Object.keys(before['1']).sort()).toEqual(['name', 'total', 'unread']);
    expect(Object.keys(before['0']).sort()).toEqual(['name', 'size', 'total', 'unread']);
    const id = await store([1]);
    await json(`/message/${id}?addmarker=seen`, { method: 'PUT' });
    await store([1]);
    const after = (await json('?metadata=true')).body;
    expect(after['1'].total - before['1'].total).toBe(2);
    expect(after['1'].unread - before['1'].unread).toBe(1);
    expect(after['0'].size).toBeGreaterThan(before['0'].size);
  });

  it('add (JSON body or ?name), rename, delete a label, and the refusals in the store’s words', async () => {
    const added = await json('/label', jsonBody('POST', { name: 'Projects' }));
    expect(added.status).toBe(201);
    const id = added.body.id as number;
    expect(id).toBeGreaterThanOrEqual(20);
    expect(added.headers.get('location')).toBe(`${api()}/label/${id}`);
    expect((await json('')).body[String(id)]).toBe('Projects');
    const byQuery = await json('/label?name=Later', { method: 'POST' });
    expect(byQuery.status).toBe(201);

    expect(await json('/label', jsonBody('POST', { name: 'projects' }))).toMatchObject({
      status: 409,
      body: { message: 'Label with this name already exists' },
    });
    expect(await json('/label', jsonBody('POST', { name: 'INBOX' }))).toMatchObject({ status: 409 });
    expect(await json('/label', { method: 'POST' })).toMatchObject({ status: 400, body: { message: 'Label name must be specified' } });
    expect(await json('/label', jsonBody('POST', { name: 'inbox^sub' }))).toMatchObject({
      status: 400,
      body: { message: 'Netsted labels are not allowed under reserved labels' },
    });
    expect(await json('/label', jsonBody('POST', { name: 'a^^b' }))).toMatchObject({ status: 400, body: { message: 'Illegal use of nested label separator' } });
    expect(await json('/label', jsonBody('POST', { name: 'x'.repeat(251) }))).toMatchObject({ status: 400 });
    expect(await json('/label', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' })).toMatchObject({
      status: 400,
      body: { message: 'Malformed JSON request' },
    });

    const msg = await store([id]);
    expect((await json(`/label/${id}`, jsonBody('PUT', { name: 'Projects^2026' }))).status).toBe(204);
    expect((await json('')).body[String(id)]).toBe('Projects^2026');
    expect(await json('/label/1', jsonBody('PUT', { name: 'Box' }))).toMatchObject({
      status: 409,
      body: { message: "This is reserved label and can't be modified" },
    });
    expect(await json('/label/4321', jsonBody('PUT', { name: 'Nope' }))).toMatchObject({ status: 400, body: { message: 'Label does not exist' } });

    expect(await json('/label/0', { method: 'DELETE' })).toMatchObject({ status: 400, body: { message: "This is reserved label and can't be modified" } });
    expect((await json(`/label/${id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await json('')).body[String(id)]).toBeUndefined();
    // The label is gone from its messages too.
    expect((await json(`/message/${msg}`)).body.message.labels).not.toContain(id);
  });

  it('batch modify and batch delete take a JSON array of ids; anything else is "Malformed JSON request"', async () => {
    const a = await store([1]);
    const b = await store([1]);
    expect((await json('/message?addlabel=6&addmarker=seen', jsonBody('PUT', [a, b, a]))).status).toBe(204);
    for (const id of [a, b]) expect((await json(`/message/${id}`)).body.message).toMatchObject({ labels: [0, 1, 6], markers: ['SEEN'] });
    expect(await json('/message?removelabel=0', jsonBody('PUT', [a]))).toMatchObject({ status: 400, body: { message: 'This label cannot be removed' } });
    for (const bad of ['[]', '{}', '["not-a-uuid"]', '['])
      expect(await json('/message?addlabel=6', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: bad })).toMatchObject({
        status: 400,
        body: { message: 'Malformed JSON request' },
      });

    expect((await json('/message', jsonBody('DELETE', [a]))).status).toBe(204);
    expect((await json('/label/6')).body).not.toContain(a);
    expect((await json('/label/6')).body).toContain(b);
    // Deleted, still readable by id until the purge.
    expect((await json(`/message/${a}`)).status).toBe(200);
  });

  it('the purge: deleted messages (up to age) leave for good; the account: get 204, add 201 {"ok":true}, delete', async () => {
    const old = await store([1]);
    await json(`/message/${old}`, { method: 'DELETE' });
    ref.emu.advance('1h');
    const recent = await store([1]);
    await json(`/message/${recent}`, { method: 'DELETE' });
    const between = new Date(ref.emu.now() - 30 * 60_000).toUTCString();
    expect((await json(`/purge?age=${encodeURIComponent(between)}`, { method: 'PUT' })).status).toBe(204);
    expect((await json(`/message/${old}`)).status).toBe(400);
    expect((await json(`/message/${recent}`)).status).toBe(200);
    expect((await json('/purge', { method: 'PUT' })).status).toBe(204);
    expect((await json(`/message/${recent}`)).status).toBe(400);
    expect(await json('/purge?age=yesterday-ish', { method: 'PUT' })).toMatchObject({ status: 400 });

    const account = api().replace(/\/mailbox$/, '');
    expect((await fetch(account)).status).toBe(204);
    const added = await fetch(account, { method: 'POST' });
    expect([added.status, await added.json(), added.headers.get('location')]).toEqual([201, { ok: true }, `${account}/mailbox`]);
    const kept = await store([1]);
    await json('/label', jsonBody('POST', { name: 'Gone soon' }));
    expect((await fetch(account, { method: 'DELETE' })).status).toBe(204);
    expect((await json(`/message/${kept}`)).status).toBe(400);
    expect(Object.values((await json('')).body)).toEqual(RESERVED);
  });

  it('labels survive a restart on the same data directory (the journal keeps them)', async () => {
    const { startEmulator } = await import('../../src/emulator/index.js');
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(join(tmpdir(), 'lanyard-labels-'));
    try {
      const first = await startEmulator({ dataDir: dir });
      const res = await fetch(`${first.urls.mailbox.api}/label`, jsonBody('POST', { name: 'Kept' }));
      const { id } = (await res.json()) as { id: number };
      await first.stop();
      const second = await startEmulator({ dataDir: dir });
      try {
        expect(((await (await fetch(second.urls.mailbox.api)).json()) as Record<string, string>)[String(id)]).toBe('Kept');
      } finally {
        await second.stop();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
