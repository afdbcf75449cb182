/**
 * A request's event stream that the server closes before the response
 * (a proxy's cut, or a server that polls: SEP-1699), over real HTTP: each
 * resumption that brings a new event id (a priming event) shows the server
 * alive, so a long call survives any number of them, as the protocol SDK's
 * client does; resumptions that bring nothing at all give up after
 * MAX_RECONNECTS.
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

/** A server of sessions whose tools/call stream is cut after each event; `resumed(n)` answers the nth GET with Last-Event-ID. */
async function serve(resumed: (n: number, lastEventId: string) => string): Promise<{ url: string; gets: string[] }> {
  const gets: string[] = [];
  live = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const last = req.headers['last-event-id'] as string | undefined;
      if (req.method === 'GET' && last === undefined) return void res.writeHead(405).end();
      if (req.method === 'GET') {
        gets.push(last!);
        return void res.writeHead(200, { 'content-type': 'text/event-stream' }).end(resumed(gets.length, last!));
      }
      const m = body ? (JSON.parse(body) as { id?: unknown; method?: string }) : {};
      if (m.method === 'initialize') {
        const result = { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'live', version: '1' } };
        return void res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's' }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
      }
      if (m.method !== 'tools/call') return void res.writeHead(req.method === 'DELETE' ? 200 : 202).end();
      callId = m.id;
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end('id: 0\nretry: 10\ndata: \n\n');
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
});
