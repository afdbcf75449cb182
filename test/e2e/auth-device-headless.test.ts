/**
 * `auth device` without a terminal (issue 25): the sign-in the user asked for
 * by name starts in a child with no controlling terminal (`setsid`) and
 * standard input /dev/null, prints the code and the URL on stderr, and is
 * approved by a person on the emulator's device page (headless Chromium).
 * Sign-ins a command would start on its own still need a person
 * (no-person.test.ts). The signals end it (exit 130, 143). Its CI event line,
 * expiry and LANYARD_PROMPT_DISABLED's refusal are tested as a run function in
 * test/unit/cli/auth/device-flow.test.ts.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { World } from './harness.js';
import { launchBrowser, withPage } from './browser.js';
import { answerDeviceCode, cli, credentialsFile, start, text, tokens, useAuthWorld, USER_CODE, VERIFICATION_URI } from './auth-helpers.js';

let world: World;
let browser: Browser;
useAuthWorld((w) => (world = w));
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());
beforeEach(async () => {
  await cli(world, ['config', 'set', 'hosting.clientId', 'lanyard-cli-emulator']);
});

/** A script's environment: no browser helper, so nothing but the output can reach a person. */
const HEADLESS = { LANYARD_BROWSER: undefined, BROWSER: '/bin/false', CI: undefined, LANYARD_EVENTS: undefined };

describe('auth device without a terminal', () => {
  it('prints the code and URL on stderr, polls, and signs in once the code is approved on the device page', async () => {
    const run = start(world, ['auth', 'device', '--scopes', 'repo'], { noTerminal: true, env: HEADLESS });
    const [, code] = await run.waitForStderr(USER_CODE);
    const [, verification] = await run.waitForStderr(VERIFICATION_URI);
    await withPage(browser, async (page) => {
      await answerDeviceCode(page, verification!, code!);
      expect(await text(page, '#done')).toContain('connected');
    });
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('Logged in as mona');
    expect(r.stderr).not.toMatch(/needs a person/);
    expect(r.stdout).toBe('');
    const t = (await tokens(world, { login: 'mona', clientId: 'lanyard-cli-emulator' }))[0]!;
    expect(t.scopes).toEqual(['repo']);
    expect(Object.keys(await credentialsFile(world))).toContain(`hosting:${new URL(world.url).host}:mona`);
    expect(r.stderr).not.toContain(t.value);
  });

  it('denied on the device page: exit 4, nothing stored', async () => {
    const run = start(world, ['auth', 'device'], { noTerminal: true, env: HEADLESS });
    const [, code] = await run.waitForStderr(USER_CODE);
    const [, verification] = await run.waitForStderr(VERIFICATION_URI);
    await withPage(browser, (page) => answerDeviceCode(page, verification!, code!, { deny: true }));
    const r = await run.done;
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/cancelled by the user/);
    expect(await credentialsFile(world)).toEqual({});
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s while polling: exit %i, and a later approval stores nothing', async (signal, exit) => {
    const run = start(world, ['auth', 'device'], { noTerminal: true, env: HEADLESS });
    const [, code] = await run.waitForStderr(USER_CODE);
    run.child.kill(signal);
    const r = await run.done;
    expect(r.code).toBe(exit);
    await world.admin('hosting/device-approve', { user_code: code });
    expect(await credentialsFile(world)).toEqual({});
  });
});
