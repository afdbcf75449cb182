import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { HttpClient } from '../../../../src/core/http/client.js';
import { HttpError } from '../../../../src/core/errors.js';
import { MailboxClient, MessageNotFoundError, processMessageBody } from '../../../../src/core/mailbox/client.js';
import { FakeClock } from '../../../fakes/clock.js';
import { StubHttp } from '../../../fakes/stub-http.js';

const BASE = '/rest/v2/example.com/alice/mailbox';
const id = (n: number) => `00000000-0000-1000-8000-${String(n).padStart(12, '0')}`;
const ID = id(1);

let stub: StubHttp;
let http: HttpClient;
let client: MailboxClient;

beforeEach(async () => {
  stub = await StubHttp.start();
  http = new HttpClient({ clock: new FakeClock(), userAgent: 'lanyard/test', maxNetworkRetries: 0 });
  client = new MailboxClient(http, { baseUrl: stub.url, domain: 'example.com', user: 'alice' });
});
afterEach(async () => {
  await http.close();
});

describe('MailboxClient.listAll', () => {
  it('follows pages from the last id, dropping the repeated start, until a short page', async () => {
    const all = Array.from({ length: 10 }, (_, i) => id(100 - i));
    stub.on(
      'GET',
      `${BASE}/label/3`,
      (req) => {
        const count = Number(req.url.searchParams.get('count'));
        const start = req.url.searchParams.get('start');
        const from = start ? all.indexOf(start) : 0; // inclusive, like the store
        return { body: all.slice(from, from + count) };
      },
      3,
    );
    const got: string[] = [];
    for await (const m of client.listAll({ label: 3, count: 4 })) got.push(m.id);
    expect(got).toEqual(all);
    const starts = stub.requests.map((r) => [r.url.searchParams.get('start'), r.url.searchParams.get('count')]);
    expect(starts).toEqual([
      [null, '4'],
      [all[3], '5'],
      [all[7], '5'],
    ]);
  });

  it('works when the server treats start as exclusive too', async () => {
    const all = Array.from({ length: 6 }, (_, i) => id(50 + i));
    stub.on(
      'GET',
      `${BASE}/label/0`,
      (req) => {
        const count = Number(req.url.searchParams.get('count'));
        const start = req.url.searchParams.get('start');
        const from = start ? all.indexOf(start) + 1 : 0;
        expect(req.url.searchParams.get('reverse')).toBe('false');
        return { body: all.slice(from, from + count) };
      },
      3,
    );
    const got: string[] = [];
    for await (const m of client.listAll({ label: 0, count: 2, oldestFirst: true })) got.push(m.id);
    expect(got).toEqual(all);
    // 2, then 3 a page (count + 1 for the repeated start, which this server does not repeat): the short last page ends it.
    expect(stub.requests.map((r) => r.url.searchParams.get('start'))).toEqual([null, all[1], all[4]]);
  });

  it('metadata pages keep the server order of the keyed object', async () => {
    stub.on('GET', `${BASE}/label/0`, (req) => {
      expect(req.url.searchParams.get('metadata')).toBe('true');
      expect(req.url.searchParams.get('includebody')).toBe('true');
      return { body: { [id(9)]: { labels: [0], size: 1, date: 'd9' }, [id(2)]: { labels: [0], size: 2, date: 'd2' } } };
    });
    const page = await client.listPage({ label: 0, metadata: true, includeBody: true });
    expect(page.map((m) => [m.id, m.metadata?.date])).toEqual([
      [id(9), 'd9'],
      [id(2), 'd2'],
    ]);
  });
});

describe('missing messages', () => {
  it('400 "Message not found" and 404 are the same error', async () => {
    stub.on('GET', `${BASE}/message/${ID}`, { status: 400, body: { message: 'Message not found' } });
    await expect(client.get(ID)).rejects.toBeInstanceOf(MessageNotFoundError);
    stub.on('GET', `${BASE}/message/${ID}/raw`, { status: 404, body: 'nope' });
    await expect(client.raw(ID)).rejects.toThrow(`message ${ID} not found`);
  });

  it('other 400s keep the server message', async () => {
    stub.on('PUT', `${BASE}/message/${ID}`, { status: 400, body: { message: 'This label cannot be removed' } });
    const err = await client.modify(ID, { remove: [0] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect((err as Error).message).toMatch(/HTTP 400: This label cannot be removed/);
  });
});

describe('requests', () => {
  it('store streams the body with repeated label and marker parameters', async () => {
    stub.on('POST', `${BASE}/message`, (req) => {
      expect(req.url.searchParams.getAll('label')).toEqual(['1', '4']);
      expect(req.url.searchParams.getAll('marker')).toEqual(['SEEN']);
      expect(req.body).toBe('Subject: x\r\n\r\nbody');
      return { status: 201, headers: { location: `${BASE}/message/${ID}` }, body: { id: ID } };
    });
    expect(await client.store(Readable.from([Buffer.from('Subject: x\r\n'), Buffer.from('\r\nbody')]), { labels: [1, 4], markers: ['SEEN'] })).toBe(ID);
  });

  it('modify sends every change in one PUT', async () => {
    stub.on('PUT', `${BASE}/message/${ID}`, (req) => {
      const q = req.url.searchParams;
      expect([q.getAll('addlabel'), q.getAll('removelabel'), q.getAll('addmarker'), q.getAll('removemarker')]).toEqual([
        ['2', '3'],
        ['1'],
        ['SEEN'],
        ['REPLIED'],
      ]);
      return { status: 204 };
    });
    await client.modify(ID, { add: [2, 3], remove: [1], addMarkers: ['SEEN'], removeMarkers: ['REPLIED'] });
    expect(stub.requests).toHaveLength(1);
  });

  it('url returns the 307 Location without following it', async () => {
    stub.on('GET', `${BASE}/message/${ID}/url`, { status: 307, headers: { location: 'http://objects.invalid/bucket/key' } });
    expect(await client.url(ID)).toBe('http://objects.invalid/bucket/key');
    expect(stub.requests).toHaveLength(1);
  });

  it('raw asks for deflate and reports the encoding; part ids are escaped', async () => {
    stub.on('GET', `${BASE}/message/${ID}/raw`, (req) => {
      expect(req.headers['accept-encoding']).toBe('deflate');
      return { headers: { 'content-encoding': 'deflate' }, body: Buffer.from([1, 2]) };
    });
    const r = await client.raw(ID);
    expect(r.encoding).toBe('deflate');
    r.body.resume();
    stub.on('GET', `${BASE}/message/${ID}/%3Clogo%40x%3E`, {
      headers: { 'content-type': 'image/png', 'content-disposition': 'inline; filename="logo.png"' },
      body: 'PNG',
    });
    const p = await client.part(ID, '<logo@x>');
    expect(p.contentDisposition).toBe('inline; filename="logo.png"');
    p.body.resume();
  });

  it('get unwraps {message, prev, next} and plain metadata alike', () => {
    expect(processMessageBody(ID, { message: { labels: [0], size: 1, date: 'd' }, prev: id(2), next: null })).toEqual({
      id: ID,
      message: { labels: [0], size: 1, date: 'd' },
      prev: id(2),
      next: null,
    });
    expect(processMessageBody(ID, { labels: [0], size: 1, date: 'd' })).toEqual({ id: ID, message: { labels: [0], size: 1, date: 'd' } });
  });

  it('get: prev/next only when neighbours were asked for (null for none) or the server sent them', () => {
    const message = { labels: [0], size: 1, date: 'd' };
    // The store wraps every parsed message; without adjacent there are no neighbour keys at all.
    expect(processMessageBody(ID, { message })).toEqual({ id: ID, message });
    expect(Object.keys(processMessageBody(ID, { message }))).toEqual(['id', 'message']);
    // With adjacent the store leaves out a neighbour it did not find: null in the view.
    expect(processMessageBody(ID, { message, next: id(2) }, { adjacent: true })).toEqual({ id: ID, message, prev: null, next: id(2) });
    expect(processMessageBody(ID, { message }, { adjacent: true })).toEqual({ id: ID, message, prev: null, next: null });
    expect(processMessageBody(ID, { message, prev: id(3) })).toEqual({ id: ID, message, prev: id(3) });
  });
});
