/**
 * How long a protocol request may wait for its answer: a tool that works
 * longer than the HTTP client's own bounds (30 s for a response head, the
 * 5 min request deadline) is still answered. The bridge leaves the bound to
 * its host (its timeouts, notifications/cancelled); `protocol request` keeps
 * the request deadline (--timeout). Live clock, kept short by giving the HTTP
 * client short bounds of its own.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HttpClient } from '../../../../src/core/http/client.js';
import { runBridge } from '../../../../src/core/protocol/bridge.js';
import { callProtocolServer } from '../../../../src/core/protocol/session.js';
import type { JsonRpcRequestWire, JsonRpcResponseWire } from '../../../../src/shared/protocol.js';
import { FakeClock } from '../../../fakes/clock.js';
import { hostHandshake, hostLines, quietBridgeDeps } from './host-stdio.js';

type Rpc = { id?: string | number; method: string; params?: { name?: string; _meta?: { progressToken?: unknown } } };

const servers: Server[] = [];
const clients: HttpClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/**
 * A server with the handshake (2025-06-18): tool `slow` answers with JSON after `ms`; tool `stream` answers
 * with an event stream, a progress notification every `ms / 8` and the result after `ms`.
 */
async function slowServer(ms: number): Promise<string> {
  const answer = (id: unknown, result: unknown) => JSON.stringify({ jsonrpc: '2.0', id, result });
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    let body = '';
    for await (const c of req) body += c;
    const m = JSON.parse(body) as Rpc;
    if (m.method === 'server/discover')
      return void res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(answer(m.id, {}).replace('"result":{}', '"error":{"code":-32601,"message":"no"}'));
    if (m.id === undefined) return void res.writeHead(202).end();
    if (m.method === 'initialize') {
      const result = { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'slow', version: '1' } };
      return void res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' }).end(answer(m.id, result));
    }
    if (m.params?.name === 'slow') {
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(answer(m.id, { content: [{ type: 'text', text: 'built' }] })), ms);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const token = m.params?._meta?.progressToken;
    let n = 0;
    const tick = setInterval(() => {
      n++;
      if (n < 8)
        return void res.write(
          `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: n } })}\n\n`,
        );
      clearInterval(tick);
      res.end(`data: ${answer(m.id, { content: [{ type: 'text', text: 'done' }] })}\n\n`);
    }, ms / 8);
    res.on('close', () => clearInterval(tick));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

/** An HTTP client whose own bounds are short: a 150 ms response head, a 400 ms request deadline (unless given). */
function shortClient(totalMs = 400): HttpClient {
  const c = new HttpClient({ clock: new FakeClock(), userAgent: 'test', timeouts: { headersMs: 150, totalMs } });
  clients.push(c);
  return c;
}

const authDeps = (http: HttpClient) => quietBridgeDeps(http, new FakeClock());

async function bridgeCall(url: string, call: JsonRpcRequestWire): Promise<Array<JsonRpcRequestWire | JsonRpcResponseWire>> {
  const lines = hostLines();
  const sent: Array<JsonRpcRequestWire | JsonRpcResponseWire> = [];
  const done = runBridge(
    authDeps(shortClient()),
    { serverUrl: url, clientInfo: { name: 'lanyard', version: '0' }, signInWaitMs: 5000 },
    {
      lines,
      send: (m) => void sent.push(m),
    },
  );
  hostHandshake(lines);
  lines.push(call);
  lines.end();
  await done;
  return sent;
}

describe('the wait for a protocol answer', () => {
  it("the bridge: a tool answered with JSON after the client's head bound and request deadline is answered, not -32051", async () => {
    const url = await slowServer(700);
    const sent = await bridgeCall(url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow', arguments: {} } });
    expect(sent.find((m) => 'id' in m && m.id === 2)).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'built' }] } });
  });

  it('the bridge: a streamed tool call that outlives the request deadline, progress arriving, ends with its result and every progress', async () => {
    const url = await slowServer(900);
    const sent = await bridgeCall(url, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'stream', arguments: {}, _meta: { progressToken: 'p' } },
    });
    expect(sent.filter((m) => 'method' in m && m.method === 'notifications/progress')).toHaveLength(7);
    expect(sent.find((m) => 'id' in m && m.id === 2)).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'done' }] } });
  });

  it('protocol request: not the 30 s head bound, but the request deadline (--timeout) still bounds the wait', async () => {
    const url = await slowServer(700);
    const call = { serverUrl: url, method: 'tools/call', params: { name: 'slow', arguments: {} }, clientInfo: { name: 'lanyard', version: '0' } };
    const r = await callProtocolServer(authDeps(shortClient(5000)), call);
    expect(r.response).toEqual({ jsonrpc: '2.0', id: expect.anything(), result: { content: [{ type: 'text', text: 'built' }] } });
    await expect(callProtocolServer(authDeps(shortClient(400)), call)).rejects.toThrow(/no complete answer within 1 s \(the request deadline\)/);
  });

  it("what each protocol POST asks of the HTTP client: no head bound, a 5 min idle bound, no deadline when the caller bounds it; Lanyard's own handshake: the client's bounds", async () => {
    const url = await slowServer(10);
    const http = shortClient();
    const request = vi.spyOn(http, 'request');
    const lines = hostLines();
    const done = runBridge(authDeps(http), { serverUrl: url, clientInfo: { name: 'lanyard', version: '0' }, signInWaitMs: 5000 }, { lines, send: () => {} });
    lines.push({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'h', version: '1' } },
    });
    lines.end();
    await done;
    const posts = request.mock.calls.map(([spec]) => spec).filter((s) => s.method === 'POST');
    expect(posts.length).toBeGreaterThan(0);
    const own = (s: (typeof posts)[number]) => ['initialize', 'notifications/initialized'].includes((s.json as { method?: string }).method ?? '');
    for (const s of posts.filter((x) => !own(x))) expect(s.timeouts).toEqual({ headersMs: 2 ** 31 - 1, bodyMs: 300_000, totalMs: 0 });
    // The handshake Lanyard sends on its own: the client's head bound and deadline (nobody else would end its wait).
    expect(posts.filter(own).map((s) => s.timeouts)).toEqual([{ bodyMs: 300_000 }, { bodyMs: 300_000 }]);
  });
});
