/**
 * Accounts that follow the work (issue 31), end to end against the emulator:
 * profiles and hosting accounts bound to directories (nested, through
 * symlinks, beside LANYARD_PROFILE and --profile, two processes in two bound
 * directories at once, a real git through the credential helper), token
 * single sign-on (the 403 and partial results, from the program's HTTP port)
 * and `auth refresh` approved in Chromium. Token expiry (`auth status`,
 * `--expires-within`) and the other refreshes are tested as run functions in
 * test/unit/cli/auth/expiry-refresh.test.ts.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isolatedGitEnv, type RunOptions, type World } from './harness.js';
import type { Browser } from 'playwright-core';
import { launchBrowser, withPage } from './browser.js';
import {
  APP,
  cli,
  credentialsFile,
  MONA,
  PERSONAL_TOKEN,
  recordingBrowser,
  signIn as signInPage,
  start,
  text,
  tokens,
  USER_CODE,
  useAuthWorld,
  VERIFICATION_URI,
  waitFor,
} from './auth-helpers.js';

let world: World;
useAuthWorld((w) => (world = w));

const HUBOT = { login: 'hubot', password: 'hubot-emulator-password' };
const host = () => new URL(world.url).host;

let root: string;
beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'lanyard-accounts-')));
  await mkdir(join(root, 'work', 'acme', 'repo', 'src'), { recursive: true });
  await mkdir(join(root, 'personal', 'blog'), { recursive: true });
  await mkdir(join(root, 'elsewhere'), { recursive: true });
  await symlink(join(root, 'work'), join(root, 'w'));
});
afterAll(async () => rm(root, { recursive: true, force: true }));

beforeEach(async () => {
  // No binding or extra profile left from the test before.
  const config = join(world.configDir, 'config.json');
  const text = await readFile(config, 'utf8');
  const data = JSON.parse(text) as { bindings?: unknown; profiles: Record<string, unknown> };
  delete data.bindings;
  delete data.profiles.other;
  await import('node:fs/promises').then((fs) => fs.writeFile(config, JSON.stringify(data)));
});

/** The CLI in `cwd` (no --profile unless given). */
const at = (cwd: string, args: string[], o: RunOptions = {}) => world.run(args, { ...o, cwd });

interface Selected {
  name: string;
  reason: string;
  dir?: string;
}

async function selectedProfile(cwd: string, args: string[] = [], env: Record<string, string> = {}): Promise<Selected> {
  const r = await at(cwd, [...args, 'profile', 'list', '--json'], { env });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { selected: Selected }).selected;
}

async function signIn(user: { login: string; password: string }): Promise<string> {
  const r = await cli(world, ['auth', 'token', 'create', '--user', user.login, '--note', `bindings ${user.login}`], { input: user.password });
  expect(r.code, r.stderr).toBe(0);
  return (await tokens(world, { login: user.login })).filter((t) => t.note === `bindings ${user.login}` && !t.revoked).at(-1)!.value;
}

describe('profiles bound to directories', () => {
  beforeEach(async () => {
    const r = await world.run(['--profile', 'other', 'config', 'set', 'hosting.apiUrl', 'https://api.other.example']);
    expect(r.code, r.stderr).toBe(0);
  });

  it('nested directories: the longest bound one wins; elsewhere the active profile; a symlinked path finds the real directory', async () => {
    expect((await at(root, ['profile', 'use', 'other', '--dir', 'w'])).code).toBe(0); // through the symlink
    expect((await at(root, ['profile', 'use', 'emulator', '--dir', join(root, 'work', 'acme')])).code).toBe(0);
    expect(await selectedProfile(join(root, 'work', 'acme', 'repo', 'src'))).toEqual({
      name: 'emulator',
      reason: 'binding',
      dir: join(root, 'work', 'acme'),
    });
    expect(await selectedProfile(join(root, 'work'))).toEqual({ name: 'other', reason: 'binding', dir: join(root, 'work') });
    expect(await selectedProfile(join(root, 'w', 'acme', 'repo'))).toMatchObject({ name: 'emulator', reason: 'binding' });
    const outside = await selectedProfile(join(root, 'elsewhere'));
    expect(outside.reason).not.toBe('binding');
    // The human listing marks the one in force and says why.
    const human = await at(join(root, 'work', 'acme', 'repo'), ['profile', 'list']);
    expect(human.stderr).toContain(`Profile here: emulator (bound to ${join(root, 'work', 'acme')})`);
  });

  it('LANYARD_PROFILE and --profile win over a binding; a bound directory uses its profile for real calls', async () => {
    expect((await at(root, ['profile', 'use', 'emulator', '--dir', join(root, 'work')])).code).toBe(0);
    const here = join(root, 'work', 'acme');
    expect(await selectedProfile(here, [], { LANYARD_PROFILE: 'other' })).toEqual({ name: 'other', reason: 'env' });
    expect(await selectedProfile(here, ['--profile', 'other'], { LANYARD_PROFILE: 'emulator' })).toEqual({ name: 'other', reason: 'flag' });
    // No --profile at all: the binding's profile reaches the emulator.
    const api = await at(here, ['api', '/user', '--jq', '.login'], { env: { LANYARD_TOKEN: PERSONAL_TOKEN } });
    expect(api.code, api.stderr).toBe(0);
    expect(api.stdout.trim()).toBe('mona');
    const status = await at(here, ['auth', 'status', '--json'], { env: { LANYARD_TOKEN: PERSONAL_TOKEN } });
    expect((JSON.parse(status.stdout) as { profile: Selected }).profile).toEqual({ name: 'emulator', reason: 'binding', dir: join(root, 'work') });
  });

  it('profile remove --dir removes the binding; removing a profile removes its bindings', async () => {
    expect((await at(root, ['profile', 'use', 'other', '--dir', join(root, 'work')])).code).toBe(0);
    expect((await at(root, ['profile', 'use', 'other', '--dir', join(root, 'personal')])).code).toBe(0);
    const r = await at(join(root, 'work'), ['profile', 'remove', '--dir', '.']);
    expect(r.code, r.stderr).toBe(0);
    expect((await selectedProfile(join(root, 'work'))).reason).not.toBe('binding');
    expect((await selectedProfile(join(root, 'personal'))).name).toBe('other');
    expect((await at(root, ['profile', 'remove', 'other'])).code).toBe(0);
    const config = JSON.parse(await readFile(join(world.configDir, 'config.json'), 'utf8')) as { bindings?: unknown };
    expect(config.bindings).toBeUndefined();
    const again = await at(root, ['profile', 'remove', '--dir', join(root, 'work')]);
    expect(again.code).toBe(2);
    expect(again.stderr.trim().split('\n')[0]).toContain(`no profile is bound to ${join(root, 'work')}`);
  });
});

describe('hosting accounts bound to directories', () => {
  const run = (cwd: string, args: string[], env: Record<string, string> = {}) => at(cwd, ['--profile', 'emulator', ...args], { env });

  it('two processes in two bound directories at once use two accounts; status says which and why; logout --dir cleans up', async () => {
    const mona = await signIn(MONA);
    const hubot = await signIn(HUBOT); // the active account now
    const work = join(root, 'work', 'acme');
    const home = join(root, 'personal');
    expect((await run(root, ['auth', 'switch', '--user', 'mona', '--dir', work])).code).toBe(0);
    expect((await run(root, ['auth', 'switch', '--user', 'hubot', '--dir', home])).code).toBe(0);
    // The active account is unchanged.
    expect((await run(join(root, 'elsewhere'), ['api', '/user', '--jq', '.login'])).stdout.trim()).toBe('hubot');
    const [a, b] = await Promise.all([
      run(join(work, 'repo', 'src'), ['auth', 'token']),
      run(join(home, 'blog'), ['auth', 'token']),
      run(join(root, 'w', 'acme', 'repo'), ['api', '/user', '--jq', '.login']).then((r) => expect(r.stdout.trim()).toBe('mona')),
    ]);
    expect(a.stdout.trim()).toBe(mona);
    expect(b.stdout.trim()).toBe(hubot);
    const status = await run(work, ['auth', 'status', '--json']);
    const used = (
      JSON.parse(status.stdout) as { accounts: Array<{ account: string; active?: boolean; selectedBy?: string; boundDir?: string }> }
    ).accounts.find((e) => e.active);
    expect(used).toMatchObject({ account: 'mona', selectedBy: 'binding', boundDir: work });
    expect((await run(work, ['auth', 'status'])).stderr).toContain(`Hosting account here: mona (bound to ${work})`);
    // An environment token still wins; --user still names another.
    expect((await run(work, ['api', '/user', '--jq', '.login', '--user', 'hubot'])).stdout.trim()).toBe('hubot');
    const r = await run(root, ['auth', 'logout', '--dir', work]);
    expect(r.code, r.stderr).toBe(0);
    expect((await run(work, ['auth', 'token'])).stdout.trim()).toBe(hubot);
    expect((await credentialsFile(world))[`hosting:${host()}:mona`]).toBeDefined(); // the token stays
  });

  it('auth switch --dir needs --user; an unknown account is exit 2', async () => {
    await signIn(MONA);
    const r = await run(root, ['auth', 'switch', '--dir', join(root, 'work')]);
    expect(r.code).toBe(2);
    const unknown = await run(root, ['auth', 'switch', '--user', 'octocat', '--dir', join(root, 'work')]);
    expect(unknown.code).toBe(2);
  });

  it('signing an account out removes its bindings', async () => {
    await signIn(MONA);
    await signIn(HUBOT);
    expect((await run(root, ['auth', 'switch', '--user', 'mona', '--dir', join(root, 'work')])).code).toBe(0);
    const r = await run(root, ['auth', 'logout', '--user', 'mona']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Removed its directory bindings: ${join(root, 'work')}`);
    expect((await run(join(root, 'work'), ['api', '/user', '--jq', '.login'])).stdout.trim()).toBe('hubot');
  });

  it("git's credential helper follows the directory's account (a real git)", async () => {
    const mona = await signIn(MONA);
    const hubot = await signIn(HUBOT);
    const gitHome = await mkdtemp(join(tmpdir(), 'lanyard-accounts-git-'));
    try {
      const env = { ...world.env, ...isolatedGitEnv(gitHome) };
      expect((await world.run(['--profile', 'emulator', 'auth', 'setup-git'], { env })).code).toBe(0);
      expect((await run(root, ['auth', 'switch', '--user', 'mona', '--dir', join(root, 'work')])).code).toBe(0);
      const fill = (cwd: string) =>
        new Promise<string>((resolve) => {
          const u = new URL(world.url);
          const child = spawn('git', ['credential', 'fill'], { cwd, env: { ...process.env, ...env } });
          let out = '';
          child.stdout.on('data', (c: Buffer) => (out += c.toString()));
          child.on('close', () => resolve(out));
          child.stdin.end(`protocol=${u.protocol.replace(':', '')}\nhost=${u.host}\n\n`);
        });
      const [inWork, outside] = await Promise.all([fill(join(root, 'work', 'acme')), fill(join(root, 'elsewhere'))]);
      expect(inWork).toContain(`password=${mona}`);
      expect(inWork).toContain('username=mona');
      expect(outside).toContain(`password=${hubot}`);
    } finally {
      await rm(gitHome, { recursive: true, force: true });
    }
  });
});

describe('single sign-on', () => {
  it('a 403 asking for single sign-on is one line naming the URL (exit 4); a listing with partial results warns with the organisations left out', async () => {
    await world.admin('hosting/sso', { org: 'ent-corp' });
    const env = { LANYARD_TOKEN: PERSONAL_TOKEN };
    const r = await cli(world, ['api', '/orgs/ent-corp'], { env });
    expect(r.code).toBe(4);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`authorise the token at ${world.url.replace(/[.]/g, '\\.')}/orgs/ent-corp/sso\\?authorization_request=[0-9a-f]+$`));
    expect(r.stderr).not.toContain('at Object');
    const list = await cli(world, ['api', '/user/orgs', '--jq', '.[].login'], { env });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout.trim().split('\n')).toEqual(['octo-org']);
    expect(list.stderr).toContain('single sign-on left out the organisation 21955855');
    // Authorised: the whole listing, no warning.
    await world.admin('hosting/sso-authorize', { org: 'ent-corp', token: PERSONAL_TOKEN });
    const full = await cli(world, ['api', '/user/orgs', '--jq', '.[].login'], { env });
    expect(full.stdout.trim().split('\n').sort()).toEqual(['ent-corp', 'octo-org']);
    expect(full.stderr).toBe('');
    expect((await cli(world, ['api', '/orgs/ent-corp'], { env })).code).toBe(0);
  });
});

describe('auth refresh', () => {
  async function approveNext(run: ReturnType<typeof start>): Promise<void> {
    const [, code] = await run.waitForStderr(USER_CODE);
    await world.admin('hosting/device-approve', { user_code: code });
  }

  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => browser?.close());

  it('adds a scope approved on the emulator device page, replacing the token in place', async () => {
    const first = start(world, ['auth', 'device', '--scopes', 'repo']);
    await approveNext(first);
    expect((await first.done).code).toBe(0);
    const key = `hosting:${host()}:mona`;
    const before = JSON.parse((await credentialsFile(world))[key]!) as { token: string; scopes: string[] };
    const refresh = start(world, ['auth', 'refresh', '--scopes', 'read:org']);
    const [, code] = await refresh.waitForStderr(USER_CODE);
    const [, verification] = await refresh.waitForStderr(VERIFICATION_URI);
    await withPage(browser, async (page) => {
      await signInPage(page, verification!);
      await page.fill('input[name=user_code]', code!);
      await page.click('#continue');
      // The consent page asks for what the token has and the new scope.
      const asked = await text(page, '#scopes');
      expect(asked).toContain('repo');
      expect(asked).toContain('read:org');
      await page.click('button[name=authorize][value="1"]');
      expect(await text(page, '#done')).toContain('connected');
    });
    const r = await refresh.done;
    expect(r.code, r.stderr).toBe(0);
    const devices = (await world.admin('hosting/devices')) as { devices: Array<{ scopes: string[] }> };
    expect(devices.devices.at(-1)!.scopes.sort()).toEqual(['read:org', 'repo']);
    const after = JSON.parse((await credentialsFile(world))[key]!) as { token: string; scopes: string[] };
    expect(after.token).not.toBe(before.token);
    expect(after.scopes.sort()).toEqual(['read:org', 'repo']);
    expect(Object.keys(await credentialsFile(world)).filter((k) => k.startsWith(`hosting:${host()}:`))).toEqual([key]);
    const token = await cli(world, ['auth', 'token']);
    expect(token.stdout.trim()).toBe(after.token);
  });

  it('--web: the web flow asks for the union of the scopes and replaces the token in place', async () => {
    expect((await cli(world, ['auth', 'token', '--with-token'], { input: PERSONAL_TOKEN })).code).toBe(0); // repo read:org gist
    const dir = await mkdtemp(join(tmpdir(), 'lanyard-accounts-web-'));
    try {
      const rec = await recordingBrowser(dir);
      const refresh = start(world, ['auth', 'refresh', '--web', '--scopes', 'workflow'], {
        env: { LANYARD_BROWSER: rec.script, LANYARD_CLIENT_SECRET: APP.clientSecret },
      });
      const url = await waitFor(async () => (await rec.urls())[0]);
      expect(new URL(url).searchParams.get('scope')!.split(' ').sort()).toEqual(['gist', 'read:org', 'repo', 'workflow']);
      await withPage(browser, async (page) => {
        await signInPage(page, url);
        await page.click('button[name=authorize][value="1"]');
        expect(await text(page, 'h1')).toContain('Signed in');
      });
      const r = await refresh.done;
      expect(r.code, r.stderr).toBe(0);
      const stored = JSON.parse((await credentialsFile(world))[`hosting:${host()}:mona`]!) as { token: string; scopes: string[]; origin: string };
      expect(stored.token).not.toBe(PERSONAL_TOKEN);
      expect([stored.origin, stored.scopes.sort()]).toEqual(['web', ['gist', 'read:org', 'repo', 'workflow']]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
