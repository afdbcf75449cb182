/**
 * Several hosting accounts on one host, end to end against the emulator: what
 * needs the real program or a real component — the account prompt on a
 * terminal (a pty), git's credential helper through a real git, commander's
 * option conflict, and every example line of docs/hosting.md. The commands'
 * behaviour with several accounts (sign-in, switch, --user everywhere, unknown
 * accounts, an environment token, auth token --hostname, logout's rule, an
 * older store) is tested as run functions in
 * test/unit/cli/auth/several-accounts.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, ROOT, type World } from './harness.js';
import { cli, MONA, PERSONAL_TOKEN, tokens, useAuthWorld } from './auth-helpers.js';
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

describe('auth logout with several accounts', () => {
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

describe('auth token --hostname', () => {
  it('goes without --with-token (exit 2)', async () => {
    const r = await cli(world, ['auth', 'token', '--hostname', 'localhost', '--with-token'], { input: PERSONAL_TOKEN });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--hostname.*cannot be used with option '--with-token'/);
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
    // (auth git-credential's own exit 2 and line: test/unit/cli/auth/several-accounts.test.ts.) git shows the helper's line, then gives up (no prompt allowed here).
    const g = fill(req('octocat'));
    expect(g.status).not.toBe(0);
    expect(g.stderr).toContain(`no stored hosting account "octocat" on ${host()}`);
    expect(g.stdout).not.toContain(mona);
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
