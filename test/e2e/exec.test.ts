/** `lanyard exec` end to end: credentials in the child's environment only, refreshed first, exit status and signals passed through. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, credentialsFile, INSTALLABLE_APP, start, USER_CODE, userStatus } from './auth-helpers.js';
import { startWorld, type World } from './harness.js';

describe('lanyard exec', () => {
  let world: World;
  let token: string;
  let dir: string;
  beforeAll(async () => {
    world = await startWorld();
    token = ((await world.admin('info', undefined, 'GET')) as { hosting: { personalToken: string } }).hosting.personalToken;
    dir = await mkdtemp(join(tmpdir(), 'lanyard-exec-'));
    // Prints what it was given: its arguments and the credential variables.
    await writeFile(
      join(dir, 'show.cjs'),
      `const e = process.env; console.log(JSON.stringify({ argv: process.argv.slice(2), vars: Object.fromEntries(['LANYARD_TOKEN','GH_TOKEN','GITHUB_TOKEN','GH_HOST','GH_ENTERPRISE_TOKEN','LANYARD_API_URL','LANYARD_PROFILE','LANYARD_API_KEY'].map((k) => [k, e[k]])) })); process.exit(Number(process.argv[2] ?? 0));`,
    );
    // Waits for signals: SIGTERM ends it with 42, the second SIGINT with 43.
    await writeFile(
      join(dir, 'wait.cjs'),
      `let n = 0; process.on('SIGTERM', () => { console.log('child: SIGTERM'); process.exit(42); });
       process.on('SIGINT', () => { console.log('child: SIGINT ' + ++n); if (n === 2) process.exit(43); });
       console.log('ready'); setInterval(() => {}, 1000);`,
    );
  });
  afterAll(async () => {
    await world.stop();
    await rm(dir, { recursive: true, force: true });
  });
  const env = () => ({ LANYARD_TOKEN: token });

  it('hands the hosting token over in the environment, never in the arguments, and passes the exit status through', async () => {
    const r = await cli(world, ['exec', '--', process.execPath, join(dir, 'show.cjs'), '7'], { env: env() });
    expect(r.code, r.stderr).toBe(7);
    const got = JSON.parse(r.stdout) as { argv: string[]; vars: Record<string, string> };
    expect(got.argv).toEqual(['7']);
    expect(got.vars).toMatchObject({ LANYARD_TOKEN: token, GH_TOKEN: token, GITHUB_TOKEN: token, GH_ENTERPRISE_TOKEN: token, LANYARD_PROFILE: 'emulator' });
    expect(got.vars.GH_HOST).toBe(new URL(world.url).host);
    expect(got.vars.LANYARD_API_URL).toBe(`${world.url}/api/v3`);
    expect(r.stderr).not.toContain(token);
  });

  it('several services; a service without a credential is exit 4 and the program does not run', async () => {
    const key = ((await world.admin('info', undefined, 'GET')) as { echo: { apiKeys: Array<{ key: string }> } }).echo.apiKeys[0]!.key;
    const both = await cli(world, ['exec', '--service', 'hosting', '--service', 'echo', '--', process.execPath, join(dir, 'show.cjs')], {
      env: { ...env(), LANYARD_API_KEY: key },
    });
    expect(both.code, both.stderr).toBe(0);
    expect(JSON.parse(both.stdout).vars).toMatchObject({ LANYARD_TOKEN: token, LANYARD_API_KEY: key });
    const none = await cli(world, ['exec', '--service', 'echo', '--', process.execPath, join(dir, 'show.cjs')], { env: env() });
    expect(none.code).toBe(4);
    expect(none.stdout).toBe('');
    expect(none.stderr).toMatch(/^no echo credential to hand over\n/);
  });

  it('a program that is not there: 127, as env(1); a signal that ends the program: 128 + n', async () => {
    const missing = await cli(world, ['exec', '--', join(dir, 'no-such-program')], { env: env() });
    expect(missing.code).toBe(127);
    expect(missing.stderr).toContain('command not found');
    const killed = await cli(world, ['exec', '--', 'sh', '-c', 'kill -KILL $$'], { env: env() });
    expect(killed.code).toBe(137);
  });

  it('forwards SIGTERM to the program and exits with its status', async () => {
    const run = start(world, ['exec', '--', process.execPath, join(dir, 'wait.cjs')], { env: env() });
    await waitForOutput(run.stdout, /ready/);
    run.child.kill('SIGTERM');
    const r = await run.done;
    expect(r.stdout).toContain('child: SIGTERM');
    expect(r.code).toBe(42);
  });

  it('forwards each SIGINT (a second Ctrl-C does not end Lanyard under the program)', async () => {
    const run = start(world, ['exec', '--', process.execPath, join(dir, 'wait.cjs')], { env: env() });
    await waitForOutput(run.stdout, /ready/);
    run.child.kill('SIGINT');
    await waitForOutput(run.stdout, /SIGINT 1/);
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.stdout).toContain('child: SIGINT 2');
    expect(r.code).toBe(43);
  });

  it('a stored token about to expire is refreshed before the program gets it', async () => {
    await cli(world, ['config', 'set', 'hosting.clientId', INSTALLABLE_APP]);
    await world.admin('hosting/device-policy', { interval: 1 });
    const signIn = start(world, ['auth', 'device']);
    const [, code] = await signIn.waitForStderr(USER_CODE);
    await world.admin('hosting/device-approve', { user_code: code });
    expect((await signIn.done).code).toBe(0);
    // Make the stored token expire in a minute (inside the refresh margin).
    const file = join(world.configDir, 'credentials.json');
    const store = JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
    const key = `hosting:${new URL(world.url).host}:mona`;
    const record = JSON.parse(store[key]!) as { token: string; expiresAt: string };
    store[key] = JSON.stringify({ ...record, expiresAt: new Date(Date.now() + 60_000).toISOString() });
    await writeFile(file, JSON.stringify(store), { mode: 0o600 });
    const r = await cli(world, ['exec', '--', process.execPath, join(dir, 'show.cjs')]);
    expect(r.code, r.stderr).toBe(0);
    const handed = (JSON.parse(r.stdout) as { vars: Record<string, string> }).vars.LANYARD_TOKEN!;
    expect(handed).toMatch(/^lyu_/);
    expect(handed).not.toBe(record.token);
    expect(await userStatus(world, handed)).toBe(200);
    expect(JSON.parse((await credentialsFile(world))[key]!).token).toBe(handed);
  });
});

async function waitForOutput(read: () => string, re: RegExp): Promise<void> {
  for (let i = 0; i < 300 && !re.test(read()); i++) await new Promise((r) => setTimeout(r, 50));
  if (!re.test(read())) throw new Error(`no ${re} in ${read()}`);
}
