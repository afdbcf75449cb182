/**
 * Workload identity sign-ins (RFC 7523 jwt-bearer) renewed by
 * `protocol request` after the emulator's clock passes the access token's
 * expiry, as run functions against the in-process emulator (formerly spawned
 * end to end): a token file that is gone and an unset LANYARD_WORKLOAD_TOKEN
 * are one line and exit 4, never a browser; the variable is read again as it
 * is in the next run. test/e2e/protocol-workload.test.ts keeps the spawned
 * renewal from a rotated file through api and protocol request.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProtocolLogin } from '../../../../src/cli/commands/auth/protocol.js';
import { runProtocolRequest } from '../../../../src/cli/commands/protocol/request.js';
import type { Stats } from '../../../../src/emulator/services/protocol/state.js';
import { ConsentBrowser } from '../../../fakes/consent-browser.js';
import { type RunOptions, useEmulatorCommands } from '../on-emulator.js';

const on = useEmulatorCommands();
const mcp = () => `${on.emu.url}/mcp`;
const stats = () => on.emu.admin('protocol', 'stats') as Promise<Stats>;
const platformJwt = async (subject: string) => ((await on.emu.admin('protocol', 'workload-token', { subject, ttl: 3600 })) as { token: string }).token;
/** Past the access token's lifetime (300 s). */
const expire = () => on.emu.advance('301s');
const stored = () => JSON.parse(on.store.data.get(`protocol:${mcp()}`) ?? 'null') as Record<string, unknown> | null;

/** A public client allowed the jwt-bearer grant, as a workload's operator registers it. */
async function workloadClient(): Promise<string> {
  const res = await fetch(`${on.emu.url}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'ci job', grant_types: ['urn:ietf:params:oauth:grant-type:jwt-bearer'], token_endpoint_auth_method: 'none' }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

const browser = new ConsentBrowser('record');
const ping = (r: RunOptions = {}) =>
  on.run((c) => runProtocolRequest(c, mcp(), { method: 'ping' }), { browser, ...r, env: { LANYARD_BROWSER: 'in-process', ...r.env } });

describe('workload identity renewals', () => {
  it('a token file that is gone is one line and exit 4, without a browser', async () => {
    await on.emu.admin('protocol', 'configure', { workloadIdentity: true });
    const dir = await mkdtemp(join(tmpdir(), 'lanyard-workload-'));
    const file = join(dir, 'workload.jwt');
    await writeFile(file, await platformJwt('job-1'), { mode: 0o600 });
    const id = await workloadClient();
    const ok = await on.run((c) => runProtocolLogin(c, { server: mcp(), clientId: id, workloadTokenFile: file }), { browser });
    expect(ok.code, ok.stderr).toBe(0);
    expect(stored()).toMatchObject({ grant: 'jwt_bearer', workloadTokenFrom: { file } });
    expect(stored()?.refreshToken).toBeUndefined();
    expire();
    await rm(file);
    const r = await ping();
    expect(r.code).toBe(4);
    // After the session's notice (the 401 that started the renewal), the one error line.
    expect(r.stderr.trim().split('\n').at(-1)).toBe(
      `cannot renew the protocol access token: the workload identity token file ${file}, where the sign-in read it, cannot be read (ENOENT)`,
    );
    expect(browser.urls).toEqual([]);
    expect((await stats()).workloadGrants).toHaveLength(1);
    await rm(dir, { recursive: true, force: true });
  });

  it('LANYARD_WORKLOAD_TOKEN: renewed from the variable as it is in the next run; unset, one line and exit 4', async () => {
    await on.emu.admin('protocol', 'configure', { workloadIdentity: true });
    const id = await workloadClient();
    const login = await on.run((c) => runProtocolLogin(c, { server: mcp(), clientId: id }), {
      browser,
      env: { LANYARD_WORKLOAD_TOKEN: await platformJwt('env-1') },
    });
    expect(login.code, login.stderr).toBe(0);
    expect(stored()).toMatchObject({ workloadTokenFrom: { env: 'LANYARD_WORKLOAD_TOKEN' } });
    expire();
    const renewed = await ping({ env: { LANYARD_WORKLOAD_TOKEN: await platformJwt('env-2') } });
    expect(renewed.code, renewed.stderr).toBe(0);
    expect((await stats()).workloadGrants.map((g) => g.subject)).toEqual(['env-1', 'env-2']);
    expire();
    const unset = await ping();
    expect(unset.code).toBe(4);
    expect(unset.stderr.trim().split('\n').at(-1)).toBe(
      'cannot renew the protocol access token: LANYARD_WORKLOAD_TOKEN, where the sign-in read the workload identity token, is not set',
    );
    expect(browser.urls).toEqual([]);
  });
});
