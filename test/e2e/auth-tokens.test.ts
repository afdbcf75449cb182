/**
 * Tokens end to end: --with-token through the program into the 0600 file, a
 * terminal on stdin, --basic-client (a root option), the re-authorization
 * prompt and the review page. The commands' behaviour (validation, auth token
 * create, auth status's exit codes and JSON, precedence, logout, the token
 * limit) is tested as run functions in test/unit/cli/auth/tokens.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, type World } from './harness.js';
import { APP, cli, credentialsFile, MONA, PERSONAL_TOKEN, start, tokens, useAuthWorld, USER_CODE, userStatus } from './auth-helpers.js';

let world: World;
useAuthWorld((w) => (world = w));

interface StatusJson {
  accounts: Array<{ service: string; account?: string; source: string; valid: boolean; active?: boolean; token?: string; scopes?: string[] }>;
  storage: { kind: string; warning?: string } | null;
}

async function deviceLogin(scopes?: string): Promise<void> {
  const run = start(world, ['auth', 'device', ...(scopes ? ['--scopes', scopes] : [])]);
  const [, code] = await run.waitForStderr(USER_CODE);
  await world.admin('hosting/device-approve', { user_code: code });
  expect((await run.done).code).toBe(0);
}

/** Signs in on the web pages with fetch; returns the session cookie. */
async function webSession(): Promise<string> {
  const res = await fetch(`${world.url}/login/oauth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    body: new URLSearchParams({ client_id: APP.clientId, login: MONA.login, password: MONA.password }),
  });
  await res.arrayBuffer();
  return res.headers.get('set-cookie')!.split(';')[0]!;
}

describe('auth token --with-token', () => {
  it('validates the token with /user and stores it; auth token prints it', async () => {
    const r = await cli(world, ['auth', 'token', '--with-token'], { input: `${PERSONAL_TOKEN}\n` });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Logged in as mona');
    expect(r.stdout + r.stderr).not.toContain(PERSONAL_TOKEN);
    expect(Object.keys(await credentialsFile(world))).toContain(`hosting:${new URL(world.url).host}:mona`);
    const t = await cli(world, ['auth', 'token']);
    expect(t.stdout).toBe(`${PERSONAL_TOKEN}\n`);
    const status = await cli(world, ['auth', 'status', '--json']);
    const st = JSON.parse(status.stdout) as StatusJson;
    expect(st.accounts).toMatchObject([{ account: 'mona', source: 'file', valid: true }]);
    expect(st.storage?.warning).toMatch(/mode 0600/);
  });

  it('a file where the lock directory should be: one error line naming it, exit 1 (not "unexpected error")', async () => {
    const locks = join(world.configDir, 'locks');
    await rename(locks, `${locks}.moved`).catch(() => undefined);
    await writeFile(locks, '');
    try {
      const r = await cli(world, ['auth', 'token', '--with-token'], { input: `${PERSONAL_TOKEN}\n` });
      expect(r.code).toBe(1);
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines.at(-1)).toBe(`cannot create the lock directory ${locks}: a file is in the way`);
      expect(r.stderr).not.toMatch(/unexpected error|EEXIST|ENOTDIR|\n\s+at /);
      expect(r.stdout + r.stderr).not.toContain(PERSONAL_TOKEN);
    } finally {
      await rm(locks, { force: true });
      await rename(`${locks}.moved`, locks).catch(() => undefined);
    }
  });

  it('asks at a terminal without echo instead of refusing; Ctrl-D there (end of input) stores nothing and does not hang', () => {
    const cmd = `${process.execPath} ${BIN} --profile emulator auth token --with-token`;
    const r = spawnSync('script', ['-qec', cmd, '/dev/null'], { env: cleanEnv(world.env), encoding: 'utf8', timeout: 15_000, input: '\u0004' });
    expect(r.stdout).toMatch(/Paste your token \(it is not shown\)/);
    expect(r.stdout).toMatch(/no token was typed/);
    expect(r.stdout).not.toMatch(/echo "\$TOKEN"/);
    expect(r.status).toBe(2);
  });
});

describe('credential precedence: LANYARD_TOKEN > WORKFLOW_TOKEN > stored > anonymous', () => {
  it('--basic-client authenticates hosting calls as the OAuth app (Basic), and needs LANYARD_CLIENT_SECRET', async () => {
    const r = await cli(world, ['--basic-client', '--debug', 'ratelimit', 'status', '--json'], {
      env: { LANYARD_CLIENT_SECRET: APP.clientSecret, LANYARD_TOKEN: 'lyo_ignored' },
    });
    expect(r.stderr).toMatch(/> authorization: Basic \[REDACTED\]/);
    expect(r.stderr).not.toContain(APP.clientSecret);
    expect(r.stderr).not.toContain(Buffer.from(`${APP.clientId}:${APP.clientSecret}`).toString('base64'));
    const missing = await cli(world, ['--basic-client', 'ratelimit', 'status']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/LANYARD_CLIENT_SECRET/);
  });
});

describe('token issuing rules', () => {
  it('scope rules: an authorized user skips the page; more than 10 tokens in an hour brings the re-authorization prompt back, revoking nothing', async () => {
    const cookie = await webSession();
    const authorize = (scope?: string) =>
      fetch(`${world.url}/login/oauth/authorize?${new URLSearchParams({ client_id: APP.clientId, state: 'st', ...(scope !== undefined ? { scope } : {}) })}`, {
        headers: { cookie },
        redirect: 'manual',
      });
    // Not authorized yet: the page, with no scopes when none are asked for.
    const first = await authorize();
    expect(first.status).toBe(200);
    expect(await first.text()).toContain('no scopes');
    for (let i = 0; i < 3; i++) await world.admin('hosting/issue-token', { login: 'mona', clientId: APP.clientId, scopes: i === 0 ? 'repo' : 'gist' });
    // Already authorized: no page; scope omitted grants the union of what was authorized.
    const skip = await authorize();
    expect(skip.status).toBe(302);
    const code = new URL(skip.headers.get('location')!).searchParams.get('code')!;
    const tok = await fetch(`${world.url}/login/oauth/access_token`, {
      method: 'POST',
      headers: { accept: 'application/json' },
      body: new URLSearchParams({ client_id: APP.clientId, client_secret: APP.clientSecret, code }),
    });
    expect(((await tok.json()) as { scope: string }).scope.split(',').sort()).toEqual(['gist', 'repo']);
    // 10 tokens created within the hour for (mona, app, repo): the prompt is back.
    for (let i = 0; i < 9; i++) await world.admin('hosting/issue-token', { login: 'mona', clientId: APP.clientId, scopes: 'repo' });
    const revokedBefore = (await tokens(world)).filter((t) => t.revoked).length;
    const prompt = await authorize('repo');
    expect(prompt.status).toBe(200);
    expect(await prompt.text()).toContain('re-authorize');
    expect((await tokens(world)).filter((t) => t.revoked).length).toBe(revokedBefore);
    // An hour later the skip works again.
    await world.admin('advance', { seconds: 3601 });
    expect((await authorize('repo')).status).toBe(302);
  });
});

describe('review page', () => {
  it('revoking the app deletes its tokens and the SSH keys it generated for the user', async () => {
    await deviceLogin('repo');
    const token = (await tokens(world, { clientId: APP.clientId }))[0]!.value;
    const page = `${world.url}/settings/connections/applications/${APP.clientId}`;
    expect(await (await fetch(page)).text()).toContain('name="password"');
    const signIn = await fetch(page, { method: 'POST', body: new URLSearchParams({ login: MONA.login, password: MONA.password }) });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const review = await signIn.text();
    expect(review).toContain('key generated by the Lanyard CLI app');
    const revoked = await fetch(page, { method: 'POST', headers: { cookie }, body: new URLSearchParams({ revoke: '1' }) });
    expect(await revoked.text()).toMatch(/1 token\(s\) revoked, 1 SSH key\(s\) deleted/);
    const keys = ((await world.admin('hosting/ssh-keys')) as { keys: Array<{ title: string; login: string }> }).keys.filter((k) => k.login === 'mona');
    expect(keys.map((k) => k.title)).toEqual(['key added by mona herself']);
    expect(await userStatus(world, token)).toBe(401);
    expect((await cli(world, ['auth', 'status'])).code).toBe(4);
  });
});
