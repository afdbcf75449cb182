/**
 * A request body is framed one way, never two (RFC 9112 §6.2: a server
 * answers 400 to Content-Length with Transfer-Encoding): a caller's own
 * `Transfer-Encoding: chunked` (`api -H`) is honoured as curl does — chunks,
 * no Content-Length — a Transfer-Encoding that cannot frame a request is
 * dropped for the length, and a body without either gets its length. Against
 * a real node:http server, whose parser refuses both.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../../src/core/http/client.js';
import type { RequestSpec } from '../../../../src/core/http/types.js';
import { FakeClock } from '../../../fakes/clock.js';

let server: Server;
let url: string;
const seen: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
const client = new HttpClient({ clock: new FakeClock(), userAgent: 'lanyard/9.9.9', random: () => 0.5, maxNetworkRetries: 0 });

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      seen.push({ headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ body }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/repos/o/r/issues`;
});
afterAll(async () => {
  await client.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

/** Sends, and what the server saw: its framing headers and the body. */
async function framing(spec: Omit<RequestSpec, 'url'>) {
  seen.length = 0;
  const res = await client.request({ method: 'POST', ...spec, url });
  expect(res.status).toBe(200);
  await res.dump();
  const [s] = seen;
  return { te: s!.headers['transfer-encoding'], cl: s!.headers['content-length'], body: s!.body };
}

describe('the framing of a request body', () => {
  it("the caller's Transfer-Encoding: chunked is honoured: chunks, no Content-Length (not a 400)", async () => {
    expect(await framing({ json: { title: 't' }, headers: { 'Transfer-Encoding': 'chunked' } })).toEqual({
      te: 'chunked',
      cl: undefined,
      body: '{"title":"t"}',
    });
    // With the caller's Content-Length too: the chunked framing wins, the length is not sent.
    expect(await framing({ body: 'abc', headers: { 'transfer-encoding': 'chunked', 'content-length': '3' } })).toEqual({
      te: 'chunked',
      cl: undefined,
      body: 'abc',
    });
    expect(await framing({ body: Readable.from([Buffer.from('x'), Buffer.from('yz')]), headers: { 'Transfer-Encoding': 'chunked' } })).toEqual({
      te: 'chunked',
      cl: undefined,
      body: 'xyz',
    });
  });

  it('a Transfer-Encoding that cannot frame a request (not ending in chunked) is dropped for the length', async () => {
    expect(await framing({ body: 'héllo', headers: { 'Transfer-Encoding': 'gzip' } })).toEqual({ te: undefined, cl: '6', body: 'héllo' });
  });

  it('without one: a buffered body gets its Content-Length, a stream goes chunked', async () => {
    expect(await framing({ form: { a: 'b' } })).toEqual({ te: undefined, cl: '3', body: 'a=b' });
    expect(await framing({ body: Readable.from([Buffer.from('s')]) })).toEqual({ te: 'chunked', cl: undefined, body: 's' });
  });
});
