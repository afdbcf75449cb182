/**
 * Device flow end to end: CLI ↔ emulator (the user's answer given through the
 * admin verb): the wiring of one sign-in, and Ctrl-C. The flow's behaviour
 * (slow_down, expiry on either side, denial, an app without the device flow,
 * a transient error, an installable app's refresh) is tested as a run
 * function in test/unit/cli/auth/device-flow.test.ts.
 */
import { readFile } from 'node:fs/promises';
import { beforeEach, describe, expect, it } from 'vitest';
import type { World } from './harness.js';
import { cli, credentialsFile, start, tokens, useAuthWorld, USER_CODE } from './auth-helpers.js';

let world: World;
useAuthWorld((w) => (world = w));
beforeEach(async () => {
  await cli(world, ['config', 'set', 'hosting.clientId', 'lanyard-cli-emulator']);
});

describe('auth device', () => {
  it('happy path: shows the code, polls, revalidates with /user, stores under the login', async () => {
    const run = start(world, ['auth', 'device', '--scopes', 'repo read:org']);
    const [, code] = await run.waitForStderr(USER_CODE);
    await run.waitForStderr(new RegExp(`${world.url.replace(/[.]/g, '\\.')}/login/device`));
    await world.admin('hosting/device-approve', { user_code: code });
    const r = await run.done;
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Logged in as mona');
    const t = (await tokens(world, { login: 'mona', clientId: 'lanyard-cli-emulator' }))[0]!;
    expect(t.scopes).toEqual(['repo', 'read:org']);
    const creds = await credentialsFile(world);
    expect(JSON.parse(creds[`hosting:${new URL(world.url).host}:mona`]!).token).toBe(t.value);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toContain(t.value);
    const cfg = await readFile(`${world.configDir}/config.json`, 'utf8');
    expect(cfg).not.toContain(t.value);
    const printed = await cli(world, ['auth', 'token']);
    expect(printed.stdout.trim()).toBe(t.value);
  });

  it('Ctrl-C while polling exits 130 and stores nothing', async () => {
    const run = start(world, ['auth', 'device']);
    const [, code] = await run.waitForStderr(USER_CODE);
    run.child.kill('SIGINT');
    const r = await run.done;
    expect(r.code).toBe(130);
    await world.admin('hosting/device-approve', { user_code: code });
    expect(await credentialsFile(world)).toEqual({});
  });
});
