/**
 * Every Set-Cookie of an answer is kept (they cannot be joined into one
 * value: an Expires date has a comma): `headers['set-cookie']` is the first,
 * headerLines() lists each in order — from a response and from the
 * HttpError of a refused one, and after a spread of the headers. A real
 * server on 127.0.0.1.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpError } from '../../../../src/core/errors.js';
import { HttpClient } from '../../../../src/core/http/client.js';
import { headerLines } from '../../../../src/core/http/stream.js';
import { FakeClock } from '../../../fakes/clock.js';

const COOKIES = ['a=1; Path=/', 'b=2; Expires=Wed, 21 Oct 2026 07:28:00 GMT', 'c=3'];
let server: Server;
let url: string;
let http: HttpClient;

beforeAll(async () => {
  server = createServer((req, res) => {
    res.setHeader('vary', ['accept', 'origin']);
    res.writeHead(req.url === '/refused' ? 400 : 200, { 'content-type': 'application/json', 'set-cookie': COOKIES });
    res.end('{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  http = new HttpClient({ clock: new FakeClock(), userAgent: 'test' });
});
afterAll(async () => {
  await http.close();
  await new Promise((r) => server.close(r));
});

const cookiesOf = (h: Readonly<Record<string, string>>) => headerLines(h).filter(([k]) => k === 'set-cookie');

describe('Set-Cookie headers', () => {
  it('a response: the first in headers, every one in order from headerLines (also after a spread); other repeats joined', async () => {
    const res = await http.request({ url: `${url}/ok` });
    await res.dump();
    expect(res.headers['set-cookie']).toBe(COOKIES[0]);
    expect(res.headers.vary).toBe('accept, origin');
    expect(cookiesOf(res.headers)).toEqual(COOKIES.map((c) => ['set-cookie', c]));
    expect(cookiesOf({ ...res.headers })).toEqual(COOKIES.map((c) => ['set-cookie', c]));
    // Not an entry of its own: JSON and Object.entries see the one field.
    expect(Object.keys(JSON.parse(JSON.stringify(res.headers)) as object).filter((k) => k === 'set-cookie')).toHaveLength(1);
  });

  it("a refused request's HttpError carries them all", async () => {
    const err = await http.request({ url: `${url}/refused` }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect(cookiesOf((err as HttpError).headers).map(([, v]) => v)).toEqual(COOKIES);
  });

  it('headers without the symbol (made by hand): their one Set-Cookie', () => {
    expect(headerLines({ 'set-cookie': 'x=1', etag: '"v"' })).toEqual([
      ['set-cookie', 'x=1'],
      ['etag', '"v"'],
    ]);
  });
});
