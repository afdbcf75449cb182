/**
 * A request's event stream that the server closes before the response
 * (a proxy's cut, or a server that polls: SEP-1699), over real HTTP: each
 * resumption that brings a new event id (a priming event) shows the server
 * alive, so a long call survives any number of them, as the protocol SDK's
 * client does; resumptions that bring nothing at all give up after
 * MAX_RECONNECTS. A stream the network cuts is resumed as one the server
 * ends; a resumption that meets a 5xx is tried again, a 404 ends the call.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../../src/core/http/client.js';
import { MAX_RECONNECTS } from '../../../../src/core/protocol/authorized-transport.js';
import { systemClock } from '../../../../src/core/system-clock.js';
import { sessionWith } from './fake-session-server.js';

let live: Server;
let http: HttpClient;
afterEach(async () => {
  await http?.close();
  live?.closeAllConnections();
  await new Promise((r) => live?.close(r));
});

/**
 * A server of sessions whose tools/call stream is cut after its first event (`reset`: the socket is
 * destroyed, not ended); `resumed(n)` answers the nth GET with Last-Event-ID (a number: that status).
 */
async function serve(resumed: (n: number, lastEventId: string) => string | number, reset = false): Promise<{ url: string; gets: string[] }> {
  const gets: string[] = [];
  live = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const last = req.headers['last-event-id'] as string | undefined;
      if (req.method === 'GET' && last === undefined) return void res.writeHead(405).end();
      if (req.method === 'GET') {
        gets.push(last!);
        const r = resumed(gets.length, last!);
        if (typeof r === 'number') return void res.writeHead(r).end();
        return void res.writeHead(200, { 'content-type': 'text/event-stream' }).end(r);
      }
      const m = body ? (JSON.parse(body) as { id?: unknown; method?: string }) : {};
      if (m.method === 'initialize') {
        const result = { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'live', version: '1' } };
        return void res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's' }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
      }
      if (m.method !== 'tools/call') return void res.writeHead(req.method === 'DELETE' ? 200 : 202).end();
      callId = m.id;
      const head = res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (!reset) return void head.end('id: 0\nretry: 10\ndata: \n\n');
      head.write('id: 0\nretry: 10\ndata: \n\n', () => setTimeout(() => req.socket.destroy(), 20));
    });
  });
  await new Promise<void>((r) => live.listen(0, '127.0.0.1', () => r()));
  http = new HttpClient({ clock: systemClock, userAgent: 'test' });
  return { url: `http://127.0.0.1:${(live.address() as AddressInfo).port}/mcp`, gets };
}
let callId: unknown;
const answer = (id: number) => `id: ${id}\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: callId, result: { content: [] } })}\n\n`;

describe("a request's stream cut before its response", () => {
  it(`is resumed as long as each resumption brings a new event id: the answer after ${MAX_RECONNECTS * 2} cuts`, async () => {
    const rounds = MAX_RECONNECTS * 2;
    const { url, gets } = await serve((n) => (n < rounds ? `id: ${n}\nretry: 10\ndata: \n\n` : answer(n)));
    const s = sessionWith(http, systemClock, {}, url);
    await s.start();
    await s.initialize();
    const r = await s.request('tools/call', { name: 'slow', arguments: {} });
    expect(r.result).toEqual({ content: [] });
    expect(gets).toEqual(Array.from({ length: rounds }, (_, i) => String(i)));
    await s.close();
  });

  it(`gives up after ${MAX_RECONNECTS} resumptions that bring nothing`, async () => {
    const { url, gets } = await serve(() => '');
    const s = sessionWith(http, systemClock, {}, url);
    await s.start();
    await s.initialize();
    await expect(s.request('tools/call', { name: 'slow', arguments: {} })).rejects.toThrow(`broke ${MAX_RECONNECTS} times without a response`);
    expect(gets).toHaveLength(MAX_RECONNECTS);
    await s.close();
  });

  it('a stream the network cuts (the socket reset, not ended) is resumed too', async () => {
    const { url, gets } = await serve((n) => answer(n), true);
    const s = sessionWith(http, systemClock, {}, url);
    await s.start();
    await s.initialize();
    const r = await s.request('tools/call', { name: 'slow', arguments: {} });
    expect(r.result).toEqual({ content: [] });
    expect(gets).toEqual(['0']);
    await s.close();
  });

  it('a resumption refused with 503 is tried again; a 404 ends the call', async () => {
    const { url, gets } = await serve((n) => (n === 1 ? 503 : answer(n)));
    const s = sessionWith(http, systemClock, {}, url);
    await s.start();
    await s.initialize();
    expect((await s.request('tools/call', { name: 'slow', arguments: {} })).result).toEqual({ content: [] });
    expect(gets).toEqual(['0', '0']);
    await s.close();
    live.closeAllConnections();
    await new Promise((r) => live.close(r));
    await http.close();
    const second = await serve(() => 404);
    const t = sessionWith(http, systemClock, {}, second.url);
    await t.start();
    await t.initialize();
    await expect(t.request('tools/call', { name: 'slow', arguments: {} })).rejects.toThrow('(GET with Last-Event-ID) failed: HTTP 404');
    expect(second.gets).toEqual(['0']);
    await t.close();
  });
});
