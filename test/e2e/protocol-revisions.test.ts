/**
 * The context protocol's revisions end to end: the emulator's own rules of
 * the stateless 2026-07-28 revision, --protocol-version's choices, and
 * `protocol forget` through the built CLI. The client's behaviour across the
 * revisions (negotiation, headers, discovery, elicitations, lost sessions,
 * registration recovery, bad input from a server) is tested on the run
 * function in test/unit/cli/protocol/revisions.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { World } from './harness.js';
import { configure, newClient, stats, useProtocolWorld } from './protocol-helpers.js';

let w: World;
let mcp: string;

useProtocolWorld((world, url) => {
  w = world;
  mcp = url;
});

describe('2026-07-28 (stateless)', () => {
  it('the server refuses what the revision forbids: a missing header, a forged request state, initialize', async () => {
    await configure(w, { revision: '2026-07-28', open: true });
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    const post = async (body: Record<string, unknown>, headers: Record<string, string>) => {
      const r = await fetch(mcp, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, ...body }),
      });
      return { status: r.status, body: (await r.json()) as { result?: Record<string, unknown>; error?: { code: number; data?: unknown } } };
    };
    const std = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo_region' };
    const call = { method: 'tools/call', params: { name: 'echo_region', arguments: { region: 'x' }, _meta: meta } };
    expect(await post(call, std)).toMatchObject({ status: 400, body: { error: { code: -32020 } } });
    expect(await post(call, { ...std, 'mcp-param-region': '=?base64?eA==?=' })).toMatchObject({ status: 200, body: { result: { resultType: 'complete' } } });
    const ask = { method: 'tools/call', params: { name: 'confirm', arguments: { question: 'Q' }, _meta: meta } };
    const first = await post(ask, { ...std, 'mcp-name': 'confirm' });
    expect(first.body.result).toMatchObject({ resultType: 'input_required', inputRequests: { confirm: { method: 'elicitation/create' } } });
    const state = String(first.body.result!.requestState);
    const retry = (requestState: string) =>
      post(
        { ...ask, params: { ...ask.params, requestState, inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } } },
        { ...std, 'mcp-name': 'confirm' },
      );
    expect(await retry(`${state.slice(0, -2)}xx`)).toMatchObject({ status: 400, body: { error: { code: -32602 } } });
    expect((await retry(state)).body.result).toMatchObject({ resultType: 'complete', content: [{ text: 'confirmed: true' }] });
    const noCaps = await post(
      { ...ask, params: { ...ask.params, _meta: { ...meta, 'io.modelcontextprotocol/clientCapabilities': {} } } },
      { ...std, 'mcp-name': 'confirm' },
    );
    expect(noCaps).toMatchObject({ status: 400, body: { error: { code: -32021, data: { requiredCapabilities: { elicitation: {} } } } } });
    const init = await post(
      { method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } } },
      {},
    );
    expect(init).toMatchObject({ status: 400, body: { error: { code: -32022, data: { supported: ['2026-07-28'], requested: '2025-11-25' } } } });
  });
});

describe('--protocol-version', () => {
  it('an unknown one is exit 2 (the option’s choices)', async () => {
    const c = await newClient('allow');
    const bad = await w.run(['protocol', 'request', mcp, '--protocol-version', '1999-01-01'], { env: c.env() });
    expect(bad.code).toBe(2);
  });
});

describe('protocol forget', () => {
  it('lanyard protocol forget drops the tokens and the registration', async () => {
    const c = await newClient('allow');
    expect((await w.run(['protocol', 'request', mcp, '--method', 'ping'], { env: c.env() })).code).toBe(0);
    const f = await w.run(['protocol', 'forget', mcp], { env: c.env() });
    expect(f.code, f.stderr).toBe(0);
    expect(f.stderr).toMatch(/Forgot the tokens of .* and client ctxclient_/);
    expect(await c.stored()).toEqual({});
    expect((await w.run(['protocol', 'request', mcp, '--method', 'ping'], { env: c.env() })).code).toBe(0);
    expect((await stats(w)).registrations).toBe(2);
  });
});
