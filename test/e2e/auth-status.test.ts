/**
 * `auth status` judges each credential by a request it may make, and shows
 * whose it is: an installation's or a workflow's token (which the user
 * endpoint refuses with 403 although the API takes it) is valid, its kind
 * said where a user would be; a CI pre-flight with such a token exits 0.
 */
import { describe, expect, it } from 'vitest';
import type { World } from './harness.js';
import { cli, useAuthWorld } from './auth-helpers.js';

let world: World;
useAuthWorld((w) => (world = w));

interface Entry {
  service: string;
  account?: string;
  user?: string;
  tokenKind?: string;
  source: string;
  valid: boolean;
  detail?: string;
  active?: boolean;
}

const statusJson = (stdout: string) => (JSON.parse(stdout) as { accounts: Entry[] }).accounts;

async function mint(body: Record<string, unknown>): Promise<string> {
  return ((await world.admin('hosting/rate-limit-token', body)) as { token: string }).token;
}

describe('the emulator answers as the real service', () => {
  it('GET /user: 403 "Resource not accessible by integration" for installation and workflow tokens; GET /rate_limit: 200', async () => {
    for (const token of [await mint({ kind: 'installation' }), await mint({ kind: 'workflow', repository: 'mona/hello-world' })]) {
      const auth = { authorization: `Bearer ${token}` };
      const user = await fetch(`${world.url}/api/v3/user`, { headers: auth });
      expect(user.status).toBe(403);
      expect(((await user.json()) as { message: string }).message).toBe('Resource not accessible by integration');
      const rl = await fetch(`${world.url}/api/v3/rate_limit`, { headers: auth });
      expect(rl.status).toBe(200);
      await rl.arrayBuffer();
    }
    const none = await fetch(`${world.url}/api/v3/user`);
    expect(none.status).toBe(401);
    await none.arrayBuffer();
  });
});

describe('auth status with a token that acts for no user', () => {
  it('WORKFLOW_TOKEN: valid workflow token, user unknown, exit 0 (CI pre-flight)', async () => {
    const token = await mint({ kind: 'workflow', repository: 'mona/hello-world' });
    const j = await cli(world, ['auth', 'status', '--json'], { env: { WORKFLOW_TOKEN: token } });
    expect(j.code).toBe(0);
    expect(statusJson(j.stdout)).toMatchObject([{ service: 'hosting', source: 'env:WORKFLOW_TOKEN', valid: true, tokenKind: 'workflow', active: true }]);
    expect(statusJson(j.stdout)[0]!.account).toBeUndefined();
    const human = await cli(world, ['auth', 'status'], { env: { WORKFLOW_TOKEN: token } });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^hosting\t[^\t]+\t- \(active\)\tenv:WORKFLOW_TOKEN\t-\tvalid: workflow token, user unknown\t/m);
  });

  it('LANYARD_TOKEN holding an installation token: valid installation token, exit 0', async () => {
    const token = await mint({ kind: 'installation' });
    const j = await cli(world, ['auth', 'status', '--json'], { env: { LANYARD_TOKEN: token } });
    expect(j.code).toBe(0);
    expect(statusJson(j.stdout)).toMatchObject([
      { service: 'hosting', source: 'env:LANYARD_TOKEN', valid: true, tokenKind: 'installation', detail: 'installation token, user unknown' },
    ]);
    expect(j.stdout).not.toContain(token);
  });

  it('a revoked installation token is still invalid (exit 4): /rate_limit refuses it', async () => {
    const token = await mint({ kind: 'installation' });
    await world.admin('hosting/revoke-token', { token });
    const j = await cli(world, ['auth', 'status', '--json'], { env: { LANYARD_TOKEN: token } });
    expect(j.code).toBe(4);
    expect(statusJson(j.stdout)).toMatchObject([{ source: 'env:LANYARD_TOKEN', valid: false }]);
  });

  it('auth token --with-token refuses to store it as an account (exit 2) and names the variable that works', async () => {
    const token = await mint({ kind: 'installation' });
    const r = await cli(world, ['auth', 'token', '--with-token'], { input: `${token}\n` });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/acts for no user/);
    expect(r.stderr).toMatch(/LANYARD_TOKEN/);
    expect(r.stderr).not.toContain(token);
  });

  it("a user's token names its user (and kind)", async () => {
    const j = await cli(world, ['auth', 'status', '--json'], { env: { LANYARD_TOKEN: 'lyp_emulator_default_token_0000000000000001' } });
    expect(j.code).toBe(0);
    expect(statusJson(j.stdout)).toMatchObject([{ account: 'mona', user: 'mona', tokenKind: 'user', valid: true }]);
  });
});

describe('the signed-in user of each service', () => {
  it("health: the user principal name from the token's claims (not the client id), and the expiry they give", async () => {
    const issued = (await world.admin('health/issue-token', { login: 'ada@contoso.example', expiresInSec: 3599 })) as { access_token: string };
    const j = await cli(world, ['auth', 'status', '--json'], { env: { LANYARD_HEALTH_TOKEN: issued.access_token } });
    expect(j.code).toBe(0);
    const health = statusJson(j.stdout).find((e) => e.service === 'health') as Entry & { expiresAt?: string };
    expect(health).toMatchObject({ user: 'ada@contoso.example', valid: true, source: 'LANYARD_HEALTH_TOKEN' });
    const left = Date.parse(health.expiresAt!) - Date.now();
    expect(left).toBeGreaterThan(3000 * 1000);
    expect(left).toBeLessThanOrEqual(3600 * 1000);
    expect(j.stdout).not.toContain(issued.access_token);
    const human = await cli(world, ['auth', 'status'], { env: { LANYARD_HEALTH_TOKEN: issued.access_token } });
    expect(human.stdout).toMatch(/^health\t[^\t]+\tada@contoso\.example \(active\)\tLANYARD_HEALTH_TOKEN\t/m);
  });

  it('protocol: a client signed in as itself (client credentials) is the subject of its token', async () => {
    const login = await cli(world, ['auth', 'login', '--server', `${world.url}/mcp`, '--client-id', 'ctx-service', '--client-credentials'], {
      input: 'ctx-service-secret\n',
    });
    expect(login.code, login.stderr).toBe(0);
    const j = await cli(world, ['auth', 'status', '--json']);
    expect(statusJson(j.stdout).find((e) => e.service === 'protocol')).toMatchObject({ account: 'ctx-service', user: 'ctx-service', valid: true });
  });

  it('echo: the API key by a fingerprint of it, never the key', async () => {
    const key = 'AIzaSyLanyardEmulatorEchoKey0000000001';
    const j = await cli(world, ['auth', 'status', '--json'], { env: { LANYARD_API_KEY: key } });
    const echo = statusJson(j.stdout).find((e) => e.service === 'echo');
    expect(echo?.user).toMatch(/^API key [0-9a-f]{8}$/);
    expect(j.stdout).not.toContain(key);
  });
});
