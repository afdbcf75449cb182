/**
 * DPoP-bound tokens (RFC 9449) end to end: the built CLI against the
 * emulator's authorization server and protocol server with DPoP switched on
 * (required, with server nonces): the wiring of protocol request (a spawned
 * run gets a DPoP-bound token and the server refuses foreign proofs of it:
 * the proofs the refusal tests send are made here with jose, not with
 * Lanyard's code), api, doctor and exec. The behaviour of protocol request
 * and auth token --server with DPoP (the nonce round trips at the token
 * endpoint and the resource, a revoked or expired token refreshed with a
 * proof of the same key, the stateless revision, --no-dpop, the token's
 * warning) is tested on the run functions in test/unit/cli/protocol/dpop.test.ts.
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import type { World } from './harness.js';
import { configure, newClient, stats, tokensOf, useProtocolWorld } from './protocol-helpers.js';

let w: World;
let mcp: string;

useProtocolWorld((world, url) => {
  w = world;
  mcp = url;
});

/** `lanyard api` fields that build a JSON-RPC initialize (a body that can be sent again; it needs no session). */
const INIT_FIELDS = ['-f', 'jsonrpc=2.0', '-F', 'id=1', '-f', 'method=initialize'];

const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: {} } };

/** A proof for a POST to the protocol server, signed by a fresh key of our own. */
async function foreignProof(accessToken: string, nonce?: string): Promise<string> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const ath = createHash('sha256').update(accessToken).digest('base64url');
  return new SignJWT({ htm: 'POST', htu: mcp, jti: randomUUID(), ath, ...(nonce ? { nonce } : {}) })
    .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: await exportJWK(publicKey) })
    .setIssuedAt()
    .sign(privateKey);
}

function post(headers: Record<string, string>): Promise<Response> {
  return fetch(mcp, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', ...headers },
    body: JSON.stringify(LIST),
  });
}

describe('DPoP-bound tokens from the emulator', () => {
  it('advertises DPoP only when switched on', async () => {
    const off = (await (await fetch(`${w.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(off.dpop_signing_alg_values_supported).toBeUndefined();
    await configure(w, { dpop: true });
    const on = (await (await fetch(`${w.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
    expect(on.dpop_signing_alg_values_supported).toContain('ES256');
  });

  it('a DPoP-bound token sent as Bearer, without a proof or with the proof of another key is refused with invalid_token', async () => {
    await configure(w, { dpopRequired: true, dpopNonce: true });
    const c = await newClient('allow');
    const first = await w.run(['protocol', 'request', mcp, '--method', 'tools/list', '--json'], { env: c.env() });
    expect(first.code, first.stderr).toBe(0);
    const token = String((await tokensOf(c, mcp))?.accessToken);

    const asBearer = await post({ authorization: `Bearer ${token}` });
    expect(asBearer.status).toBe(401);
    expect(((await asBearer.json()) as { error: string }).error).toBe('invalid_token');
    expect(asBearer.headers.get('www-authenticate')).toMatch(/^DPoP /);

    const noProof = await post({ authorization: `DPoP ${token}` });
    expect(noProof.status).toBe(401);
    expect(((await noProof.json()) as { error: string }).error).toBe('invalid_dpop_proof');

    // A proof without the server's nonce: 401 use_dpop_nonce and the nonce; after a rotation that one is stale.
    const noNonce = await post({ authorization: `DPoP ${token}`, dpop: await foreignProof(token) });
    expect(noNonce.status).toBe(401);
    expect(noNonce.headers.get('www-authenticate')).toMatch(/^DPoP .*error="use_dpop_nonce"/);
    const nonce = noNonce.headers.get('dpop-nonce')!;
    expect(nonce).toBeTruthy();
    await w.admin('protocol/rotate-dpop-nonce', {});
    const stale = await post({ authorization: `DPoP ${token}`, dpop: await foreignProof(token, nonce) });
    expect(stale.status).toBe(401);
    const fresh = stale.headers.get('dpop-nonce')!;
    expect(fresh).not.toBe(nonce);

    const otherKey = await post({ authorization: `DPoP ${token}`, dpop: await foreignProof(token, fresh) });
    expect(otherKey.status).toBe(401);
    const body = (await otherKey.json()) as { error: string; error_description: string };
    expect(body).toMatchObject({ error: 'invalid_token' });
    expect(body.error_description).toMatch(/another key/);
  });

  /** A client signed in to the emulator's protocol server with a DPoP-bound token, its profile pointing there. */
  async function dpopClient() {
    await configure(w, { dpopRequired: true, dpopNonce: true });
    const c = await newClient('allow');
    expect((await w.run(['protocol', 'request', mcp, '--method', 'ping'], { env: c.env() })).code).toBe(0);
    expect((await tokensOf(c, mcp))?.tokenType).toBe('DPoP');
    expect((await w.run(['config', 'set', 'protocol.serverUrl', mcp], { env: c.env() })).code).toBe(0);
    return c;
  }

  it('lanyard api --service protocol sends the DPoP-bound token with a fresh proof per exchange: the nonce challenge, a revoked token refreshed', async () => {
    const c = await dpopClient();
    const api = () =>
      w.run(['api', '--service', 'protocol', '/mcp', '-X', 'POST', '-H', 'accept: application/json, text/event-stream', ...INIT_FIELDS], { env: c.env() });
    const mark = (await stats(w)).mcpRequests.length;
    const r = await w.run(
      ['--debug', 'api', '--service', 'protocol', '/mcp', '-X', 'POST', '-H', 'accept: application/json, text/event-stream', ...INIT_FIELDS],
      {
        env: c.env(),
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ jsonrpc: '2.0', id: 1, result: { protocolVersion: expect.any(String) } });
    // The --debug trace shows neither the token nor a proof (one could be taken again while it is fresh).
    expect(r.stderr).toMatch(/authorization: DPoP \[REDACTED\]/i);
    expect(r.stderr).toMatch(/dpop: \[REDACTED\]/i);
    expect(r.stderr).not.toMatch(/eyJ[\w-]{8,}\.[\w-]{8,}\./);
    let s = await stats(w);
    // A new run knows no nonce: 401 use_dpop_nonce, then the same request with a new proof carrying it.
    expect(s.mcpRequests.slice(mark)).toEqual([
      { method: 'initialize', status: 401, auth: 'dpop' },
      { method: 'initialize', status: 200, auth: 'dpop' },
    ]);
    expect(s.dpop.refused.map((x) => x.error)).not.toContain('invalid_dpop_proof');

    // A revoked token: invalid_token, a refresh (proof of the same key), the retry's nonce challenge, then through.
    await w.admin('protocol/revoke-access-tokens', {});
    const before = s.tokenRequests.refresh_token ?? 0;
    const again = await api();
    expect(again.code, again.stderr).toBe(0);
    s = await stats(w);
    // One refresh: its first request met the token endpoint's nonce challenge (counted too), the second got the token.
    expect(s.tokenRequests.refresh_token).toBe(before + 2);
    expect(s.dpop.accepted.token).toBe(2);
    expect(s.mcpRequests.at(-1)).toMatchObject({ status: 200, auth: 'dpop' });
    expect(s.mcpRequests.slice(mark).filter((m) => m.auth !== 'dpop')).toEqual([]);
    // Every proof was new (the emulator refuses a replayed jti) and named this request.
    expect(s.dpop.refused.filter((x) => x.error !== 'use_dpop_nonce')).toEqual([]);
  });

  it('lanyard doctor probes the protocol server with a proof', async () => {
    const c = await dpopClient();
    const doctor = await w.run(['doctor', '--json'], { env: c.env() });
    const protocol = (JSON.parse(doctor.stdout) as { services: Array<{ service: string; checks: Array<{ name: string; status: string }> }> }).services.find(
      (x) => x.service === 'protocol',
    )!;
    expect(
      protocol.checks.find((x) => x.name === 'accepted'),
      doctor.stdout,
    ).toMatchObject({ status: 'ok' });
    // The ping passed the token check (the emulator then wants a session: 400), after the nonce round trip.
    expect((await stats(w)).mcpRequests.slice(-2)).toEqual([
      { method: 'ping', status: 401, auth: 'dpop' },
      { method: 'ping', status: 400, auth: 'dpop' },
    ]);
  });

  it('lanyard exec refuses to hand a DPoP-bound token to a program (exit 1, before the program runs)', async () => {
    const c = await dpopClient();
    const ran = join(c.dir, 'child-ran');
    const exec = await w.run(['exec', '--service', 'protocol', '--', process.execPath, '-e', `require('fs').writeFileSync(${JSON.stringify(ran)}, '')`], {
      env: c.env(),
    });
    expect(exec.code).toBe(1);
    expect(exec.stderr).toMatch(/^the protocol token is DPoP-bound \(RFC 9449\).*LANYARD_DPOP=0 lanyard auth login --server/);
    expect(exec.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(ran)).toBe(false);
    expect(exec.stderr).not.toContain(String((await tokensOf(c, mcp))?.accessToken));
  });
});
