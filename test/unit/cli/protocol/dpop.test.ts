/**
 * DPoP-bound tokens (RFC 9449) in `protocol request` and `auth token
 * --server`, as run functions against the in-process emulator with DPoP
 * switched on (formerly spawned end to end): the nonce challenges at the
 * token endpoint and the resource, a revoked or an expired token refreshed
 * with a proof of the same key, the stateless revision, the warning of
 * auth token, and --no-dpop refused. test/e2e/protocol-dpop.test.ts keeps
 * the wiring: a spawned protocol request gets a DPoP-bound token (the server
 * refuses foreign proofs of it), and api, doctor, exec.
 */
import { describe, expect, it } from 'vitest';
import { runProtocolToken } from '../../../../src/cli/commands/auth/protocol.js';
import type { ProtocolRequestOptions } from '../../../../src/cli/commands/protocol/options.js';
import { runProtocolRequest } from '../../../../src/cli/commands/protocol/request.js';
import type { Stats } from '../../../../src/emulator/services/protocol/state.js';
import { ConsentBrowser } from '../../../fakes/consent-browser.js';
import { useEmulatorCommands } from '../on-emulator.js';

const on = useEmulatorCommands();
const mcp = () => `${on.emu.url}/mcp`;
const stats = () => on.emu.admin('protocol', 'stats') as Promise<Stats>;
const configure = (s: Record<string, unknown>) => on.emu.admin('protocol', 'configure', s);
const tokens = (): Record<string, string> | undefined => {
  const t = on.store.data.get(`protocol:${mcp()}`);
  return t === undefined ? undefined : (JSON.parse(t) as Record<string, string>);
};
const request = (b: ConsentBrowser, o: ProtocolRequestOptions & { json?: boolean }) => {
  const { json, ...opts } = o;
  return on.run((c) => runProtocolRequest(c, mcp(), opts), {
    manualClock: true,
    browser: b,
    ...(json ? { format: 'json' as const } : {}),
    env: { LANYARD_BROWSER: 'in-process' },
  });
};

/** A client signed in to the emulator's protocol server with a DPoP-bound token. */
async function dpopClient(): Promise<ConsentBrowser> {
  await configure({ dpopRequired: true, dpopNonce: true });
  const c = new ConsentBrowser();
  expect((await request(c, { method: 'ping' })).code).toBe(0);
  expect(tokens()?.tokenType).toBe('DPoP');
  return c;
}

describe('DPoP-bound tokens from the emulator', () => {
  it('the CLI gets a DPoP token through a nonce challenge, calls the server with proofs, and answers a new nonce at the resource', async () => {
    await configure({ dpopRequired: true, dpopNonce: true });
    const c = new ConsentBrowser();
    const list = await request(c, { method: 'tools/list', json: true });
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).result.tools.map((t: { name: string }) => t.name)).toContain('echo');
    const stored = tokens();
    expect(stored?.tokenType).toBe('DPoP');
    const s = await stats();
    // The first token request had no nonce: 400 use_dpop_nonce with DPoP-Nonce, then the retry passed;
    // the first resource request likewise got 401 use_dpop_nonce and was sent again.
    expect(s.dpop.nonceChallenges).toEqual({ token: 1, resource: 1 });
    expect(s.dpop.accepted.token).toBe(1);
    expect(s.dpop.refused.map((r) => r.error)).toEqual(['use_dpop_nonce', 'use_dpop_nonce']);
    const calls = s.mcpRequests.filter((m) => m.method === 'tools/list' && m.auth === 'dpop');
    expect(calls.map((m) => m.status)).toContain(401);
    expect(calls.at(-1)).toMatchObject({ status: 200, auth: 'dpop' });
    expect(s.mcpRequests.filter((m) => m.auth === 'bearer')).toEqual([]);
  });

  it('a revoked DPoP-bound token (invalid_token): refreshed with a proof of the same key, then through', async () => {
    await configure({ dpopRequired: true, dpopNonce: true });
    const c = new ConsentBrowser();
    const list = () => request(c, { method: 'tools/list', json: true });
    expect((await list()).code).toBe(0);
    await on.emu.admin('protocol', 'revoke-access-tokens', {});
    const before = await stats();
    const r = await list();
    expect(r.code, r.stderr).toBe(0);
    const s = await stats();
    // This run: invalid_token, a refresh (the token endpoint's nonce round trip, then the token), the resource's nonce
    // round trip, then through; no proof refused for anything else (a replayed or wrong-key proof would be).
    expect(s.dpop.refused.slice(before.dpop.refused.length).map((x) => `${x.where}:${x.error}`)).toEqual(['token:use_dpop_nonce', 'resource:use_dpop_nonce']);
    expect((s.tokenRequests.refresh_token ?? 0) - (before.tokenRequests.refresh_token ?? 0)).toBe(2);
    expect(s.dpop.accepted.token - before.dpop.accepted.token).toBe(1);
    expect(s.mcpRequests.slice(before.mcpRequests.length).filter((m) => m.auth !== 'dpop')).toEqual([]);
    expect(s.mcpRequests.at(-1)).toMatchObject({ status: 200, auth: 'dpop' });
    expect(tokens()?.tokenType).toBe('DPoP');
  });

  it('2026-07-28 (stateless): every request carries a DPoP proof; the nonce round trip happens as at 2025-11-25', async () => {
    await configure({ revision: '2026-07-28', dpopRequired: true, dpopNonce: true });
    const c = new ConsentBrowser();
    const r = await request(c, { method: 'tools/list', json: true });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).result.tools.map((t: { name: string }) => t.name)).toContain('echo_region');
    const s = await stats();
    expect(s.dpop.nonceChallenges).toEqual({ token: 1, resource: 1 });
    expect(s.mcpRequests.filter((m) => m.method === 'tools/list').at(-1)).toMatchObject({ status: 200, auth: 'dpop', version: '2026-07-28' });
  });

  it('after the access token expires (emulator clock advanced) the refresh carries a proof of the same key and the new token is DPoP too', async () => {
    await configure({ dpopRequired: true });
    const c = new ConsentBrowser();
    const run = () => request(c, { method: 'tools/list', json: true });
    expect((await run()).code).toBe(0);
    const before = tokens();
    on.emu.advance('301s');
    const r = await run();
    expect(r.code, r.stderr).toBe(0);
    const after = tokens();
    expect(after?.accessToken).not.toBe(before?.accessToken);
    expect(after?.tokenType).toBe('DPoP');
    const s = await stats();
    expect(s.tokenRequests.refresh_token).toBe(1);
    expect(s.authorizeRequests).toBe(1);
    expect(s.dpop.accepted.token).toBe(2);
  });

  it('lanyard auth token --server prints a DPoP-bound token, and says on stderr that it needs a proof of its key', async () => {
    const c = await dpopClient();
    const r = await on.run((ctx) => runProtocolToken(ctx, { server: mcp() }), { browser: c });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(String(tokens()?.accessToken));
    expect(r.stderr).toMatch(/this token is DPoP-bound \(RFC 9449\).*--no-dpop/);
  });

  it('with --no-dpop against a server that requires DPoP the sign-in is refused', async () => {
    await configure({ dpopRequired: true });
    const c = new ConsentBrowser();
    const r = await request(c, { method: 'tools/list', json: true, dpop: false });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/invalid_dpop_proof/);
    expect((await stats()).mcpRequests.some((m) => m.status === 200 && m.method === 'tools/list')).toBe(false);
  });
});
