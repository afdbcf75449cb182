/**
 * `lanyard protocol bridge URL` as a desktop host runs it: the protocol SDK's
 * stdio client spawns the built CLI, which reaches the emulator's protocol
 * server over streamable HTTP, signing in on the way (the stand-in browser
 * answers the consent page). stdout is read strictly by the SDK throughout.
 */
import { describe, expect, it, vi } from 'vitest';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, cleanEnv, inSecretService, LIST_KEYCHAIN, shellQuote as q, type World } from './harness.js';
import { CONSENT_BROWSER, configure, newClient, stats, tokensOf, useProtocolWorld } from './protocol-helpers.js';
import { hostBridge, scriptedHost } from './bridge-helpers.js';
import { lock as takeLock } from 'proper-lockfile';
import { mkdir } from 'node:fs/promises';
import { serverKeyOf } from '../../src/core/protocol/endpoints.js';

let w: World;
let mcp: string;

/** The host calls confirm; the server's question reaches it (as the only one so far) and its yes comes back as the tool's answer. */
async function confirmThrough(b: Awaited<ReturnType<typeof hostBridge>>, question: string, asked: Record<string, unknown> = {}): Promise<void> {
  const confirmed = await b.client.callTool({ name: 'confirm', arguments: { question } });
  expect(JSON.stringify(confirmed.content)).toContain('confirmed: true');
  expect(b.elicitations).toEqual([expect.objectContaining({ message: question, ...asked })]);
}

useProtocolWorld((world, url) => {
  w = world;
  mcp = url;
});

describe('protocol bridge against the emulator', () => {
  it('signs in on first use, lists and calls tools, forwards an elicitation to the host, ends the session when stdin closes', async () => {
    const c = await newClient('allow');
    const b = await hostBridge(mcp, { env: c.env() });
    const tools = await b.client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(['echo', 'time', 'confirm']);
    // Signed in with tools:read (what the resource names); twenty calls at once need tools:call: one step-up for all.
    const calls = await Promise.all(
      Array.from({ length: 20 }, (_, n) => b.client.callTool({ name: 'echo', arguments: { text: `through the bridge ${n + 1}` } })),
    );
    calls.forEach((r, i) => expect(JSON.stringify(r.content)).toContain(`through the bridge ${i + 1}`));
    expect(await c.urls()).toHaveLength(2);
    // The server asks the host (elicitation/create on the call's event stream); the host's answer is posted back.
    await confirmThrough(b, 'Ship it?');
    expect(await b.close()).toBe(0);
    expect(b.errors).toEqual([]);
    const s = await stats(w);
    expect(s.clientAnswers).toEqual([{ method: 'elicitation/create', result: { action: 'accept', content: { confirm: true } }, error: undefined }]);
    expect(s.sessionsEnded).toBe(1);
    expect(s.registrations).toBe(1);
    expect(s.authorizeRequests).toBe(2);
    expect((await tokensOf(c, mcp))?.scope).toMatch(/tools:call/);
    // Diagnostics on stderr, no secret there either.
    expect(b.stderr()).toMatch(/Open this URL in a browser/);
    expect(b.stderr().match(/authorizing again/g)).toHaveLength(1);
    expect(b.stderr()).not.toMatch(/ctxat_|ctxrt_/);
  });

  it('--debug traces go to stderr, redacted; stdout stays JSON-RPC', async () => {
    const c = await newClient('allow');
    const b = await hostBridge(mcp, { env: c.env(), args: ['--debug'] });
    await b.client.listTools();
    expect(await b.close()).toBe(0);
    expect(b.errors).toEqual([]);
    expect(b.stderr()).toMatch(/POST .*\/mcp/);
    expect(b.stderr()).not.toMatch(/ctxat_|ctxrt_/);
  });

  it('event streams: notifications and the answer come through when the server answers with a stream', async () => {
    await configure(w, { sse: true });
    const c = await newClient('allow');
    const b = await hostBridge(mcp, { env: c.env() });
    const logs: unknown[] = [];
    b.client.fallbackNotificationHandler = async (n) => void logs.push(n);
    const r = await b.client.callTool({ name: 'time', arguments: {} });
    expect(JSON.stringify(r.content)).toMatch(/\d{4}-\d\d-\d\d/);
    expect(logs).toContainEqual(expect.objectContaining({ method: 'notifications/message', params: { level: 'info', data: 'handling tools/call' } }));
    expect(await b.close()).toBe(0);
    expect(b.errors).toEqual([]);
  });
});

describe('protocol bridge: a stream that breaks', () => {
  it('is resumed with Last-Event-ID: the answer, and an elicitation asked after the break, still arrive', async () => {
    await configure(w, { sse: true, breakNextStream: true });
    const c = await newClient('allow');
    const b = await hostBridge(mcp, { env: c.env(), args: ['--scopes', 'tools:read tools:call'] });
    const logs: unknown[] = [];
    b.client.fallbackNotificationHandler = async (n) => void logs.push(n);
    // initialize's answer is the stream that breaks (after its first event, a log message).
    const r = await b.client.callTool({ name: 'time', arguments: {} });
    expect(JSON.stringify(r.content)).toMatch(/\d{4}-\d\d-\d\d/);
    await configure(w, { breakNextStream: true });
    await confirmThrough(b, 'After the break?');
    expect(await b.close()).toBe(0);
    expect(b.errors).toEqual([]);
    const s = await stats(w);
    expect(s.streamsResumed).toHaveLength(2);
    // The two resumptions, besides the sessions' own server-initiated streams.
    const gets = s.mcpRequests.filter((m) => m.method === 'GET').map((m) => m.status);
    expect(gets.length).toBeGreaterThanOrEqual(2);
    expect(gets.filter((status) => status !== 200)).toEqual([]);
    expect(logs).toContainEqual(expect.objectContaining({ method: 'notifications/message' }));
  });
});

describe("protocol bridge: the host's answer met by a network failure", () => {
  it("is sent again (the emulator reset its POST), and the tool's answer arrives", async () => {
    const c = await newClient('allow');
    const elicit = async () => {
      // The next POST to /mcp — the host's answer, which the bridge posts — meets a connection reset.
      await w.admin('faults', { type: 'reset', method: 'POST', path: '/mcp', count: 1 });
      return { action: 'accept' as const, content: { confirm: true } };
    };
    const b = await hostBridge(mcp, { env: c.env(), args: ['--scopes', 'tools:read tools:call'], elicit });
    await confirmThrough(b, 'Through a reset?');
    expect(await b.close()).toBe(0);
    expect(b.errors).toEqual([]);
    const s = await stats(w);
    expect(s.clientAnswers).toEqual([{ method: 'elicitation/create', result: { action: 'accept', content: { confirm: true } }, error: undefined }]);
    // The reset was taken (by the answer's first POST), and the bridge said nothing of a lost answer.
    expect(await w.admin('faults', undefined, 'GET')).toEqual({ faults: [] });
    expect(b.stderr()).not.toMatch(/could not pass on|stays unanswered/);
  });
});

describe('the lock wait (LANYARD_LOCK_WAIT)', () => {
  it('a process that waits for another sign-in gives up after LANYARD_LOCK_WAIT, with one line; a malformed value is a usage error', async () => {
    const c = await newClient('allow');
    // Another process signing in to this server holds its lock.
    const target = join(c.dir, 'locks', `protocol-${serverKeyOf(mcp)}`.replace(/[^A-Za-z0-9._-]/g, '_'));
    await mkdir(join(c.dir, 'locks'), { recursive: true });
    const release = await takeLock(target, { realpath: false, lockfilePath: `${target}.lock`, stale: 60_000, update: 5_000 });
    try {
      const started = Date.now();
      const r = await w.run(['protocol', 'request', mcp, '--method', 'tools/list'], { env: c.env({ LANYARD_LOCK_WAIT: '1s' }) });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/cannot take the lock/);
      // The default for a sign-in is the browser timeout (5m) and more: only the setting ends it this soon.
      expect(Date.now() - started).toBeLessThan(20_000);
      const bad = await w.run(['protocol', 'request', mcp, '--method', 'tools/list'], { env: c.env({ LANYARD_LOCK_WAIT: 'soon' }) });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/LANYARD_LOCK_WAIT: invalid duration "soon"/);
    } finally {
      await release();
    }
  });
});

describe('protocol bridge to a server of 2026-07-28 (stateless)', () => {
  it('the host speaks initialize and sessions; the server gets server/discover, stateless requests with its headers, and the host answers the input request', async () => {
    await configure(w, { revision: '2026-07-28' });
    const c = await newClient('allow');
    const b = await hostBridge(mcp, { env: c.env(), args: ['--scopes', 'tools:read tools:call'] });
    // initialize was answered from server/discover.
    expect(b.client.getServerVersion()).toEqual({ name: 'lanyard-emulator-tools', version: '1.0.0' });
    expect(b.client.getServerCapabilities()).toEqual({
      tools: { listChanged: false },
      resources: { subscribe: true, listChanged: false },
      prompts: { listChanged: false },
    });
    expect(b.client.getInstructions()).toMatch(/echo_region/);
    await b.client.ping();
    const tools = await b.client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(['echo', 'time', 'confirm', 'echo_region']);
    const r = await b.client.callTool({ name: 'echo', arguments: { text: 'stateless' } });
    expect(JSON.stringify(r.content)).toContain('stateless');
    // The server checks Mcp-Param-Region against the argument: the bridge read the tool's schema.
    const region = await b.client.callTool({ name: 'echo_region', arguments: { region: 'north' } });
    expect(JSON.stringify(region.content)).toContain('region: north');
    // input_required → elicitation/create to the host → its answer and the request state go back with the retry.
    await confirmThrough(b, 'Ship it?', { mode: 'form' });
    expect(await b.close()).toBe(0);
    expect(b.errors).toEqual([]);
    const s = await stats(w);
    expect(s.clientAnswers).toEqual([{ method: 'elicitation/create', result: { action: 'accept', content: { confirm: true } } }]);
    const answered = s.mcpRequests.filter((m) => m.status === 200).map((m) => m.method);
    expect(answered).toContain('server/discover');
    expect(answered).not.toContain('initialize');
    expect(answered).not.toContain('ping');
    expect(s.mcpRequests.filter((m) => m.status >= 400 && m.status !== 401)).toEqual([]);
    expect(s.sessionsEnded).toBe(0);
    expect(await c.urls()).toHaveLength(1);
    expect(b.stderr()).not.toMatch(/ctxat_|ctxrt_/);
  });

  it("a host that declines: the server hears the decline; log messages follow the host's logging/setLevel", async () => {
    await configure(w, { revision: '2026-07-28', open: true, sse: true });
    const c = await newClient('allow');
    const b = await hostBridge(mcp, { env: c.env(), elicit: () => ({ action: 'decline' }) });
    const logs: unknown[] = [];
    b.client.fallbackNotificationHandler = async (n) => void logs.push(n);
    await b.client.callTool({ name: 'time', arguments: {} });
    expect(logs).toEqual([]);
    await b.client.setLoggingLevel('info');
    await b.client.callTool({ name: 'time', arguments: {} });
    expect(logs).toContainEqual(expect.objectContaining({ method: 'notifications/message', params: { level: 'info', data: 'handling tools/call' } }));
    const declined = await b.client.callTool({ name: 'confirm', arguments: { question: 'Really?' } });
    expect(JSON.stringify(declined.content)).toContain('the user chose decline');
    expect(await b.close()).toBe(0);
    expect(b.errors).toEqual([]);
  });
});

describe('protocol bridge for a host that speaks 2026-07-28 itself', () => {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'scripted-host', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  };

  it('to a server of 2026-07-28: its requests pass through as they are (sign-in on first use, Mcp-Param headers, a refresh after expiry), input_required goes to the host, which answers it', async () => {
    await configure(w, { revision: '2026-07-28' });
    const c = await newClient('allow');
    const h = scriptedHost(mcp, c.env(), ['--scopes', 'tools:read tools:call']);
    const discovered = await h.request('d', 'server/discover', { _meta: meta });
    expect(discovered).toMatchObject({
      id: 'd',
      result: {
        resultType: 'complete',
        supportedVersions: ['2026-07-28'],
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'lanyard-emulator-tools' } },
      },
    });
    const listed = (await h.request(1, 'tools/list', { _meta: meta })).result as { tools: Array<{ name: string }> };
    expect(listed.tools.map((t) => t.name)).toEqual(['echo', 'time', 'confirm', 'echo_region']);
    // The server checks Mcp-Param-Region against the argument.
    const region = await h.request(2, 'tools/call', { name: 'echo_region', arguments: { region: 'north' }, _meta: meta });
    expect(JSON.stringify(region.result)).toContain('region: north');
    // input_required comes back to the host as the server sent it; the bridge asks the host nothing itself.
    const call = { name: 'confirm', arguments: { question: 'Ship it?' } };
    const first = (await h.request(3, 'tools/call', { ...call, _meta: meta })).result as {
      resultType: string;
      inputRequests: Record<string, { method: string; params: unknown }>;
      requestState: string;
    };
    expect(first.resultType).toBe('input_required');
    expect(first.inputRequests.confirm).toMatchObject({ method: 'elicitation/create', params: { mode: 'form', message: 'Ship it?' } });
    expect(h.received.filter((m) => 'method' in m)).toEqual([]);
    // The access token expires (300 s; the request state lives 600 s): the next request is refused (401), the bridge refreshes and sends it again.
    await w.admin('advance', { seconds: 400 });
    const before = (await stats(w)).tokenRequests.refresh_token ?? 0;
    const answered = await h.request(4, 'tools/call', {
      ...call,
      _meta: meta,
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
      requestState: first.requestState,
    });
    expect(answered.result, JSON.stringify(answered)).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'confirmed: true' }] });
    // A method the revision dropped: the server's own refusal.
    expect(await h.request(5, 'ping', { _meta: meta })).toMatchObject({ id: 5, error: { code: -32601 } });
    h.write({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } });
    expect(await h.close()).toBe(0);
    const s = await stats(w);
    expect((s.tokenRequests.refresh_token ?? 0) - before).toBe(1);
    expect(s.clientAnswers).toEqual([{ method: 'elicitation/create', result: { action: 'accept', content: { confirm: true } } }]);
    expect(s.mcpRequests.map((m) => m.method)).not.toContain('initialize');
    // The host's own tools/list answer (ttlMs 60 s) gave the calls their Mcp-Param headers: no tools/list of the bridge's.
    expect(s.mcpRequests.filter((m) => m.method === 'tools/list' && m.status === 200)).toHaveLength(1);
    expect(s.mcpRequests.map((m) => m.method)).not.toContain('notifications/cancelled');
    // Only the 401s of the first request (no token yet) and of the expired token, and the host's ping: no header mismatch, no refused _meta.
    expect(s.mcpRequests.filter((m) => m.status >= 400 && m.status !== 401).map((m) => [m.method, m.status])).toEqual([['ping', 404]]);
    expect(s.mcpRequests.every((m) => m.status === 401 || m.version === '2026-07-28')).toBe(true);
    expect(await c.urls()).toHaveLength(1);
    expect(h.stderr()).not.toMatch(/ctxat_|ctxrt_/);
  });

  it('to a server with the handshake: server/discover is answered method-not-found, and the fallback initialize works', async () => {
    const c = await newClient('allow');
    const h = scriptedHost(mcp, c.env());
    expect(await h.request('d', 'server/discover', { _meta: meta })).toEqual({
      jsonrpc: '2.0',
      id: 'd',
      error: { code: -32601, message: 'Method not found: server/discover' },
    });
    const init = await h.request(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'scripted-host', version: '1' } });
    expect(init).toMatchObject({ id: 1, result: { protocolVersion: '2025-11-25' } });
    h.write({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const listed = (await h.request(2, 'tools/list', {})).result as { tools: Array<{ name: string }> };
    expect(listed.tools.map((t) => t.name)).toContain('echo');
    expect(await h.close()).toBe(0);
    expect(h.stderr()).toMatch(/does not speak 2026-07-28/);
    const s = await stats(w);
    // The host's probe once (after the sign-in), then the handshake with no second probe; the session is ended.
    // (The session's own server-initiated stream, a GET, aside.)
    expect(s.mcpRequests.filter((m) => m.status !== 401 && m.method !== 'GET').map((m) => m.method)).toEqual([
      'server/discover',
      'initialize',
      'notifications/initialized',
      'tools/list',
      'DELETE',
    ]);
    expect(s.sessionsEnded).toBe(1);
  });
});

describe('protocol bridge: many at once, recovery, a sign-in that waits', () => {
  it('four bridges started at once after the access token expired: one refresh, all four work, still signed in', async () => {
    const c = await newClient('allow');
    expect((await w.run(['protocol', 'request', mcp], { env: c.env() })).code).toBe(0);
    await w.admin('advance', { seconds: 600 });
    const before = (await stats(w)).tokenRequests;
    const bridges = await Promise.all([0, 1, 2, 3].map(() => hostBridge(mcp, { env: c.env() })));
    const lists = await Promise.all(bridges.map((b) => b.client.listTools()));
    for (const l of lists) expect(l.tools.map((t) => t.name)).toContain('echo');
    const codes = await Promise.all(bridges.map((b) => b.close()));
    expect(codes).toEqual([0, 0, 0, 0]);
    for (const b of bridges) expect(b.errors).toEqual([]);
    const s = await stats(w);
    expect((s.tokenRequests.refresh_token ?? 0) - (before.refresh_token ?? 0)).toBe(1);
    expect(s.refreshReuseDetected).toBe(0);
    expect(s.tokenRequests.authorization_code).toBe(before.authorization_code);
    // Still signed in: the next call needs no browser.
    const again = await w.run(['protocol', 'request', mcp, '--method', 'ping'], { env: c.env() });
    expect(again.code, again.stderr).toBe(0);
    expect(await c.urls()).toHaveLength(1);
  });

  it('four bridges started at once with nothing stored: one sign-in, one registration', async () => {
    const c = await newClient('allow');
    const bridges = await Promise.all([0, 1, 2, 3].map(() => hostBridge(mcp, { env: c.env() })));
    await Promise.all(bridges.map((b) => b.client.ping()));
    expect(await Promise.all(bridges.map((b) => b.close()))).toEqual([0, 0, 0, 0]);
    for (const b of bridges) expect(b.errors).toEqual([]);
    const s = await stats(w);
    expect(s.registrations).toBe(1);
    expect(s.tokenRequests.authorization_code).toBe(1);
    expect(await c.urls()).toHaveLength(1);
  });

  it('a server that forgot the registration: the bridge registers again and goes on', async () => {
    const c = await newClient('allow');
    expect((await w.run(['protocol', 'request', mcp], { env: c.env() })).code).toBe(0);
    const reg = Object.entries(await c.stored()).find(([k]) => k.startsWith('protocol-client:'))![1] as { clientId: string };
    await w.admin('protocol/delete-client', { client_id: reg.clientId });
    await w.admin('advance', { seconds: 600 });
    const b = await hostBridge(mcp, { env: c.env() });
    const r = await b.client.callTool({ name: 'echo', arguments: { text: 'again' } });
    expect(JSON.stringify(r.content)).toContain('again');
    expect(await b.close()).toBe(0);
    expect(b.errors).toEqual([]);
    expect(b.stderr()).toMatch(/invalid_client/);
    expect((await stats(w)).registrations).toBe(2);
  });

  it('while the sign-in waits for the user the host gets an error, not a hang; the host going away (stdin, SIGTERM) does not lose the sign-in', async () => {
    const c = await newClient('record');
    const t = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'protocol', 'bridge', mcp, '--sign-in-wait', '1s'],
      env: cleanEnv(c.env()),
      stderr: 'pipe',
    });
    let stderr = '';
    t.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const got: JSONRPCMessage[] = [];
    const errors: Error[] = [];
    t.onmessage = (m) => void got.push(m);
    t.onerror = (e) => void errors.push(e);
    await t.start();
    const child = (t as unknown as { _process: ChildProcess })._process;
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    await t.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host', version: '1' } },
    });
    for (let i = 0; i < 200 && !got.length; i++) await new Promise((r) => setTimeout(r, 50));
    expect(got).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32050, message: expect.stringMatching(/waiting for you to sign in/), data: { reason: 'sign_in_pending', server: mcp } },
      },
    ]);
    expect(stderr).toMatch(/Open this URL in a browser/);
    expect(stderr).toMatch(/answered initialize with an error/);
    expect(stderr).toContain(`run \`lanyard auth login --server ${mcp}\``);
    // The browser is a process of its own: the URL is in its log once it has started, not when the bridge says it opened it.
    const url = await vi.waitFor(
      async () => {
        const [opened] = await c.urls();
        if (!opened) throw new Error('the browser has not recorded the sign-in URL');
        return opened;
      },
      { timeout: 15_000, interval: 50 },
    );
    // The host gives up as the SDK's close does (stdin, then SIGTERM); the user answers the consent page afterwards.
    child.stdin!.end();
    child.kill('SIGTERM');
    for (let i = 0; i < 100 && !/finishing it before exiting/.test(stderr); i++) await new Promise((r) => setTimeout(r, 50));
    expect(spawnSync(process.execPath, [CONSENT_BROWSER, url], { env: { ...process.env, LANYARD_TEST_CONSENT: 'allow' } }).status).toBe(0);
    expect(await exited).not.toBeNull();
    expect(stderr).toMatch(/finishing it before exiting/);
    expect(errors).toEqual([]);
    expect((await tokensOf(c, mcp))?.accessToken).toBeTruthy();
    // The next start finds the tokens: no browser.
    const next = await hostBridge(mcp, { env: c.env() });
    expect((await next.client.listTools()).tools.length).toBeGreaterThan(0);
    expect(await next.close()).toBe(0);
    expect(await c.urls()).toHaveLength(1);
  });
});

describe('protocol bridge with a real Secret Service', () => {
  it('tokens and registration go to the OS keychain, not the file; the next bridge signs in from there; stdout is JSON-RPC lines', async () => {
    const c = await newClient('allow');
    const home = await mkdtemp(join(tmpdir(), 'lanyard-bridge-keyring-'));
    const lines = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'sh', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ].map((m) => q(JSON.stringify(m)));
    const run = (n: number) => `printf '%s\\n' ${lines.join(' ')} | $LY protocol bridge ${q(mcp)} > ${q(join(home, `out${n}.jsonl`))}; echo "rc${n}=$?"`;
    const r = inSecretService([run(1), run(2), LIST_KEYCHAIN].join('\n'), { ...c.env(), HOME: home });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('rc1=0');
    expect(r.stdout).toContain('rc2=0');
    const accounts = JSON.parse(/KEYCHAIN=(.*)/.exec(r.stdout)![1]!) as string[];
    expect(accounts).toContain(`protocol:${mcp}`);
    expect(accounts.some((a) => a.startsWith('protocol-client:'))).toBe(true);
    expect(await c.stored()).toEqual({});
    expect(await c.urls()).toHaveLength(1);
    for (const n of [1, 2]) {
      const out = (await readFile(join(home, `out${n}.jsonl`), 'utf8')).split('\n').filter(Boolean);
      const msgs = out.map((l) => JSON.parse(l) as { jsonrpc: string; id: number; result?: { tools?: Array<{ name: string }> } });
      expect(msgs.map((m) => [m.jsonrpc, m.id])).toEqual([
        ['2.0', 1],
        ['2.0', 2],
      ]);
      expect(msgs[1]!.result!.tools!.map((t) => t.name)).toContain('echo');
    }
    expect(r.stderr).not.toMatch(/ctxat_|ctxrt_/);
    await rm(home, { recursive: true, force: true });
  });
});
