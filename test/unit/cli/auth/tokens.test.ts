/**
 * Hosting tokens as run functions against the in-process emulator (formerly
 * spawned in test/e2e/auth-tokens.test.ts, which keeps the wiring: stdin and
 * the 0600 file through the program, a terminal on stdin, --basic-client):
 * --with-token's validation, auth token create, auth status's exit codes and
 * JSON, other services' lines, the credential precedence, logout, and the
 * token limit as the CLI meets it.
 */
import { describe, expect, it } from 'vitest';
import { runAuthDevice, runAuthLogout, runAuthStatus, runAuthToken, runAuthTokenCreate } from '../../../../src/cli/commands/auth/run.js';
import { type RunOptions, useEmulatorCommands } from '../on-emulator.js';

const cmd = useEmulatorCommands();
const APP = { clientId: 'lanyard-cli-emulator' };
const MONA = { login: 'mona', password: 'lanyard-emulator-password' };
const PERSONAL_TOKEN = 'lyp_emulator_default_token_0000000000000001';
const stored = () => Object.fromEntries(cmd.store.data);

interface StatusJson {
  accounts: Array<{ service: string; account?: string; source: string; valid: boolean; active?: boolean; token?: string; scopes?: string[] }>;
}
interface TokenInfo {
  value: string;
  kind: string;
  note: string | null;
  scopes: string[];
  revoked: boolean;
}
const tokens = async (filter: Record<string, string> = {}) => ((await cmd.emu.admin('hosting', 'tokens', filter)) as { tokens: TokenInfo[] }).tokens;
const token = (r: RunOptions = {}) => cmd.run((ctx) => runAuthToken(ctx, {}), r);
const withToken = (input: string) => cmd.run((ctx) => runAuthToken(ctx, { withToken: true }), { stdin: input });
const status = (o: Parameters<typeof runAuthStatus>[1] = {}, r: RunOptions = {}) => cmd.run((ctx) => runAuthStatus(ctx, o), { format: 'json', ...r });
async function userStatus(t: string): Promise<number> {
  const res = await fetch(`${cmd.emu.url}/api/v3/user`, { headers: { authorization: `Bearer ${t}` } });
  await res.arrayBuffer();
  return res.status;
}
async function deviceLogin(scopes?: string): Promise<void> {
  cmd.answerDevice();
  const r = await cmd.run((ctx) => runAuthDevice(ctx, { scopes }));
  expect(r.code, r.stderr).toBe(0);
}

describe('auth token --with-token', () => {
  it('validates the token with /user and stores it; auth token prints it', async () => {
    const r = await withToken(`${PERSONAL_TOKEN}\n`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Logged in as mona');
    expect(r.stdout + r.stderr).not.toContain(PERSONAL_TOKEN);
    expect(Object.keys(stored())).toContain(`hosting:${new URL(cmd.emu.url).host}:mona`);
    expect((await token()).stdout).toBe(`${PERSONAL_TOKEN}\n`);
  });

  it('a token the server refuses is not stored (exit 4)', async () => {
    const r = await withToken('lyo_not_a_real_token');
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/refused/);
    expect(stored()).toEqual({});
  });

  it('the budget spent (GET /user names the login): exit 3 at once, one line saying nothing was stored, and when the budget resets', async () => {
    await cmd.emu.budget({ login: 'mona', remaining: 0, resetInSeconds: 600 });
    const r = await withToken(`${PERSONAL_TOKEN}\n`);
    expect(r.code).toBe(3);
    expect(r.clock.sleeps).toEqual([]);
    const [line, hint, ...rest] = r.stderr.trim().split('\n');
    expect(line).toMatch(/^the token was not stored: GET \/user, which names the account it is stored under, was refused: API rate limit exceeded/);
    expect(hint).toMatch(/^the budget resets at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d local time \(in 10m\); rerun with --wait/);
    expect(rest).toEqual([]);
    expect(r.stdout + r.stderr).not.toContain(PERSONAL_TOKEN);
    expect(stored()).toEqual({});
  });

  it('empty stdin is a usage error (exit 2)', async () => {
    const r = await withToken('');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no token on standard input/);
  });

  it('auth token without any credential: exit 4 with a hint', async () => {
    const r = await token();
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/auth device/);
  });
});

describe('auth token create (non-web flow)', () => {
  it('creates a personal access token with Basic authentication, password from stdin', async () => {
    const r = await cmd.run((ctx) => runAuthTokenCreate(ctx, { user: 'mona', scopes: 'repo gist', note: 'ci laptop' }), { stdin: `${MONA.password}\n` });
    expect(r.code, r.stderr).toBe(0);
    const created = (await tokens({ login: 'mona' })).find((t) => t.note === 'ci laptop')!;
    expect(created.kind).toBe('personal');
    expect(created.scopes).toEqual(['repo', 'gist']);
    expect(r.stdout + r.stderr).not.toContain(created.value);
    expect(r.stdout + r.stderr).not.toContain(MONA.password);
    expect((await token()).stdout).toBe(`${created.value}\n`);
  });

  it('a wrong password: exit 4, nothing stored', async () => {
    const r = await cmd.run((ctx) => runAuthTokenCreate(ctx, { user: 'mona' }), { stdin: 'wrong-password' });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/refused the username or password/);
    expect(stored()).toEqual({});
  });
});

describe('auth status', () => {
  it('exit 4 when nothing is signed in, also with --json', async () => {
    const r = await status();
    expect(r.code).toBe(4);
    expect((JSON.parse(r.stdout) as StatusJson).accounts).toEqual([]);
  });

  it('exit 0 with a valid stored token (masked unless --show-token), exit 4 once it is revoked', async () => {
    await deviceLogin('repo');
    const t = (await tokens({ clientId: APP.clientId }))[0]!.value;
    const ok = await status();
    expect(ok.code, ok.stderr).toBe(0);
    const s = JSON.parse(ok.stdout) as StatusJson;
    expect(s.accounts).toMatchObject([{ service: 'hosting', account: 'mona', source: 'memory', valid: true, active: true, scopes: ['repo'] }]);
    expect(ok.stdout).not.toContain(t);
    expect((await status({ showToken: true })).stdout).toContain(t);
    const human = await cmd.run((ctx) => runAuthStatus(ctx, {}));
    expect(human.stdout).toMatch(/^hosting\t.*\tmona \(active\)\tmemory\trepo\tvalid\t/m);
    await cmd.emu.admin('hosting', 'revoke-token', { token: t });
    const bad = await status();
    expect(bad.code).toBe(4);
    expect((JSON.parse(bad.stdout) as StatusJson).accounts[0]).toMatchObject({ valid: false });
  });

  it('lists the lines of the other modules next to the hosting accounts, without their secrets', async () => {
    await withToken(PERSONAL_TOKEN);
    const r = await status({}, { env: { LANYARD_API_KEY: 'echo-key-for-status-0001' } });
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as StatusJson).accounts.map((a) => a.service)).toEqual(['hosting', 'echo']);
    expect(r.stdout).not.toContain('echo-key-for-status-0001');
  });
});

describe('credential precedence: LANYARD_TOKEN > WORKFLOW_TOKEN > stored > anonymous', () => {
  it('auth token and auth status follow the order', async () => {
    await withToken(PERSONAL_TOKEN);
    expect((await token()).stdout).toBe(`${PERSONAL_TOKEN}\n`);
    expect((await token({ env: { WORKFLOW_TOKEN: 'lyw_from_workflow' } })).stdout).toBe('lyw_from_workflow\n');
    expect((await token({ env: { WORKFLOW_TOKEN: 'lyw_from_workflow', LANYARD_TOKEN: 'lyo_from_env' } })).stdout).toBe('lyo_from_env\n');
    const r = await status({}, { env: { LANYARD_TOKEN: 'lyo_invalid_env_token' } });
    expect(r.code).toBe(4);
    const s = JSON.parse(r.stdout) as StatusJson;
    expect(s.accounts.map((a) => [a.source, a.valid, !!a.active])).toEqual([
      ['env:LANYARD_TOKEN', false, true],
      ['memory', true, false],
    ]);
    expect(r.stderr).toMatch(/env:LANYARD_TOKEN/);
  });
});

describe('auth logout', () => {
  it('deletes the stored token and prints the review link', async () => {
    await deviceLogin();
    const r = await cmd.run((ctx) => runAuthLogout(ctx, {}));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${cmd.emu.url}/settings/connections/applications/${APP.clientId}`);
    expect(stored()).toEqual({});
    expect((await cmd.run((ctx) => runAuthStatus(ctx, {}))).code).toBe(4);
    const again = await cmd.run((ctx) => runAuthLogout(ctx, { user: 'mona' }));
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/no stored token for mona/);
  });
});

describe('token issuing rules as the CLI meets them', () => {
  it('the 11th token of a user/app/scope combination revokes the oldest', async () => {
    const issued: string[] = [];
    for (let i = 0; i < 10; i++) {
      issued.push(
        ((await cmd.emu.admin('hosting', 'issue-token', { login: 'mona', clientId: APP.clientId, scopes: 'repo' })) as { access_token: string }).access_token,
      );
      cmd.emu.advance(1000);
    }
    await cmd.emu.admin('hosting', 'issue-token', { login: 'mona', clientId: APP.clientId, scopes: 'gist' });
    await deviceLogin('repo');
    const all = await tokens({ login: 'mona', clientId: APP.clientId });
    const repo = all.filter((t) => t.scopes.join() === 'repo');
    expect(repo).toHaveLength(11);
    expect(repo.filter((t) => t.revoked).map((t) => t.value)).toEqual([issued[0]]);
    expect(all.find((t) => t.scopes.join() === 'gist')!.revoked).toBe(false);
    expect(await userStatus(issued[0]!)).toBe(401);
    expect(await userStatus(issued[1]!)).toBe(200);
    expect((await cmd.run((ctx) => runAuthStatus(ctx, {}))).code).toBe(0);
  });
});
