/**
 * Several hosting accounts on one host, end to end against the emulator
 * (seeded users mona and hubot, plus one added through the admin API):
 * sign-in adds an account and makes it active, `auth switch` (toggle, --user,
 * --hostname, the prompt on a terminal), `auth token --user`, `api --user`,
 * `ratelimit --user`, `exec --user`, `auth logout --user` and its prompt rule,
 * git's credential helper picking the account by git's user name (a real
 * git), unknown accounts (exit 2, one line), an environment token with
 * --user, and an older single-account store that keeps working.
 */
import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, ROOT, type World } from './harness.js';
import { cli, credentialsFile, MONA, PERSONAL_TOKEN, tokens, useAuthWorld } from './auth-helpers.js';
import { runOnPty } from './pty.js';

let world: World;
useAuthWorld((w) => (world = w));

const HUBOT = { login: 'hubot', password: 'hubot-emulator-password' };
const host = () => new URL(world.url).host;

/** Signs `user` in with the non-web flow (password on stdin); returns the token the emulator issued. */
async function signIn(user: { login: string; password: string }): Promise<string> {
  const r = await cli(world, ['auth', 'token', 'create', '--user', user.login, '--note', `accounts test ${user.login}`], { input: user.password });
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toContain(`Logged in as ${user.login}`);
  const issued = (await tokens(world, { login: user.login })).filter((t) => t.note === `accounts test ${user.login}` && !t.revoked);
  return issued.at(-1)!.value;
}

async function login(args: string[], env: Record<string, string | undefined> = {}): Promise<string> {
  const r = await cli(world, ['api', '/user', '--jq', '.login', ...args], { env });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

interface StatusJson {
  accounts: Array<{ service: string; account?: string; source: string; valid: boolean; active?: boolean }>;
}

async function hostingStatus(): Promise<Array<[string | undefined, boolean, boolean]>> {
  const r = await cli(world, ['auth', 'status', '--json']);
  return (JSON.parse(r.stdout) as StatusJson).accounts.filter((a) => a.service === 'hosting').map((a) => [a.account, a.valid, !!a.active]);
}

/** The one line an unknown account gives, and nothing on stdout. */
function expectUnknown(r: { code: number | null; stdout: string; stderr: string }, login: string): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr.trim().split('\n')).toEqual([`no stored hosting account "${login}" on ${host()} (stored: hubot, mona)`]);
}

describe('two accounts on one host', () => {
  it('a second sign-in adds the account and makes it active; status lists both, the active one marked', async () => {
    await signIn(MONA);
    await signIn(HUBOT);
    expect(await hostingStatus()).toEqual([
      ['hubot', true, true],
      ['mona', true, false],
    ]);
    expect(Object.keys(await credentialsFile(world)).sort()).toEqual([`hosting:${host()}`, `hosting:${host()}:hubot`, `hosting:${host()}:mona`]);
    const table = await cli(world, ['auth', 'status']);
    expect(table.stdout).toMatch(/hubot \(active\)/);
    expect(table.stdout).not.toMatch(/mona \(active\)/);
  });

  it('signing in again to a stored account replaces its token and keeps one entry', async () => {
    const first = await signIn(MONA);
    await signIn(HUBOT);
    const second = await signIn(MONA);
    expect(second).not.toBe(first);
    expect((await cli(world, ['auth', 'token', '--user', 'mona'])).stdout).toBe(`${second}\n`);
    expect(Object.keys(await credentialsFile(world)).filter((k) => k.endsWith(':mona'))).toHaveLength(1);
    expect(await hostingStatus()).toEqual([
      ['mona', true, true],
      ['hubot', true, false],
    ]);
  });

  it('auth token --user, api --user, ratelimit --user and exec --user use that account; the active one is unchanged', async () => {
    const mona = await signIn(MONA);
    const hubot = await signIn(HUBOT);
    expect((await cli(world, ['auth', 'token'])).stdout).toBe(`${hubot}\n`);
    expect((await cli(world, ['auth', 'token', '--user', 'mona'])).stdout).toBe(`${mona}\n`);
    expect((await cli(world, ['auth', 'token', '-u', 'MONA'])).stdout).toBe(`${mona}\n`);
    expect(await login([])).toBe('hubot');
    expect(await login(['--user', 'mona'])).toBe('mona');
    // ratelimit: mona's own bucket (the emulator counts per user).
    await world.admin('hosting/budget', { login: 'mona', remaining: 7, resetInSeconds: 600 });
    const rl = await cli(world, ['ratelimit', 'status', '--resource', 'core', '--json', '--user', 'mona']);
    expect(rl.code, rl.stderr).toBe(0);
    expect((JSON.parse(rl.stdout) as { resources: { core: { remaining: number } } }).resources.core.remaining).toBeLessThanOrEqual(7);
    const rlHubot = await cli(world, ['ratelimit', 'status', '--resource', 'core', '--json']);
    expect((JSON.parse(rlHubot.stdout) as { resources: { core: { remaining: number } } }).resources.core.remaining).toBeGreaterThan(7);
    const ex = await cli(world, [
      'exec',
      '--user',
      'mona',
      '--',
      process.execPath,
      '-e',
      'process.stdout.write(process.env.GH_TOKEN === process.env.LANYARD_TOKEN ? process.env.LANYARD_TOKEN : "")',
    ]);
    expect(ex.code, ex.stderr).toBe(0);
    expect(ex.stdout).toBe(mona);
    expect(await hostingStatus()).toEqual([
      ['hubot', true, true],
      ['mona', true, false],
    ]);
  });

  it('auth switch toggles between two accounts, takes --user and --hostname', async () => {
    await signIn(MONA);
    await signIn(HUBOT);
    const s = await cli(world, ['auth', 'switch']);
    expect(s.code, s.stderr).toBe(0);
    expect(s.stderr).toContain(`✓ Switched the active account of ${host()} to mona`);
    expect(await login([])).toBe('mona');
    expect((await cli(world, ['auth', 'switch'])).code).toBe(0);
    expect(await login([])).toBe('hubot');
    expect((await cli(world, ['auth', 'switch', '--user', 'mona'])).code).toBe(0);
    expect(await login([])).toBe('mona');
    expect((await cli(world, ['auth', 'switch', '--hostname', host(), '--user', 'hubot'])).code).toBe(0);
    expect(await login([])).toBe('hubot');
    expect(await hostingStatus()).toEqual([
      ['hubot', true, true],
      ['mona', true, false],
    ]);
    const other = await cli(world, ['auth', 'switch', '--hostname', 'api.example.com']);
    expect(other.code).toBe(1);
    expect(other.stderr).toMatch(/no hosting account is stored for api\.example\.com/);
  });

  it('an unknown account is one line and exit 2 everywhere, and changes nothing', async () => {
    await signIn(MONA);
    await signIn(HUBOT);
    const before = await credentialsFile(world);
    for (const args of [
      ['auth', 'token', '--user', 'octocat'],
      ['auth', 'switch', '--user', 'octocat'],
      ['auth', 'logout', '--user', 'octocat'],
      ['api', '/user', '--user', 'octocat'],
      ['ratelimit', 'status', '--user', 'octocat'],
      ['ratelimit', 'wait', '--user', 'octocat'],
      ['exec', '--user', 'octocat', '--', 'true'],
    ])
      expectUnknown(await cli(world, args), 'octocat');
    expect(await credentialsFile(world)).toEqual(before);
  });

  it('--user with a token in the environment is exit 2 saying the environment token takes precedence; switch warns', async () => {
    await signIn(MONA);
    await signIn(HUBOT);
    const env = { LANYARD_TOKEN: PERSONAL_TOKEN };
    for (const args of [
      ['auth', 'token', '--user', 'mona'],
      ['api', '/user', '--user', 'mona'],
    ]) {
      const r = await cli(world, args, { env });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toEqual([
        'cannot use the stored account "mona": LANYARD_TOKEN is set in the environment and takes precedence (unset it to use stored accounts)',
      ]);
    }
    expect(await login([], env)).toBe('mona'); // the personal token is mona's; hubot is the active stored account
    const s = await cli(world, ['auth', 'switch'], { env });
    expect(s.code).toBe(0);
    expect(s.stderr).toMatch(/LANYARD_TOKEN is set in the environment and still takes precedence/);
  });
});

describe('auth token --hostname', () => {
  it("prints the stored token of another host's active account (or --user's); the profile's own host goes the usual way", async () => {
    const mona = await signIn(MONA);
    // A second host: the same emulator reached as localhost, signed in to through its own profile.
    const other = `localhost:${new URL(world.url).port}`;
    expect((await world.run(['--profile', 'other', 'config', 'set', 'hosting.apiUrl', `http://${other}/api/v3`])).code).toBe(0);
    const created = await world.run(['--profile', 'other', 'auth', 'token', 'create', '--user', HUBOT.login, '--note', 'other host'], {
      input: HUBOT.password,
    });
    expect(created.code, created.stderr).toBe(0);
    const hubot = (await tokens(world, { login: 'hubot' })).filter((t) => t.note === 'other host' && !t.revoked).at(-1)!.value;

    const r = await cli(world, ['auth', 'token', '--hostname', other]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${hubot}\n`);
    expect((await cli(world, ['auth', 'token', '--hostname', other.toUpperCase(), '--user', 'hubot'])).stdout).toBe(`${hubot}\n`);
    expect((await cli(world, ['auth', 'token', '--hostname', host()])).stdout).toBe(`${mona}\n`);
    expect((await cli(world, ['auth', 'token'])).stdout).toBe(`${mona}\n`);

    const unknown = await cli(world, ['auth', 'token', '--hostname', other, '--user', 'mona']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split('\n')).toEqual([`no stored hosting account "mona" on ${other} (stored: hubot)`]);
    const none = await cli(world, ['auth', 'token', '--hostname', 'git.example.com']);
    expect(none.code).toBe(4);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/not signed in to git\.example\.com/);
    const bad = await cli(world, ['auth', 'token', '--hostname', 'not a host']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--hostname: "not a host" is not a host name/);
    expect((await cli(world, ['auth', 'token', '--hostname', other, '--with-token'], { input: PERSONAL_TOKEN })).code).toBe(2);

    // An expiring token of another host is not refreshed from here: once expired, exit 4.
    const stored = await credentialsFile(world);
    const expired = {
      login: 'octo',
      token: 'ghu_expired',
      scopes: [],
      origin: 'device',
      createdAt: '2026-01-01T00:00:00.000Z',
      expiresAt: '2026-01-01T08:00:00.000Z',
    };
    await writeFile(
      join(world.configDir, 'credentials.json'),
      JSON.stringify({ ...stored, 'hosting:old.example.com': 'octo', 'hosting:old.example.com:octo': JSON.stringify(expired) }),
      { mode: 0o600 },
    );
    const late = await cli(world, ['auth', 'token', '--hostname', 'old.example.com']);
    expect(late.code).toBe(4);
    expect(late.stdout).toBe('');
    expect(late.stderr).toMatch(/the stored token of octo on old\.example\.com expired at 2026-01-01T08:00:00\.000Z/);
  });
});

describe('auth logout with several accounts', () => {
  it('without --user and without a terminal: exit 2 naming them; --user signs that one out and the other stays active', async () => {
    await signIn(MONA);
    await signIn(HUBOT);
    const r = await cli(world, ['auth', 'logout']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([`${host()} has 2 stored accounts (hubot, mona): name the one to sign out of with --user`]);
    expect(Object.keys(await credentialsFile(world))).toHaveLength(3);
    const out = await cli(world, ['auth', 'logout', '--user', 'hubot']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain(`Logged out of ${host()} account hubot`);
    expect(out.stderr).toContain('Active account is now mona.');
    expect(await hostingStatus()).toEqual([['mona', true, true]]);
    // One account left: logout needs no --user.
    expect((await cli(world, ['auth', 'logout'])).code).toBe(0);
    expect(await credentialsFile(world)).toEqual({});
  });

  it('on a terminal, switch and logout with three accounts ask which one', async () => {
    await world.admin('hosting/add-user', { login: 'octo', password: 'octo-password' });
    await signIn(MONA);
    await signIn({ login: 'octo', password: 'octo-password' });
    await signIn(HUBOT);
    const env = { ...world.env, LANYARD_BROWSER: undefined };
    /** `auth <command>` on a terminal, answering its account prompt with `typed`. */
    const answerOnPty = (command: string, typed: string) =>
      runOnPty({ args: ['--profile', 'emulator', 'auth', command], env, waitFor: 'Account \\[1-3\\]: ', send: Buffer.from(`${typed}\r`).toString('hex') });
    const sw = await answerOnPty('switch', 'octo');
    expect(sw.exitCode, sw.output).toBe(0);
    expect(sw.output).toMatch(/1\) hubot \(active\)\s+2\) mona\s+3\) octo/);
    expect(sw.output).toContain(`Switched the active account of ${host()} to octo`);
    expect(await login([])).toBe('octo');
    const lo = await answerOnPty('logout', '2');
    expect(lo.exitCode, lo.output).toBe(0);
    expect(lo.output).toContain(`Logged out of ${host()} account hubot`);
    expect((await hostingStatus()).map(([a]) => a)).toEqual(['octo', 'mona']);
    // Without a terminal (or with prompts disabled) the same is exit 2.
    const off = await runOnPty({ args: ['--profile', 'emulator', 'auth', 'logout'], env: { ...env, LANYARD_PROMPT_DISABLED: '1' }, send: null });
    expect(off.exitCode, off.output).toBe(2);
  });
});

describe('git credential helper with several accounts', () => {
  it("git's user name picks the account; none or x-access-token is the active one; an unknown one is one line, exit 2", async () => {
    const mona = await signIn(MONA);
    const hubot = await signIn(HUBOT);
    const helper = `!'${process.execPath}' '${BIN}' --profile emulator auth git-credential`;
    const fill = (input: string) =>
      spawnSync('git', ['-c', `credential.helper=${helper}`, 'credential', 'fill'], {
        input,
        encoding: 'utf8',
        env: cleanEnv({ ...world.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '' }),
      });
    const web = new URL(world.url);
    const req = (user?: string) => `protocol=http\nhost=${web.host}\n${user ? `username=${user}\n` : ''}\n`;
    const m = fill(req('mona'));
    expect(m.status, m.stderr).toBe(0);
    expect(m.stdout).toContain(`username=mona\npassword=${mona}\n`);
    for (const user of [undefined, 'x-access-token']) {
      const h = fill(req(user));
      expect(h.status, h.stderr).toBe(0);
      expect(h.stdout).toContain(`password=${hubot}\n`);
    }
    const unknown = await cli(world, ['auth', 'git-credential', 'get'], { input: req('octocat') });
    expectUnknown(unknown, 'octocat');
    // git shows the helper's line, then gives up (no prompt allowed here).
    const g = fill(req('octocat'));
    expect(g.status).not.toBe(0);
    expect(g.stderr).toContain(`no stored hosting account "octocat" on ${host()}`);
    expect(g.stdout).not.toContain(mona);
  });
});

describe('an older single-account store', () => {
  it('a token record kept under the host entry keeps working and is moved to the per-account layout', async () => {
    const record = { login: 'mona', token: PERSONAL_TOKEN, scopes: ['repo'], origin: 'pasted', createdAt: '2026-01-01T00:00:00.000Z' };
    await writeFile(join(world.configDir, 'credentials.json'), JSON.stringify({ [`hosting:${host()}`]: JSON.stringify(record) }), { mode: 0o600 });
    expect((await cli(world, ['auth', 'token'])).stdout).toBe(`${PERSONAL_TOKEN}\n`);
    expect(await credentialsFile(world)).toEqual({ [`hosting:${host()}`]: 'mona', [`hosting:${host()}:mona`]: JSON.stringify(record) });
    expect(await login([])).toBe('mona');
    const hubot = await signIn(HUBOT);
    expect(await hostingStatus()).toEqual([
      ['hubot', true, true],
      ['mona', true, false],
    ]);
    expect((await cli(world, ['auth', 'token', '--user', 'mona'])).stdout).toBe(`${PERSONAL_TOKEN}\n`);
    expect((await cli(world, ['auth', 'token'])).stdout).toBe(`${hubot}\n`);
  });

  it('stored accounts without an active entry: the newest is active', async () => {
    const older = { login: 'mona', token: PERSONAL_TOKEN, scopes: [], origin: 'pasted', createdAt: '2026-01-01T00:00:00.000Z' };
    await writeFile(join(world.configDir, 'credentials.json'), JSON.stringify({ [`hosting:${host()}:mona`]: JSON.stringify(older) }), { mode: 0o600 });
    expect(await login([])).toBe('mona');
    expect((await credentialsFile(world))[`hosting:${host()}`]).toBe('mona');
  });
});

describe('docs/hosting.md "Several accounts on one host"', () => {
  it('every example line runs against the emulator (a line ending in `# exit N` exits N)', async () => {
    const readme = await readFile(join(ROOT, 'docs', 'hosting.md'), 'utf8');
    const start = readme.indexOf('\n### Several accounts on one host\n');
    expect(start).toBeGreaterThan(0);
    const block = readme.slice(readme.indexOf('```sh\n', start) + 6, readme.indexOf('\n```', readme.indexOf('```sh\n', start)));
    const lines = block.split('\n').filter((l) => l.trim());
    expect(lines.length).toBeGreaterThan(8);
    const bin = await mkdtemp(join(tmpdir(), 'lanyard-accounts-'));
    try {
      await writeFile(join(bin, 'lanyard'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
      await chmod(join(bin, 'lanyard'), 0o755);
      const env = cleanEnv({ ...world.env, LANYARD_PROFILE: 'emulator', PATH: `${bin}:${process.env.PATH}`, HOME: bin });
      const outputs: string[] = [];
      for (const line of lines) {
        const want = Number(/# exit (\d+)\s*$/.exec(line)?.[1] ?? 0);
        const r = spawnSync('bash', ['-c', line], { env, encoding: 'utf8', timeout: 60_000 });
        expect(r.status, `${line}\n${r.stderr}`).toBe(want);
        outputs.push(r.stdout);
      }
      // The two `api /user` lines: mona after the switch, and mona again with --user while hubot is active.
      expect(outputs.filter((_, i) => lines[i]!.startsWith('lanyard api'))).toEqual(['mona\n', 'mona\n']);
      expect(outputs[lines.findIndex((l) => l.startsWith('lanyard exec'))]).toBe('mona\n');
      expect(await hostingStatus()).toEqual([['hubot', true, true]]);
    } finally {
      await rm(bin, { recursive: true, force: true });
    }
  });
});
