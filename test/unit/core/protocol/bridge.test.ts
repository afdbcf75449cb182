import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HttpClient } from '../../../../src/core/http/client.js';
import { runBridge } from '../../../../src/core/protocol/bridge.js';
import type { JsonRpcRequestWire, JsonRpcResponseWire } from '../../../../src/shared/protocol.js';
import { FakeClock } from '../../../fakes/clock.js';
import { StubHttp } from '../../../fakes/stub-http.js';
import { hostLines, quietBridgeDeps } from './host-stdio.js';

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

/** A bridge to the stub's /mcp (ports as given, else ones that never sign in), with the host's lines and what it sent the host. */
function plainBridge(deps: Partial<Parameters<typeof runBridge>[0]> = {}) {
  const lines = hostLines();
  const sent: Array<JsonRpcRequestWire | JsonRpcResponseWire> = [];
  const done = runBridge(
    { ...quietBridgeDeps(http, clock), ...deps },
    { serverUrl: `${stub.url}/mcp`, clientInfo: { name: 'lanyard', version: '0' }, signInWaitMs: 5000 },
    { lines, send: (m) => void sent.push(m) },
  );
  return { lines, sent, done };
}

const until = async (ok: () => boolean) => {
  for (let i = 0; i < 400 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(ok()).toBe(true);
};

describe('runBridge', () => {
  it('answers a host request kept waiting by a sign-in with -32050 once --sign-in-wait has passed on the clock, not before; the sign-in goes on', async () => {
    // The server wants a token; no metadata (404s): the 2025-03-26 fallback endpoints, dynamic registration.
    stub.on('POST', '/mcp', { status: 401, headers: { 'www-authenticate': 'Bearer realm="x"' }, body: {} }, 2);
    stub.on('GET', '/.well-known/oauth-authorization-server', { status: 404 });
    stub.on('POST', '/register', { status: 201, body: { client_id: 'dyn-1', token_endpoint_auth_method: 'none' } });
    const notes: string[] = [];
    const remedies: unknown[] = [];
    const presented: string[] = [];
    const ac = new AbortController();
    const { lines, sent, done } = plainBridge({
      loopbackTimeoutMs: 300_000,
      signal: ac.signal,
      notify: (l, remedy) => {
        notes.push(l);
        if (remedy) remedies.push(remedy);
      },
      // The user never comes back from the browser.
      presentAuthorizationUrl: async (url) => void presented.push(url),
    });
    lines.push({
      jsonrpc: '2.0',
      id: 7,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'h', version: '1' } },
    });
    await until(() => presented.length === 1 && clock.sleeps.includes(5000));
    clock.advance(4999);
    await new Promise((r) => setTimeout(r, 20));
    expect(sent).toEqual([]);
    clock.advance(1);
    await until(() => sent.length === 1);
    expect(sent[0]).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32050, message: expect.stringMatching(/waiting for you to sign in/), data: { reason: 'sign_in_pending', server: `${stub.url}/mcp` } },
    });
    expect(notes.join('\n')).toMatch(/answered initialize with an error: .* waits for you in the browser/);
    expect(remedies).toContainEqual({ kind: 'sign-in', service: 'protocol', serverUrl: expect.any(String) });
    // Still waiting for the browser: the host's next request is answered the same way.
    lines.push({ jsonrpc: '2.0', id: 8, method: 'tools/list' });
    await until(() => clock.sleeps.filter((s) => s === 5000).length === 2);
    clock.advance(5000);
    await until(() => sent.length === 2);
    expect((sent[1] as JsonRpcResponseWire).error?.code).toBe(-32050);
    // It joined the sign-in under way: one browser, one registration.
    expect(presented).toHaveLength(1);
    expect(stub.requests.filter((r) => r.path === '/mcp')).toHaveLength(2);
    expect(stub.requests.filter((r) => r.path === '/register')).toHaveLength(1);
    ac.abort();
    lines.end();
    await done;
  });

  it('a line that is not JSON, and a value that is not JSON-RPC, get their JSON-RPC errors; stdout gets nothing else', async () => {
    const { lines, sent, done } = plainBridge();
    lines.raw('{not json');
    lines.push({ hello: 'world' });
    lines.end();
    await done;
    expect(sent.map((m) => (m as JsonRpcResponseWire).error?.code)).toEqual([-32700, -32600]);
  });
  it("a server with the handshake: the host's initialize becomes the session's, which sends notifications/initialized itself; the host's own is not sent again", async () => {
    const replies: Record<string, (id: unknown) => { status?: number; body?: object }> = {
      // No supportedVersions: the server took the probe under an older revision's rules.
      'server/discover': (id) => ({ body: { jsonrpc: '2.0', id, result: {} } }),
      initialize: (id) => ({
        body: { jsonrpc: '2.0', id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'stub', version: '1' } } },
      }),
      'notifications/initialized': () => ({ status: 202 }),
      'tools/list': (id) => ({ body: { jsonrpc: '2.0', id, result: { tools: [] } } }),
    };
    stub.on(
      'POST',
      '/mcp',
      (req) => {
        const m = JSON.parse(req.body) as { id: unknown; method: string };
        return replies[m.method]!(m.id);
      },
      4,
    );
    const { lines, sent, done } = plainBridge();
    lines.push({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'h', version: '1' } },
    });
    lines.push({ jsonrpc: '2.0', method: 'notifications/initialized' });
    lines.push({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    await until(() => sent.some((m) => !('method' in m) && m.id === 2));
    lines.end();
    await done;
    expect(sent).toEqual([
      { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'stub', version: '1' } } },
      { jsonrpc: '2.0', id: 2, result: { tools: [] } },
    ]);
    const methods = stub.requests.filter((r) => r.path === '/mcp').map((r) => (JSON.parse(r.body) as { method: string }).method);
    expect(methods).toEqual(['server/discover', 'initialize', 'notifications/initialized', 'tools/list']);
  });
  it('calls relayed in a row abort no AbortController (on Node 20 an abort at the end of each call filled the old generation: docs/bridge.md, Memory)', async () => {
    stub.on(
      'POST',
      '/mcp',
      (req) => {
        const m = JSON.parse(req.body) as { id: unknown; method: string };
        if (m.method === 'server/discover') return { status: 400, body: { jsonrpc: '2.0', id: m.id, error: { code: -32600, message: 'no' } } };
        if (m.method === 'notifications/initialized') return { status: 202 };
        const result =
          m.method === 'initialize' ? { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'stub', version: '1' } } : { content: [] };
        return { status: 200, body: { jsonrpc: '2.0', id: m.id, result } };
      },
      53,
    );
    const { lines, sent, done } = plainBridge();
    lines.push({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'h', version: '1' } },
    });
    await until(() => sent.length === 1);
    const abort = vi.spyOn(AbortController.prototype, 'abort');
    try {
      for (let id = 1; id <= 50; id++) {
        lines.push({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: {} } });
        await until(() => sent.length === id + 1);
      }
      expect(sent.at(-1)).toEqual({ jsonrpc: '2.0', id: 50, result: { content: [] } });
      expect(abort).not.toHaveBeenCalled();
    } finally {
      abort.mockRestore();
    }
    lines.end();
    await done;
  });

  it("a stateless server (2026-07-28): initialize answered from server/discover, the host's capabilities in _meta, an input request put to the host and withdrawn when the host cancels", async () => {
    const replies: Record<string, (id: unknown) => unknown> = {
      'server/discover': (id) => ({
        jsonrpc: '2.0',
        id,
        result: {
          resultType: 'complete',
          supportedVersions: ['2026-07-28'],
          capabilities: { tools: {} },
          _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'stub', version: '2' } },
        },
      }),
      'tools/list': (id) => ({ jsonrpc: '2.0', id, result: { resultType: 'complete', tools: [{ name: 'ask', inputSchema: { type: 'object' } }] } }),
      'tools/call': (id) => ({
        jsonrpc: '2.0',
        id,
        result: { resultType: 'input_required', inputRequests: { q: { method: 'elicitation/create', params: { message: 'Sure?' } } }, requestState: 's1' },
      }),
    };
    stub.on(
      'POST',
      '/mcp',
      (req) => {
        const m = JSON.parse(req.body) as { id: unknown; method: string };
        return { status: 200, body: replies[m.method]!(m.id) as object };
      },
      3,
    );
    const { lines, sent, done } = plainBridge();
    const host = { name: 'host', version: '9' };
    lines.push({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { elicitation: {} }, clientInfo: host } });
    lines.push({ jsonrpc: '2.0', method: 'notifications/initialized' });
    lines.push({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask', arguments: {} } });
    await until(() => sent.some((m) => 'method' in m && m.method === 'elicitation/create'));
    expect(sent[0]).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'stub', version: '2' } },
    });
    const asked = sent.find((m) => 'method' in m && m.method === 'elicitation/create') as JsonRpcRequestWire;
    expect(asked.params).toEqual({ message: 'Sure?' });
    lines.push({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });
    await until(() => sent.some((m) => 'method' in m && m.method === 'notifications/cancelled'));
    lines.end();
    await done;
    expect(sent.find((m) => 'method' in m && m.method === 'notifications/cancelled')).toMatchObject({ params: { requestId: asked.id } });
    // The host's request was cancelled: no answer to it.
    expect(sent.filter((m) => !('method' in m) && m.id === 2)).toEqual([]);
    const call = stub.requests.find((r) => r.body.includes('"tools/call"'))!;
    expect(call.headers['mcp-method']).toBe('tools/call');
    expect(call.headers['mcp-name']).toBe('ask');
    expect(call.headers['mcp-protocol-version']).toBe('2026-07-28');
    expect(JSON.parse(call.body).params._meta).toEqual({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': host,
      'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
    });
    // notifications/initialized and notifications/cancelled were not posted (the revision takes no notifications).
    expect(stub.requests).toHaveLength(3);
  });
});

describe('runBridge: a host that speaks 2026-07-28 itself', () => {
  const host = { name: 'modern-host', version: '3' };
  /** The host's _meta of 2026-07-28 (with what the bridge must leave alone: a progress token, a log level, a key of its own). */
  const meta = (extra: Record<string, unknown> = {}) => ({
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': host,
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
    ...extra,
  });
  /** The server: each POST to /mcp (`times` of them) answered with the result `byMethod` gives. */
  const answerBy = (byMethod: (method: string) => unknown, times: number) =>
    stub.on(
      'POST',
      '/mcp',
      (req) => {
        const m = JSON.parse(req.body) as { id: unknown; method: string };
        return { body: { jsonrpc: '2.0', id: m.id, result: byMethod(m.method) } };
      },
      times,
    );
  const posted = () => stub.requests.filter((r) => r.path === '/mcp').map((r) => ({ headers: r.headers, body: JSON.parse(r.body) as JsonRpcRequestWire }));
  const tool = {
    name: 'deploy',
    inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, note: { type: 'string' } } },
  };

  it('is passed through: its params and _meta untouched, the transport headers added, the answers (input_required too) back unchanged; the bridge runs no rounds', async () => {
    const discovered = {
      resultType: 'complete',
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: {} },
      ttlMs: 0,
      cacheScope: 'private',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'stub', version: '2' } },
    };
    const inputRequired = {
      resultType: 'input_required',
      inputRequests: {
        ok: { method: 'elicitation/create', params: { mode: 'form', message: 'Deploy?', requestedSchema: { type: 'object', properties: {} } } },
      },
      requestState: 'state-1',
    };
    const done_ = { resultType: 'complete', content: [{ type: 'text', text: 'deployed' }] };
    let calls = 0;
    answerBy(
      (method) =>
        method === 'server/discover' ? discovered : method === 'tools/list' ? { resultType: 'complete', tools: [tool] } : ++calls === 1 ? inputRequired : done_,
      5,
    );
    const { lines, sent, done } = plainBridge();
    lines.push({ jsonrpc: '2.0', id: 'd', method: 'server/discover', params: { _meta: meta() } });
    await until(() => sent.length === 1);
    const call = { name: 'deploy', arguments: { region: 'Zürich', note: 'x' } };
    lines.push({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { ...call, _meta: meta({ progressToken: 'p1', 'io.modelcontextprotocol/logLevel': 'info', 'x.example/own': 1 }) },
    });
    await until(() => sent.length === 2);
    const again = { ...call, _meta: meta(), inputResponses: { ok: { action: 'accept', content: {} } }, requestState: 'state-1' };
    lines.push({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: again });
    await until(() => sent.length === 3);
    lines.end();
    await done;
    // The answers as the server gave them, under the host's ids; no request of the bridge's own to the host.
    expect(sent).toEqual([
      { jsonrpc: '2.0', id: 'd', result: discovered },
      { jsonrpc: '2.0', id: 7, result: inputRequired },
      { jsonrpc: '2.0', id: 8, result: done_ },
    ]);
    const out = posted();
    expect(out.map((m) => m.body.method)).toEqual(['server/discover', 'tools/list', 'tools/call', 'tools/list', 'tools/call']);
    // The host's params, _meta included, went out untouched.
    expect(out[0]!.body.params).toEqual({ _meta: meta() });
    expect(out[2]!.body.params).toEqual({ ...call, _meta: meta({ progressToken: 'p1', 'io.modelcontextprotocol/logLevel': 'info', 'x.example/own': 1 }) });
    expect(out[4]!.body.params).toEqual(again);
    // The tool's schema was read (for Mcp-Param-Region) speaking as the host, without its progress token.
    expect(out[1]!.body.params).toEqual({ _meta: meta() });
    for (const m of out) {
      expect(m.headers['mcp-protocol-version']).toBe('2026-07-28');
      expect(m.headers['mcp-method']).toBe(m.body.method);
      expect(m.headers['mcp-session-id']).toBeUndefined();
    }
    expect(out[2]!.headers['mcp-name']).toBe('deploy');
    expect(out[2]!.headers['mcp-param-region']).toBe(`=?base64?${Buffer.from('Zürich').toString('base64')}?=`);
    expect(out[2]!.headers['mcp-param-note']).toBeUndefined();
  });

  it("an error of the revision goes back as it is (the host's version header is its _meta's); a request with inline _meta needs no server/discover first", async () => {
    const refusal = {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'], requested: '2027-01-01' } },
    };
    stub.on('POST', '/mcp', { status: 400, body: refusal });
    stub.on('POST', '/mcp', (req) => ({
      body: { jsonrpc: '2.0', id: (JSON.parse(req.body) as { id: unknown }).id, result: { resultType: 'complete', tools: [] } },
    }));
    const { lines, sent, done } = plainBridge();
    lines.push({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta({ 'io.modelcontextprotocol/protocolVersion': '2027-01-01' }) } });
    await until(() => sent.length === 1);
    lines.push({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: meta() } });
    await until(() => sent.length === 2);
    lines.end();
    await done;
    expect(sent).toEqual([
      { ...refusal, id: 1 },
      { jsonrpc: '2.0', id: 2, result: { resultType: 'complete', tools: [] } },
    ]);
    expect(posted().map((m) => m.headers['mcp-protocol-version'])).toEqual(['2027-01-01', '2026-07-28']);
  });

  it("a version in the host's _meta that is not visible ASCII is not put in a header (it goes out in the body, and the server answers)", async () => {
    const mismatch = { jsonrpc: '2.0', id: null, error: { code: -32020, message: 'Header mismatch: MCP-Protocol-Version is missing' } };
    stub.on('POST', '/mcp', { status: 400, body: mismatch });
    const { lines, sent, done } = plainBridge();
    const evil = meta({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28\r\nX-Injected: 1' });
    lines.push({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: evil } });
    await until(() => sent.length === 1);
    lines.end();
    await done;
    expect(sent).toEqual([{ ...mismatch, id: 1 }]);
    const [out] = posted();
    expect(out!.headers['mcp-protocol-version']).toBeUndefined();
    expect(out!.headers['x-injected']).toBeUndefined();
    expect(out!.body.params).toEqual({ _meta: evil });
  });

  it('a cancelled request: its HTTP request is aborted, no answer goes to the host, and notifications/cancelled is not posted', async () => {
    let release!: () => void;
    stub.on('POST', '/mcp', (req) => ({
      body: {
        jsonrpc: '2.0',
        id: (JSON.parse(req.body) as { id: unknown }).id,
        result: { resultType: 'complete', supportedVersions: ['2026-07-28'], capabilities: {} },
      },
    }));
    stub.on('POST', '/mcp', () => new Promise((r) => (release = () => r({ body: {} }))));
    const { lines, sent, done } = plainBridge();
    lines.push({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta() } });
    await until(() => sent.length === 1);
    lines.push({ jsonrpc: '2.0', id: 2, method: 'resources/list', params: { _meta: meta() } });
    await until(() => stub.requests.length === 2);
    lines.push({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, reason: 'the user gave up' } });
    lines.end();
    // Ends although the server never answers: the request was aborted.
    await done;
    release();
    expect(sent).toHaveLength(1);
    expect(stub.requests).toHaveLength(2);
  });

  it('a server that needs the handshake: server/discover gets method-not-found, a request with inline _meta a -32052 error, and the fallback initialize goes straight to the handshake', async () => {
    const noSession = { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Mcp-Session-Id header required' } };
    stub.on('POST', '/mcp', { status: 400, body: noSession }, 2);
    stub.on('POST', '/mcp', (req) => {
      const m = JSON.parse(req.body) as { id: unknown };
      return {
        headers: { 'mcp-session-id': 's1' },
        body: { jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'old', version: '1' } } },
      };
    });
    stub.on('POST', '/mcp', { status: 202 });
    stub.on('GET', '/mcp', { status: 405 });
    stub.on('DELETE', '/mcp', { status: 204 });
    const notes: string[] = [];
    const { lines, sent, done } = plainBridge({ notify: (l) => void notes.push(l) });
    lines.push({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta() } });
    lines.push({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: meta() } });
    await until(() => sent.length === 2);
    const initialize = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: host };
    lines.push({ jsonrpc: '2.0', id: 3, method: 'initialize', params: initialize });
    await until(() => sent.length === 3);
    lines.end();
    await done;
    const byId = (id: number) => sent.find((m) => !('method' in m) && m.id === id);
    expect(byId(1)).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found: server/discover' } });
    expect(byId(2)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32052,
        message: expect.stringMatching(/does not speak protocol revision 2026-07-28 .*start with initialize/),
        data: { reason: 'handshake_required', server: `${stub.url}/mcp` },
      },
    });
    expect(byId(3)).toMatchObject({ result: { protocolVersion: '2025-11-25', serverInfo: { name: 'old', version: '1' } } });
    expect(notes.join('\n')).toMatch(/does not speak 2026-07-28/);
    // The host's own requests, then its initialize (no second probe), the session's notifications/initialized, its end.
    const sentOut = stub.requests.map((r) => `${r.method} ${r.body ? (JSON.parse(r.body) as { method?: string }).method : ''}`.trim());
    expect(sentOut.slice(0, 4)).toEqual(['POST server/discover', 'POST tools/list', 'POST initialize', 'POST notifications/initialized']);
    expect(JSON.parse(stub.requests[2]!.body).params).toEqual(initialize);
  });

  it('a sign-in that keeps its first request (server/discover) waiting: -32050 after --sign-in-wait, as for a host with the handshake', async () => {
    stub.on('POST', '/mcp', { status: 401, headers: { 'www-authenticate': 'Bearer realm="x"' }, body: {} });
    stub.on('GET', '/.well-known/oauth-authorization-server', { status: 404 });
    stub.on('POST', '/register', { status: 201, body: { client_id: 'dyn-1', token_endpoint_auth_method: 'none' } });
    const presented: string[] = [];
    const ac = new AbortController();
    const { lines, sent, done } = plainBridge({
      loopbackTimeoutMs: 300_000,
      signal: ac.signal,
      presentAuthorizationUrl: async (url) => void presented.push(url),
    });
    lines.push({ jsonrpc: '2.0', id: 'first', method: 'server/discover', params: { _meta: meta() } });
    await until(() => presented.length === 1 && clock.sleeps.includes(5000));
    expect(sent).toEqual([]);
    clock.advance(5000);
    await until(() => sent.length === 1);
    expect(sent[0]).toMatchObject({ id: 'first', error: { code: -32050, data: { reason: 'sign_in_pending' } } });
    // The server heard the host's request as it was, without a token yet.
    expect(JSON.parse(stub.requests[0]!.body).params).toEqual({ _meta: meta() });
    expect(stub.requests[0]!.headers['mcp-protocol-version']).toBe('2026-07-28');
    ac.abort();
    lines.end();
    await done;
  });

  it("subscriptions/listen: the stream's notifications reach the host; a stream that ends without a result ends with notifications/cancelled; stdin's end closes one still open", async () => {
    const ack = { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: { toolsListChanged: true } } };
    stub.on('POST', '/mcp', { headers: { 'content-type': 'text/event-stream' }, body: `event: message\ndata: ${JSON.stringify(ack)}\n\n` });
    stub.on('POST', '/mcp', () => new Promise(() => undefined));
    const notes: string[] = [];
    const { lines, sent, done } = plainBridge({ notify: (l) => void notes.push(l) });
    const listen = { notifications: { toolsListChanged: true }, _meta: meta() };
    lines.push({ jsonrpc: '2.0', id: 'l1', method: 'subscriptions/listen', params: listen });
    await until(() => sent.length === 2);
    expect(sent[0]).toEqual(ack);
    expect(sent[1]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 'l1', reason: expect.stringMatching(/ended without a response/) },
    });
    expect(JSON.parse(stub.requests[0]!.body).params).toEqual(listen);
    expect(stub.requests[0]!.headers['mcp-method']).toBe('subscriptions/listen');
    // The host listens again; the server keeps this one open until the host goes.
    lines.push({ jsonrpc: '2.0', id: 'l2', method: 'subscriptions/listen', params: listen });
    await until(() => stub.requests.length === 2);
    lines.end();
    await done;
    expect(sent).toHaveLength(2);
  });

  it("the host's own tools/list answer serves the Mcp-Param headers of its calls for the server's ttlMs; after that the tool is read again", async () => {
    answerBy(
      (method) =>
        method === 'tools/list' ? { resultType: 'complete', tools: [tool], ttlMs: 60_000, cacheScope: 'private' } : { resultType: 'complete', content: [] },
      4,
    );
    const { lines, sent, done } = plainBridge();
    const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'deploy', arguments: { region: 'north' }, _meta: meta() } });
    lines.push({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta() } });
    await until(() => sent.length === 1);
    lines.push(call(2));
    await until(() => sent.length === 2);
    clock.advance(60_000);
    lines.push(call(3));
    await until(() => sent.length === 3);
    lines.end();
    await done;
    const out = posted();
    expect(out.map((m) => m.body.method)).toEqual(['tools/list', 'tools/call', 'tools/list', 'tools/call']);
    expect(out.filter((m) => m.body.method === 'tools/call').map((m) => m.headers['mcp-param-region'])).toEqual(['north', 'north']);
  });
});
