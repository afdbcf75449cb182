/**
 * Workload identity tokens end to end: the built CLI signs in to the
 * emulator with a JWT of its stand-in platform issuer (RFC 7523 jwt-bearer,
 * no refresh token), and when the emulator's clock passes the access token's
 * expiry it reads the rotated file again and makes the grant again — in
 * `api --service protocol` and in `protocol request` — never a browser. A
 * file that is gone, and the variable read again or unset, are tested on
 * the run functions in test/unit/cli/protocol/workload.test.ts.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { World } from './harness.js';
import { type Client, configure, newClient, stats, tokensOf, useProtocolWorld } from './protocol-helpers.js';

let w: World;
let mcp: string;

useProtocolWorld((world, url) => {
  w = world;
  mcp = url;
});

const JWT_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** A JWT of the emulator's platform issuer for `subject`. */
const platformJwt = async (subject: string) => ((await w.admin('protocol/workload-token', { subject, ttl: 3600 })) as { token: string }).token;

/** A public client allowed the jwt-bearer grant (registered as a workload's client would be, by its operator). */
async function workloadClient(): Promise<string> {
  const res = await fetch(`${w.url}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'ci job', grant_types: [JWT_GRANT], token_endpoint_auth_method: 'none' }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

/** Moves the emulator past the access token's lifetime (300 s). */
const expire = () => w.admin('advance', { seconds: 301 });

async function signedIn(): Promise<{ c: Client; file: string }> {
  await configure(w, { workloadIdentity: true });
  const c = await newClient('allow');
  const file = join(c.dir, 'workload.jwt');
  await writeFile(file, await platformJwt('job-1'), { mode: 0o600 });
  const login = await w.run(['auth', 'login', '--server', mcp, '--client-id', await workloadClient(), '--workload-token-file', file], { env: c.env() });
  expect(login.code, login.stderr).toBe(0);
  expect((await w.run(['config', 'set', 'protocol.serverUrl', mcp], { env: c.env() })).code).toBe(0);
  return { c, file };
}

describe('workload identity tokens from the emulator', () => {
  it('are renewed with the rotated file by api --service protocol and protocol request; the record keeps the path, never the JWT', async () => {
    const { c, file } = await signedIn();
    const stored = await tokensOf(c, mcp);
    expect(stored).toMatchObject({ grant: 'jwt_bearer', workloadTokenFrom: { file } });
    expect(stored?.refreshToken).toBeUndefined();
    const first = await readFile(file, 'utf8');
    expect(await readFile(join(c.dir, 'credentials.json'), 'utf8')).not.toContain(first);

    await expire();
    await writeFile(file, await platformJwt('job-2'));
    const api = await w.run(
      [
        'api',
        '--service',
        'protocol',
        '/mcp',
        '-X',
        'POST',
        '-H',
        'accept: application/json, text/event-stream',
        '-f',
        'jsonrpc=2.0',
        '-F',
        'id=1',
        '-f',
        'method=initialize',
      ],
      { env: c.env() },
    );
    expect(api.code, api.stderr).toBe(0);

    await expire();
    await writeFile(file, await platformJwt('job-3'));
    const request = await w.run(['protocol', 'request', mcp, '--method', 'tools/list', '--json'], { env: c.env() });
    expect(request.code, request.stderr).toBe(0);

    const s = await stats(w);
    expect(s.workloadGrants.map((g) => g.subject)).toEqual(['job-1', 'job-2', 'job-3']);
    expect(s.authorizeRequests).toBe(0);
    expect(await c.urls()).toEqual([]);
    expect(await tokensOf(c, mcp)).toMatchObject({ workloadTokenFrom: { file } });
    expect(await readFile(join(c.dir, 'credentials.json'), 'utf8')).not.toContain(await readFile(file, 'utf8'));
  });
});
