import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpClient } from '../../../../src/core/http/client.js';
import { LanyardError } from '../../../../src/core/errors.js';
import type { ProtocolAuthDeps } from '../../../../src/core/protocol/flow.js';
import { callProtocolServer } from '../../../../src/core/protocol/session.js';
import {
  encodeHeaderValue,
  headerAnnotations,
  keepValidTools,
  paramHeaders,
  standardHeaders,
  statelessError,
} from '../../../../src/core/protocol/stateless.js';
import { ProtocolCredentials } from '../../../../src/core/protocol/store.js';
import { FakeClock } from '../../../fakes/clock.js';
import { MemoryCredentialStore } from '../../../fakes/credential-store.js';
import { StubHttp } from '../../../fakes/stub-http.js';

describe('stateless revision: header values and tool annotations (SEP-2243)', () => {
  it('encodes values that are not plain visible ASCII, and ones that look like the sentinel', () => {
    expect(encodeHeaderValue('us-west1')).toBe('us-west1');
    expect(encodeHeaderValue('a b')).toBe('a b');
    expect(encodeHeaderValue('')).toBe('');
    expect(encodeHeaderValue('Hello, 世界')).toBe('=?base64?SGVsbG8sIOS4lueVjA==?=');
    expect(encodeHeaderValue(' padded ')).toBe('=?base64?IHBhZGRlZCA=?=');
    expect(encodeHeaderValue('line1\nline2')).toBe('=?base64?bGluZTEKbGluZTI=?=');
    expect(encodeHeaderValue('=?base64?literal?=')).toBe('=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=');
  });

  it('names the method, and the tool, prompt or resource', () => {
    expect(standardHeaders('tools/list', {})).toEqual({ 'mcp-method': 'tools/list' });
    expect(standardHeaders('tools/call', { name: 'get_weather' })).toEqual({ 'mcp-method': 'tools/call', 'mcp-name': 'get_weather' });
    expect(standardHeaders('resources/read', { uri: 'file:///a b' })['mcp-name']).toBe('file:///a b');
  });

  it('mirrors annotated arguments (nested through properties), omits null and absent ones', () => {
    const schema = {
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        n: { type: 'integer', 'x-mcp-header': 'N' },
        flag: { type: 'boolean', 'x-mcp-header': 'Flag' },
        gone: { type: 'string', 'x-mcp-header': 'Gone' },
        inner: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
        plain: { type: 'string' },
      },
    };
    expect(paramHeaders(schema, { region: 'eu', n: 42, flag: false, gone: null, inner: { zone: ' z' }, plain: 'x' })).toEqual({
      'mcp-param-Region': 'eu',
      'mcp-param-N': '42',
      'mcp-param-Flag': 'false',
      'mcp-param-Zone': '=?base64?IHo=?=',
    });
  });

  it('drops a tool whose annotations break a rule and keeps the others', () => {
    const bad = [
      { a: { type: 'string', 'x-mcp-header': '' } },
      { a: { type: 'object', 'x-mcp-header': 'A' } },
      { a: { type: 'number', 'x-mcp-header': 'A' } },
      { a: { type: 'string', 'x-mcp-header': 'Has Space' } },
      { a: { type: 'string', 'x-mcp-header': 'My' }, b: { type: 'string', 'x-mcp-header': 'my' } },
      { a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'A' } } },
    ];
    for (const properties of bad) expect(headerAnnotations({ type: 'object', properties }).ok).toBe(false);
    expect(headerAnnotations({ type: 'object', anyOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] }).ok).toBe(false);
    const warnings: string[] = [];
    const tools = [
      { name: 'good', inputSchema: { type: 'object', properties: { r: { type: 'string', 'x-mcp-header': 'R' } } } },
      { name: 'bad', inputSchema: { type: 'object', properties: bad[0] } },
      { name: 'plain', inputSchema: { type: 'object' } },
    ];
    const kept = keepValidTools({ tools, nextCursor: 'c' }, (m) => warnings.push(m)) as { tools: Array<{ name: string }>; nextCursor: string };
    expect(kept.tools.map((t) => t.name)).toEqual(['good', 'plain']);
    expect(kept.nextCursor).toBe('c');
    expect(warnings).toEqual([expect.stringContaining('"bad"')]);
  });

  it('knows a stateless server by its error codes, not by any 400', () => {
    const err = (code: number) => ({ jsonrpc: '2.0', id: 1, error: { code, message: 'm' } });
    expect(statelessError(400, err(-32022))?.code).toBe(-32022);
    expect(statelessError(400, err(-32020))?.code).toBe(-32020);
    expect(statelessError(404, err(-32601))?.code).toBe(-32601);
    expect(statelessError(400, err(-32000))).toBeUndefined();
    expect(statelessError(200, err(-32601))).toBeUndefined();
    expect(statelessError(400, 'Bad Request')).toBeUndefined();
  });
});

describe('stateless revision: a session against a stateless server', () => {
  let stub: StubHttp;
  let http: HttpClient;
  let deps: ProtocolAuthDeps & { elicit?: (p: unknown) => Promise<{ action: 'accept' | 'decline' | 'cancel'; content?: Record<string, unknown> }> };
  const notes: string[] = [];
  beforeEach(async () => {
    stub = await StubHttp.start();
    const clock = new FakeClock(Date.UTC(2026, 10, 22, 12), { autoAdvance: false });
    http = new HttpClient({ clock, userAgent: 'test' });
    notes.length = 0;
    deps = {
      http,
      clock,
      credentials: new ProtocolCredentials(new MemoryCredentialStore()),
      loopbackTimeoutMs: 60_000,
      clientSecret: async () => undefined,
      presentAuthorizationUrl: async () => undefined,
      notify: (m) => notes.push(m),
    };
  });
  afterEach(async () => {
    await http.close();
    await stub.close();
  });
  const reply = (result: unknown) => (r: { body: string }) => ({ body: { jsonrpc: '2.0', id: JSON.parse(r.body).id, result } });
  const call = (method: string, params?: unknown) =>
    callProtocolServer(deps, { serverUrl: `${stub.url}/mcp`, method, params, clientInfo: { name: 'lanyard', version: '9' } });
  const bodies = () => stub.requests.filter((q) => q.path === '/mcp' && q.method === 'POST').map((q) => JSON.parse(q.body));

  it('every request carries _meta, the version header and Mcp-Method; no initialize, no session', async () => {
    stub.on('POST', '/mcp', reply({ tools: [] }));
    const r = await call('tools/list');
    stub.verify();
    expect(r.revision).toBe('2026-07-28');
    expect(r.initialize).toBeUndefined();
    const [q] = stub.requests;
    expect(q!.headers['mcp-protocol-version']).toBe('2026-07-28');
    expect(q!.headers['mcp-method']).toBe('tools/list');
    expect(JSON.parse(q!.body).params._meta).toEqual({
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'lanyard', version: '9' },
      'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
    });
    expect(stub.requests.some((x) => x.method === 'DELETE' || x.method === 'GET')).toBe(false);
  });

  it('an unsupported version is retried once with one the server lists; none in common is an error', async () => {
    const refuse = (supported: string[]) => ({
      status: 400,
      body: { jsonrpc: '2.0', id: 1, error: { code: -32022, message: 'Unsupported protocol version', data: { supported, requested: 'x' } } },
    });
    stub.on('POST', '/mcp', refuse(['2026-07-28']));
    stub.on('POST', '/mcp', reply({ tools: [] }));
    expect((await call('tools/list')).response.result).toEqual({ tools: [] });
    expect(bodies()).toHaveLength(2);
    expect(bodies()[0].id).not.toBe(bodies()[1].id);
    stub.on('POST', '/mcp', refuse(['2099-01-01']));
    const e = await call('tools/list').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(LanyardError);
    expect(String((e as Error).message)).toMatch(/speaks 2099-01-01/);
  });

  it('a tool call reads the schema first and mirrors the designated arguments', async () => {
    const schema = { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } };
    stub.on('POST', '/mcp', reply({ tools: [{ name: 'other', inputSchema: {} }], nextCursor: 'p2' }));
    stub.on('POST', '/mcp', reply({ tools: [{ name: 'sql', inputSchema: schema }] }));
    stub.on('POST', '/mcp', reply({ content: [] }));
    await call('tools/call', { name: 'sql', arguments: { region: 'eu west' } });
    stub.verify();
    expect(bodies().map((b) => [b.method, b.params.cursor])).toEqual([
      ['tools/list', undefined],
      ['tools/list', 'p2'],
      ['tools/call', undefined],
    ]);
    const last = stub.requests.at(-1)!;
    expect(last.headers['mcp-name']).toBe('sql');
    expect(last.headers['mcp-param-region']).toBe('eu west');
  });

  it('input_required: answers the elicitation, echoes the state, new id; no state is sent when none was given', async () => {
    deps.elicit = async () => ({ action: 'accept', content: { ok: true } });
    stub.on('POST', '/mcp', reply({ tools: [] }));
    const ask = { confirm: { method: 'elicitation/create', params: { message: 'sure?', requestedSchema: { type: 'object' } } } };
    stub.on('POST', '/mcp', reply({ resultType: 'input_required', inputRequests: ask, requestState: 'opaque+1' }));
    stub.on('POST', '/mcp', reply({ resultType: 'input_required', inputRequests: ask }));
    stub.on('POST', '/mcp', reply({ resultType: 'complete', content: [{ type: 'text', text: 'done' }] }));
    const r = await call('tools/call', { name: 't', arguments: { a: 1 } });
    stub.verify();
    expect(r.response.result).toMatchObject({ content: [{ text: 'done' }] });
    const [, first, second, third] = bodies();
    expect(first.params.inputResponses).toBeUndefined();
    expect(second.params).toMatchObject({ name: 't', arguments: { a: 1 }, requestState: 'opaque+1', inputResponses: { confirm: { action: 'accept' } } });
    expect(third.params.requestState).toBeUndefined();
    expect(new Set([first.id, second.id, third.id]).size).toBe(3);
  });

  it('a result without resultType is complete; tools/list drops the malformed tool with a warning', async () => {
    stub.on(
      'POST',
      '/mcp',
      reply({ tools: [{ name: 'ok' }, { name: 'bad', inputSchema: { type: 'object', properties: { a: { type: 'number', 'x-mcp-header': 'A' } } } }] }),
    );
    const r = await call('tools/list');
    expect((r.response.result as { tools: unknown[] }).tools).toEqual([{ name: 'ok' }]);
    expect(notes.some((n) => n.includes('"bad"'))).toBe(true);
  });

  it('a refusal that is not a stateless error falls back to initialize', async () => {
    stub.on('POST', '/mcp', { status: 400, body: { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Server not initialized' } } });
    stub.on('POST', '/mcp', (r) => ({
      headers: { 'mcp-session-id': 's1' },
      body: { jsonrpc: '2.0', id: JSON.parse(r.body).id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } } },
    }));
    stub.on('POST', '/mcp', { status: 202 });
    stub.on('POST', '/mcp', reply({ tools: [] }));
    stub.on('DELETE', '/mcp', { status: 204 });
    const r = await call('tools/list');
    expect(r.revision).toBe('2025-11-25');
    expect(bodies().map((b) => b.method)).toEqual(['tools/list', 'initialize', 'notifications/initialized', 'tools/list']);
    expect(bodies()[3].params?._meta).toBeUndefined();
  });
});
