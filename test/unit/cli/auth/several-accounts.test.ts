/**
 * Several hosting accounts on one host, as run functions against the
 * in-process emulator (formerly spawned in test/e2e/auth-accounts.test.ts,
 * which keeps the terminal prompt on a pty, git's helper through a real git
 * and docs/hosting.md's example lines): sign-in adds an account and makes it
 * active, `auth switch`, `--user` on auth token, api, ratelimit and exec, an
 * unknown account (exit 2, one line), an environment token with --user,
 * `auth token --hostname`, logout's rule and an older single-account store.
 */
import { describe, expect, it } from 'vitest';
import type { ApiOptions } from '../../../../src/cli/commands/api/options.js';
import { runApi } from '../../../../src/cli/commands/api/run.js';
import { runGitCredential } from '../../../../src/cli/commands/auth/git.js';
import { runAuthLogout, runAuthStatus, runAuthToken, runAuthTokenCreate } from '../../../../src/cli/commands/auth/run.js';
import { runAuthSwitch } from '../../../../src/cli/commands/auth/switch.js';
import { execEnvironment, runExec } from '../../../../src/cli/commands/exec/run.js';
import { runRatelimitStatus, runRatelimitWait } from '../../../../src/cli/commands/ratelimit/run.js';
import type { Context } from '../../../../src/cli/context.js';
import { type RunResult, type RunOptions, useEmulatorCommands } from '../on-emulator.js';

const cmd = useEmulatorCommands();
const MONA = { login: 'mona', password: 'lanyard-emulator-password' };
const HUBOT = { login: 'hubot', password: 'hubot-emulator-password' };
const PERSONAL_TOKEN = 'lyp_emulator_default_token_0000000000000001';
const host = () => new URL(cmd.emu.url).host;
const stored = () => Object.fromEntries(cmd.store.data);
const apiOptions = (o: Partial<ApiOptions> = {}): ApiOptions => ({ header: [], rawField: [], field: [], service: 'hosting', ...o });

async function issued(login: string, note: string): Promise<string> {
  const { tokens } = (await cmd.emu.admin('hosting', 'tokens', { login })) as { tokens: Array<{ value: string; note: string | null; revoked: boolean }> };
  return tokens.filter((t) => t.note === note && !t.revoked).at(-1)!.value;
}

/** Signs `user` in with `auth token create` (password on stdin); returns the token the emulator issued. */
async function signIn(user: { login: string; password: string }, o: RunOptions = {}): Promise<string> {
  const note = `accounts test ${user.login}`;
  const r = await cmd.run((ctx) => runAuthTokenCreate(ctx, { user: user.login, note }), { stdin: user.password, ...o });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toContain(`Logged in as ${user.login}`);
  return issued(user.login, note);
}

/** `api /user --jq .login`. */
async function login(o: Partial<ApiOptions> = {}, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const r = await cmd.run((ctx) => runApi(ctx, '/user', apiOptions(o)), { env, format: 'json' });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { login: string }).login;
}

async function hostingStatus(): Promise<Array<[string | undefined, boolean, boolean]>> {
  const r = await cmd.run((ctx) => runAuthStatus(ctx, {}), { format: 'json' });
  const accounts = (JSON.parse(r.stdout) as { accounts: Array<{ service: string; account?: string; valid: boolean; active?: boolean }> }).accounts;
  return accounts.filter((a) => a.service === 'hosting').map((a) => [a.account, a.valid, !!a.active]);
}

const token = async (o: Parameters<typeof runAuthToken>[1] = {}, r: RunOptions = {}) => (await cmd.run((ctx) => runAuthToken(ctx, o), r)).stdout;

/** The one line an unknown account gives, and nothing on stdout. */
function expectUnknown(r: RunResult, who: string): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.trim().split('\n')).toEqual([`no stored hosting account "${who}" on ${host()} (stored: hubot, mona)`]);
}

describe('two accounts on one host', () => {
  it('a second sign-in adds the account and makes it active; status lists both, the active one marked', async () => {
    await signIn(MONA);
    await signIn(HUBOT);
    expect(await hostingStatus()).toEqual([
      ['hubot', true, true],
      ['mona', true, false],
    ]);
    expect(Object.keys(stored()).sort()).toEqual([`hosting:${host()}`, `hosting:${host()}:hubot`, `hosting:${host()}:mona`]);
    const table = await cmd.run((ctx) => runAuthStatus(ctx, {}));
    expect(table.stdout).toMatch(/hubot \(active\)/);
    expect(table.stdout).not.toMatch(/mona \(active\)/);
  });

  it('signing in again to a stored account replaces its token and keeps one entry', async () => {
    const first = await signIn(MONA);
    await signIn(HUBOT);
    const second = await signIn(MONA);
    expect(second).not.toBe(first);
    expect(await token({ user: 'mona' })).toBe(`${second}\n`);
    expect(Object.keys(stored()).filter((k) => k.endsWith(':mona'))).toHaveLength(1);
    expect(await hostingStatus()).toEqual([
      ['mona', true, true],
      ['hubot', true, false],
    ]);
  });

  it('auth token --user, api --user, ratelimit --user and exec --user use that account; the active one is unchanged', async () => {
    const mona = await signIn(MONA);
    const hubot = await signIn(HUBOT);
    expect(await token()).toBe(`${hubot}\n`);
    expect(await token({ user: 'mona' })).toBe(`${mona}\n`);
    expect(await token({ user: 'MONA' })).toBe(`${mona}\n`);
    expect(await login()).toBe('hubot');
    expect(await login({ user: 'mona' })).toBe('mona');
    // ratelimit: mona's own bucket (the emulator counts per user).
    await cmd.emu.budget({ login: 'mona', remaining: 7, resetInSeconds: 600 });
    const remaining = async (user?: string) => {
      const r = await cmd.run((ctx) => runRatelimitStatus(ctx, { resource: 'core', user }), { format: 'json' });
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { resources: { core: { remaining: number } } }).resources.core.remaining;
    };
    expect(await remaining('mona')).toBeLessThanOrEqual(7);
    expect(await remaining()).toBeGreaterThan(7);
    // exec --user: the child's GH_TOKEN and LANYARD_TOKEN are mona's token.
    let env: NodeJS.ProcessEnv = {};
    const ex = await cmd.run(async (ctx) => (env = await execEnvironment(ctx, { service: [], user: 'mona' })));
    expect(ex.code, ex.stderr).toBe(0);
    expect([env.GH_TOKEN, env.LANYARD_TOKEN]).toEqual([mona, mona]);
    expect(await hostingStatus()).toEqual([
      ['hubot', true, true],
      ['mona', true, false],
    ]);
  });

  it('auth switch toggles between two accounts, takes --user and --hostname', async () => {
    await signIn(MONA);
    await signIn(HUBOT);
    const sw = (o: Parameters<typeof runAuthSwitch>[1] = {}, r: RunOptions = {}) => cmd.run((ctx) => runAuthSwitch(ctx, o), r);
    const s = await sw();
    expect(s.code, s.stderr).toBe(0);
    expect(s.stderr).toContain(`✓ Switched the active account of ${host()} to mona`);
    expect(await login()).toBe('mona');
    expect((await sw()).code).toBe(0);
    expect(await login()).toBe('hubot');
    expect((await sw({ user: 'mona' })).code).toBe(0);
    expect(await login()).toBe('mona');
    expect((await sw({ hostname: host(), user: 'hubot' })).code).toBe(0);
    expect(await login()).toBe('hubot');
    expect(await hostingStatus()).toEqual([
      ['hubot', true, true],
      ['mona', true, false],
    ]);
    const other = await sw({ hostname: 'api.example.com' });
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/no hosting account is stored for api\.example\.com/);
  });

  it('an unknown account is one line and exit 2 everywhere, and changes nothing', async () => {
    await signIn(MONA);
    await signIn(HUBOT);
    const before = stored();
    const user = 'octocat';
    const runs: Array<(ctx: Context) => Promise<unknown>> = [
      (ctx) => runAuthToken(ctx, { user }),
      (ctx) => runAuthSwitch(ctx, { user }),
      (ctx) => runAuthLogout(ctx, { user }),
      (ctx) => runApi(ctx, '/user', apiOptions({ user })),
      (ctx) => runRatelimitStatus(ctx, { user }),
      (ctx) => runRatelimitWait(ctx, { user }),
      (ctx) => runExec(ctx, 'true', [], { service: [], user }),
    ];
    for (const f of runs) expectUnknown(await cmd.run(f), user);
    const req = `protocol=http\nhost=${host()}\nusername=${user}\n\n`;
    expectUnknown(await cmd.run((ctx) => runGitCredential(ctx, 'get'), { stdin: req }), user);
    expect(stored()).toEqual(before);
  });

  it('--user with a token in the environment is exit 2 saying the environment token takes precedence; switch warns', async () => {
    await signIn(MONA);
    await signIn(HUBOT);
    const env = { LANYARD_TOKEN: PERSONAL_TOKEN };
    for (const f of [(ctx: Context) => runAuthToken(ctx, { user: 'mona' }), (ctx: Context) => runApi(ctx, '/user', apiOptions({ user: 'mona' }))]) {
      const r = await cmd.run(f, { env });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toEqual([
        'cannot use the stored account "mona": LANYARD_TOKEN is set in the environment and takes precedence (unset it to use stored accounts)',
      ]);
    }
    expect(await login({}, env)).toBe('mona'); // the personal token is mona's; hubot is the active stored account
    const s = await cmd.run((ctx) => runAuthSwitch(ctx, {}), { env });
    expect(s.code).toBe(0);
    expect(s.stderr).toMatch(/LANYARD_TOKEN is set in the environment and still takes precedence/);
  });
});

describe('auth token --hostname', () => {
  it("prints the stored token of another host's active account (or --user's); the profile's own host goes the usual way", async () => {
    const mona = await signIn(MONA);
    // A second host: the same emulator reached as localhost, signed in to through its own profile.
    const other = `localhost:${new URL(cmd.emu.url).port}`;
    const hubot = await signIn(HUBOT, { profile: 'other', profileSettings: { 'hosting.apiUrl': `http://${other}/api/v3` } });

    expect(await token({ hostname: other })).toBe(`${hubot}\n`);
    expect(await token({ hostname: other.toUpperCase(), user: 'hubot' })).toBe(`${hubot}\n`);
    expect(await token({ hostname: host() })).toBe(`${mona}\n`);
    expect(await token()).toBe(`${mona}\n`);

    const unknown = await cmd.run((ctx) => runAuthToken(ctx, { hostname: other, user: 'mona' }));
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toEqual([`no stored hosting account "mona" on ${other} (stored: hubot)`]);
    const none = await cmd.run((ctx) => runAuthToken(ctx, { hostname: 'git.example.com' }));
    expect(none.code).toBe(4);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/not signed in to git\.example\.com/);
    const bad = await cmd.run((ctx) => runAuthToken(ctx, { hostname: 'not a host' }));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--hostname: "not a host" is not a host name/);
    // (--hostname with --with-token: commander's conflict, exit 2, in test/e2e/auth-accounts.test.ts.)

    // An expiring token of another host is not refreshed from here: once expired, exit 4.
    const expired = {
      login: 'octo',
      token: 'ghu_expired',
      scopes: [],
      origin: 'device',
      createdAt: '2026-01-01T00:00:00.000Z',
      expiresAt: '2026-01-01T08:00:00.000Z',
    };
    await cmd.store.set('hosting:old.example.com', 'octo');
    await cmd.store.set('hosting:old.example.com:octo', JSON.stringify(expired));
    const late = await cmd.run((ctx) => runAuthToken(ctx, { hostname: 'old.example.com' }));
    expect(late.code).toBe(4);
    expect(late.stdout).toBe('');
    expect(late.stderr).toMatch(/the stored token of octo on old\.example\.com expired at 2026-01-01T08:00:00\.000Z/);
  });
});

describe('auth logout with several accounts', () => {
  it('without --user and without a terminal: exit 2 naming them; --user signs that one out and the other stays active', async () => {
    await signIn(MONA);
    await signIn(HUBOT);
    const r = await cmd.run((ctx) => runAuthLogout(ctx, {}));
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([`${host()} has 2 stored accounts (hubot, mona): name the one to sign out of with --user`]);
    expect(Object.keys(stored())).toHaveLength(3);
    const out = await cmd.run((ctx) => runAuthLogout(ctx, { user: 'hubot' }));
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain(`Logged out of ${host()} account hubot`);
    expect(out.stderr).toContain('Active account is now mona.');
    expect(await hostingStatus()).toEqual([['mona', true, true]]);
    // One account left: logout needs no --user.
    expect((await cmd.run((ctx) => runAuthLogout(ctx, {}))).code).toBe(0);
    expect(stored()).toEqual({});
  });
});

describe('an older single-account store', () => {
  it('a token record kept under the host entry keeps working and is moved to the per-account layout', async () => {
    const record = { login: 'mona', token: PERSONAL_TOKEN, scopes: ['repo'], origin: 'pasted', createdAt: '2026-01-01T00:00:00.000Z' };
    await cmd.store.set(`hosting:${host()}`, JSON.stringify(record));
    expect(await token()).toBe(`${PERSONAL_TOKEN}\n`);
    expect(stored()).toEqual({ [`hosting:${host()}`]: 'mona', [`hosting:${host()}:mona`]: JSON.stringify(record) });
    expect(await login()).toBe('mona');
    const hubot = await signIn(HUBOT);
    expect(await hostingStatus()).toEqual([
      ['hubot', true, true],
      ['mona', true, false],
    ]);
    expect(await token({ user: 'mona' })).toBe(`${PERSONAL_TOKEN}\n`);
    expect(await token()).toBe(`${hubot}\n`);
  });

  it('stored accounts without an active entry: the newest is active', async () => {
    const older = { login: 'mona', token: PERSONAL_TOKEN, scopes: [], origin: 'pasted', createdAt: '2026-01-01T00:00:00.000Z' };
    await cmd.store.set(`hosting:${host()}:mona`, JSON.stringify(older));
    expect(await login()).toBe('mona');
    expect(stored()[`hosting:${host()}`]).toBe('mona');
  });
});
