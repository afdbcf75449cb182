/**
 * `auth status` judges each credential by a request it may make, and shows
 * whose it is: an installation's or a workflow's token (which the user
 * endpoint refuses with 403 although the API takes it) is valid, its kind
 * said where a user would be; a CI pre-flight with such a token exits 0. Run
 * functions against the in-process emulator (formerly spawned in
 * test/e2e/auth-status.test.ts; auth status's wiring is in
 * test/e2e/auth-tokens.test.ts and the keychain files).
 */
import { describe, expect, it } from 'vitest';
import { runProtocolLogin } from '../../../../src/cli/commands/auth/protocol.js';
import { runAuthStatus, runAuthToken } from '../../../../src/cli/commands/auth/run.js';
import { useEmulatorCommands } from '../on-emulator.js';

const cmd = useEmulatorCommands();

interface Entry {
  service: string;
  account?: string;
  user?: string;
  tokenKind?: string;
  source: string;
  valid: boolean;
  detail?: string;
  active?: boolean;
  expiresAt?: string;
}

const statusJson = (stdout: string) => (JSON.parse(stdout) as { accounts: Entry[] }).accounts;
const status = (env: NodeJS.ProcessEnv, json = true) => cmd.run((ctx) => runAuthStatus(ctx, {}), { env, ...(json ? { format: 'json' as const } : {}) });
const mint = async (body: Record<string, unknown>) => ((await cmd.emu.admin('hosting', 'rate-limit-token', body)) as { token: string }).token;

describe('the emulator answers as the real service', () => {
  it('GET /user: 403 "Resource not accessible by integration" for installation and workflow tokens; GET /rate_limit: 200', async () => {
    for (const token of [await mint({ kind: 'installation' }), await mint({ kind: 'workflow', repository: 'mona/hello-world' })]) {
      const auth = { authorization: `Bearer ${token}` };
      const user = await fetch(`${cmd.emu.url}/api/v3/user`, { headers: auth });
      expect(user.status).toBe(403);
      expect(((await user.json()) as { message: string }).message).toBe('Resource not accessible by integration');
      const rl = await fetch(`${cmd.emu.url}/api/v3/rate_limit`, { headers: auth });
      expect(rl.status).toBe(200);
      await rl.arrayBuffer();
    }
    const none = await fetch(`${cmd.emu.url}/api/v3/user`);
    expect(none.status).toBe(401);
    await none.arrayBuffer();
  });
});

describe('auth status with a token that acts for no user', () => {
  it('WORKFLOW_TOKEN: valid workflow token, user unknown, exit 0 (CI pre-flight)', async () => {
    const token = await mint({ kind: 'workflow', repository: 'mona/hello-world' });
    const j = await status({ WORKFLOW_TOKEN: token });
    expect(j.code, j.stderr).toBe(0);
    expect(statusJson(j.stdout)).toMatchObject([{ service: 'hosting', source: 'env:WORKFLOW_TOKEN', valid: true, tokenKind: 'workflow', active: true }]);
    expect(statusJson(j.stdout)[0]!.account).toBeUndefined();
    const human = await status({ WORKFLOW_TOKEN: token }, false);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^hosting\t[^\t]+\t- \(active\)\tenv:WORKFLOW_TOKEN\t-\tvalid: workflow token, user unknown\t/m);
  });

  it('LANYARD_TOKEN holding an installation token: valid installation token, exit 0', async () => {
    const token = await mint({ kind: 'installation' });
    const j = await status({ LANYARD_TOKEN: token });
    expect(j.code, j.stderr).toBe(0);
    expect(statusJson(j.stdout)).toMatchObject([
      { service: 'hosting', source: 'env:LANYARD_TOKEN', valid: true, tokenKind: 'installation', detail: 'installation token, user unknown' },
    ]);
    expect(j.stdout).not.toContain(token);
  });

  it('a revoked installation token is still invalid (exit 4): /rate_limit refuses it', async () => {
    const token = await mint({ kind: 'installation' });
    await cmd.emu.admin('hosting', 'revoke-token', { token });
    const j = await status({ LANYARD_TOKEN: token });
    expect(j.code).toBe(4);
    expect(statusJson(j.stdout)).toMatchObject([{ source: 'env:LANYARD_TOKEN', valid: false }]);
  });

  it('auth token --with-token refuses to store it as an account (exit 2) and names the variable that works', async () => {
    const token = await mint({ kind: 'installation' });
    const r = await cmd.run((ctx) => runAuthToken(ctx, { withToken: true }), { stdin: `${token}\n` });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/acts for no user/);
    expect(r.stderr).toMatch(/LANYARD_TOKEN/);
    expect(r.stderr).not.toContain(token);
    expect(cmd.store.data.size).toBe(0);
  });

  it("a user's token names its user (and kind)", async () => {
    const j = await status({ LANYARD_TOKEN: 'lyp_emulator_default_token_0000000000000001' });
    expect(j.code, j.stderr).toBe(0);
    expect(statusJson(j.stdout)).toMatchObject([{ account: 'mona', user: 'mona', tokenKind: 'user', valid: true }]);
  });
});

describe('the signed-in user of each service', () => {
  it("health: the user principal name from the token's claims (not the client id), and the expiry they give", async () => {
    const issued = (await cmd.emu.admin('health', 'issue-token', { login: 'ada@contoso.example', expiresInSec: 3599 })) as { access_token: string };
    const j = await status({ LANYARD_HEALTH_TOKEN: issued.access_token });
    expect(j.code, j.stderr).toBe(0);
    const health = statusJson(j.stdout).find((e) => e.service === 'health')!;
    expect(health).toMatchObject({ user: 'ada@contoso.example', valid: true, source: 'LANYARD_HEALTH_TOKEN' });
    const left = Date.parse(health.expiresAt!) - cmd.emu.now();
    expect(left).toBeGreaterThan(3000 * 1000);
    expect(left).toBeLessThanOrEqual(3600 * 1000);
    expect(j.stdout).not.toContain(issued.access_token);
    const human = await status({ LANYARD_HEALTH_TOKEN: issued.access_token }, false);
    expect(human.stdout).toMatch(/^health\t[^\t]+\tada@contoso\.example \(active\)\tLANYARD_HEALTH_TOKEN\t/m);
  });

  it('protocol: a client signed in as itself (client credentials) is the subject of its token', async () => {
    const login = await cmd.run((ctx) => runProtocolLogin(ctx, { server: `${cmd.emu.url}/mcp`, clientId: 'ctx-service', clientCredentials: true }), {
      stdin: 'ctx-service-secret\n',
    });
    expect(login.code, login.stderr).toBe(0);
    const j = await status({});
    expect(statusJson(j.stdout).find((e) => e.service === 'protocol')).toMatchObject({ account: 'ctx-service', user: 'ctx-service', valid: true });
  });

  it('echo: the API key by a fingerprint of it, never the key', async () => {
    const key = 'AIzaSyLanyardEmulatorEchoKey0000000001';
    const j = await status({ LANYARD_API_KEY: key });
    const echo = statusJson(j.stdout).find((e) => e.service === 'echo');
    expect(echo?.user).toMatch(/^API key [0-9a-f]{8}$/);
    expect(j.stdout).not.toContain(key);
  });
});
