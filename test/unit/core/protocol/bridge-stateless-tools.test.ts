/**
 * A host with the handshake in front of a 2026-07-28 server: the schema a tool
 * call needs (for its Mcp-Param-* headers) is read once and kept for the
 * server's ttlMs (injected clock), shared by concurrent calls, and read again
 * after the ttl or when the server says its list changed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../../src/core/http/client.js';
import { runBridge } from '../../../../src/core/protocol/bridge.js';
import { FakeClock } from '../../../fakes/clock.js';
import { StubHttp } from '../../../fakes/stub-http.js';
import { handshakeHost, quietBridgeDeps } from './host-stdio.js';

let stub: StubHttp;
let http: HttpClient;
let clock: FakeClock;

beforeEach(async () => {
  stub = await StubHttp.start();
  clock = new FakeClock(Date.UTC(2026, 10, 22, 12), { autoAdvance: false });
  http = new HttpClient({ clock, userAgent: 'test' });
});
afterEach(async () => {
  await http.close();
  await stub.close();
});

const tool = { name: 'deploy', inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } } };

/** A 2026-07-28 server answering `times` POSTs; tools/list with `ttlMs`; `listChanged`: its tools' list changes are told on subscriptions/listen. */
function statelessServer(times: number, ttlMs: number | undefined, listChanged = false) {
  stub.on(
    'POST',
    '/mcp',
    (req) => {
      const m = JSON.parse(req.body) as { id: unknown; method: string; params?: { notifications?: unknown } };
      if (m.method === 'subscriptions/listen') {
        // Acknowledged, then the list changes once, then the stream ends (the server going away).
        const frames = [
          { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: m.params?.notifications } },
          { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: {} },
          { jsonrpc: '2.0', id: m.id, result: { resultType: 'complete' } },
        ];
        return { headers: { 'content-type': 'text/event-stream' }, body: frames.map((f) => `data: ${JSON.stringify(f)}\n\n`).join('') };
      }
      const result =
        m.method === 'server/discover'
          ? { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: { tools: { listChanged } }, ttlMs: 60_000 }
          : m.method === 'tools/list'
            ? { resultType: 'complete', tools: [tool], ...(ttlMs === undefined ? {} : { ttlMs, cacheScope: 'private' }) }
            : { resultType: 'complete', content: [{ type: 'text', text: 'ok' }] };
      return { body: { jsonrpc: '2.0', id: m.id, result } };
    },
    times,
  );
}

const methods = () => stub.requests.filter((r) => r.path === '/mcp').map((r) => (JSON.parse(r.body) as { method: string }).method);
const count = (method: string) => methods().filter((m) => m === method).length;
const until = async (ok: () => boolean) => {
  for (let i = 0; i < 1000 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(ok()).toBe(true);
};

/** A bridge with a host that says initialize (2025-06-18). */
async function bridge() {
  const { lines, sent, done } = await handshakeHost(runBridge, quietBridgeDeps(http, clock), `${stub.url}/mcp`);
  let id = 0;
  const answered = (n: number) => sent.filter((m) => 'id' in m && typeof m.id === 'number' && m.id >= 1000).length >= n;
  const call = () => lines.push({ jsonrpc: '2.0', id: 1000 + id++, method: 'tools/call', params: { name: 'deploy', arguments: { region: 'eu' } } });
  return { lines, sent, done, call, answered };
}

describe('a stateless server behind a host with the handshake: the tools kept for ttlMs', () => {
  it("the host's tools/list, then 50 calls within the ttl: one tools/list on the server; after the ttl, one more", async () => {
    statelessServer(1 + 1 + 50 + 2, 60_000);
    const b = await bridge();
    b.lines.push({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    await until(() => b.sent.length === 2);
    for (let i = 0; i < 50; i++) {
      b.call();
      await until(() => b.answered(i + 1));
    }
    expect(count('tools/list')).toBe(1);
    clock.advance(60_001);
    b.call();
    await until(() => b.answered(51));
    b.lines.end();
    await b.done;
    expect(count('tools/list')).toBe(2);
    expect(count('tools/call')).toBe(51);
    // Every call carried the header its tool's schema designates.
    for (const r of stub.requests.filter((q) => JSON.parse(q.body).method === 'tools/call')) expect(r.headers['mcp-param-region']).toBe('eu');
  });

  it('20 concurrent calls with nothing kept share one lookup', async () => {
    statelessServer(1 + 1 + 20, 60_000);
    const b = await bridge();
    for (let i = 0; i < 20; i++) b.call();
    await until(() => b.answered(20));
    b.lines.end();
    await b.done;
    expect(count('tools/list')).toBe(1);
  });

  it('without a ttlMs nothing is kept: each call reads the schema', async () => {
    statelessServer(1 + 2 * 2, undefined);
    const b = await bridge();
    b.call();
    await until(() => b.answered(1));
    b.call();
    await until(() => b.answered(2));
    b.lines.end();
    await b.done;
    expect(count('tools/list')).toBe(2);
  });

  it('notifications/tools/list_changed from the server forgets what was kept (and reaches the host)', async () => {
    statelessServer(2, 60_000);
    // The first call's answer is a stream that says the list changed before its result.
    stub.on('POST', '/mcp', (req) => {
      const m = JSON.parse(req.body) as { id: unknown };
      const note = { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: {} };
      const result = { jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', content: [] } };
      return { headers: { 'content-type': 'text/event-stream' }, body: `data: ${JSON.stringify(note)}\n\ndata: ${JSON.stringify(result)}\n\n` };
    });
    statelessServer(2, 60_000);
    const b = await bridge();
    b.call();
    await until(() => b.answered(1));
    b.call();
    await until(() => b.answered(2));
    b.lines.end();
    await b.done;
    expect(methods()).toEqual(['server/discover', 'tools/list', 'tools/call', 'tools/list', 'tools/call']);
    expect(b.sent.some((m) => 'method' in m && m.method === 'notifications/tools/list_changed')).toBe(true);
  });

  it("a server whose tools' list changes (tools.listChanged): the bridge listens for it on subscriptions/listen; the host gets list_changed, not the acknowledgement", async () => {
    statelessServer(2, 60_000, true);
    const b = await bridge();
    await until(() => b.sent.some((m) => 'method' in m && m.method === 'notifications/tools/list_changed'));
    b.lines.end();
    await b.done;
    const listen = stub.requests.map((r) => JSON.parse(r.body) as { method: string; params?: unknown }).find((m) => m.method === 'subscriptions/listen');
    expect(listen?.params).toMatchObject({ notifications: { toolsListChanged: true } });
    expect(b.sent.some((m) => 'method' in m && m.method === 'notifications/subscriptions/acknowledged')).toBe(false);
  });
});
