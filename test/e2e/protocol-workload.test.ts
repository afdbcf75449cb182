/**
 * Workload identity tokens end to end: the built CLI signs in to the
 * emulator with a JWT of its stand-in platform issuer (RFC 7523 jwt-bearer,
 * no refresh token), and when the emulator's clock passes the access token's
 * expiry it reads the rotated file again and makes the grant again — in
 * `api --service protocol` and in `protocol request` — never a browser; a
 * file that is gone is one line, exit 4.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
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

  it('a token file that is gone is one line and exit 4, without a browser', async () => {
    const { c, file } = await signedIn();
    await expire();
    await rm(file);
    const r = await w.run(['protocol', 'request', mcp, '--method', 'ping'], { env: c.env() });
    expect(r.code).toBe(4);
    // After the session's notice (the 401 that started the renewal), the one error line.
    expect(r.stderr.trim().split('\n').at(-1)).toBe(
      `cannot renew the protocol access token: the workload identity token file ${file}, where the sign-in read it, cannot be read (ENOENT)`,
    );
    expect(await c.urls()).toEqual([]);
    expect((await stats(w)).workloadGrants).toHaveLength(1);
  });

  it('LANYARD_WORKLOAD_TOKEN: renewed from the variable as it is in the next run; unset, one line and exit 4', async () => {
    await configure(w, { workloadIdentity: true });
    const c = await newClient('allow');
    const id = await workloadClient();
    const login = await w.run(['auth', 'login', '--server', mcp, '--client-id', id], { env: c.env({ LANYARD_WORKLOAD_TOKEN: await platformJwt('env-1') }) });
    expect(login.code, login.stderr).toBe(0);
    expect(await tokensOf(c, mcp)).toMatchObject({ workloadTokenFrom: { env: 'LANYARD_WORKLOAD_TOKEN' } });
    await expire();
    const renewed = await w.run(['protocol', 'request', mcp, '--method', 'ping'], { env: c.env({ LANYARD_WORKLOAD_TOKEN: await platformJwt('env-2') }) });
    expect(renewed.code, renewed.stderr).toBe(0);
    expect((await stats(w)).workloadGrants.map((g) => g.subject)).toEqual(['env-1', 'env-2']);
    await expire();
    const unset = await w.run(['protocol', 'request', mcp, '--method', 'ping'], { env: c.env() });
    expect(unset.code).toBe(4);
    expect(unset.stderr.trim().split('\n').at(-1)).toBe(
      'cannot renew the protocol access token: LANYARD_WORKLOAD_TOKEN, where the sign-in read the workload identity token, is not set',
    );
    expect(await c.urls()).toEqual([]);
  });
});
