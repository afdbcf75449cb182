/**
 * `lanyard protocol bridge URL` as a desktop host runs it: the protocol SDK's
 * stdio client spawns the built CLI, which reaches the emulator's protocol
 * server over streamable HTTP, signing in on the way (the stand-in browser
 * answers the consent page). stdout is read strictly by the SDK throughout.
 */
import { describe, expect, it } from 'vitest';
import type { World } from './harness.js';
import { configure, newClient, stats, tokensOf, useProtocolWorld } from './protocol-helpers.js';
import { hostBridge } from './bridge-helpers.js';

let w: World;
let mcp: string;

useProtocolWorld((world, url) => {
  w = world;
  mcp = url;
});

describe('protocol bridge against the emulator', () => {
  it('signs in on first use, lists and calls tools, forwards an elicitation to the host, ends the session when stdin closes', async () => {
    const c = await newClient('allow');
    const b = await hostBridge(mcp, { env: c.env(), args: ['--scopes', 'tools:read tools:call'] });
    const tools = await b.client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(['echo', 'time', 'confirm']);
    const r = await b.client.callTool({ name: 'echo', arguments: { text: 'through the bridge' } });
    expect(JSON.stringify(r.content)).toContain('through the bridge');
    // The server asks the host (elicitation/create on the call's event stream); the host's answer is posted back.
    const confirmed = await b.client.callTool({ name: 'confirm', arguments: { question: 'Ship it?' } });
    expect(JSON.stringify(confirmed.content)).toContain('confirmed: true');
    expect(b.elicitations).toEqual([expect.objectContaining({ message: 'Ship it?' })]);
    expect(await b.close()).toBe(0);
    expect(b.errors).toEqual([]);
    const s = await stats(w);
    expect(s.clientAnswers).toEqual([{ method: 'elicitation/create', result: { action: 'accept', content: { confirm: true } }, error: undefined }]);
    expect(s.sessionsEnded).toBe(1);
    expect(s.registrations).toBe(1);
    expect(await c.urls()).toHaveLength(1);
    expect((await tokensOf(c, mcp))?.accessToken).toBeTruthy();
    // Diagnostics on stderr, no secret there either.
    expect(b.stderr()).toMatch(/Open this URL in a browser/);
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
