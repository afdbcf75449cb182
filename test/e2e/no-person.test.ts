/**
 * No interactive sign-in starts unless a person is there (except `auth device`,
 * asked for by name: auth-device-headless.test.ts): with standard input
 * or standard error not a terminal (a script, CI, `… < /dev/null | cat`), or
 * LANYARD_PROMPT_DISABLED set, each sign-in ends at once with exit 4 and the
 * command or variable that works instead; nothing is asked of the server's
 * sign-in endpoints and no browser is started. Here: what needs the program
 * or a terminal (protocol request, LANYARD_PROMPT_DISABLED and a pty). The
 * sign-ins of auth login, auth login --health and echo auth-info, and a piped
 * secret, are tested as run functions in test/unit/cli/auth/no-person.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';
import { runOnPty } from './pty.js';

let world: World;
beforeAll(async () => {
  world = await startWorld();
  await world.run(['--profile', 'emulator', 'config', 'set', 'hosting.clientId', 'lanyard-cli-emulator']);
});
afterAll(async () => world?.stop());

/** No LANYARD_BROWSER (the harness sets one that does nothing): a plain script's environment. */
const SCRIPT = { LANYARD_BROWSER: undefined, BROWSER: '/bin/false' };

describe('sign-ins without a person', () => {
  it('`lanyard protocol request <server> < /dev/null | cat` without a token: exit 4 naming the exact sign-in command', async () => {
    const mcp = `${world.url}/mcp`;
    const r = await world.run(['protocol', 'request', mcp], { env: SCRIPT, timeoutMs: 15_000 });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`lanyard auth login --server ${mcp}`);
    expect(r.stderr).toContain('--client-credentials');
    expect(r.stderr).not.toMatch(/Open this URL/);
    // Nothing registered at the authorization server: a script run in a loop must not leave a new client each time.
    const again = await world.run(['protocol', 'request', mcp], { env: SCRIPT, timeoutMs: 15_000 });
    expect(again.code, again.stderr).toBe(4);
    const { requests: journal } = (await world.admin('requests', undefined, 'GET')) as { requests: Array<{ method: string; path: string }> };
    expect(journal.some((e) => e.path.endsWith('/mcp'))).toBe(true);
    expect(journal.filter((e) => e.path.endsWith('/register')).map((e) => `${e.method} ${e.path}`)).toEqual([]);
  });

  it('LANYARD_PROMPT_DISABLED=1 refuses even on a terminal, and a terminal alone is enough otherwise', async () => {
    const args = ['--profile', 'emulator', 'auth', 'device', '--no-browser'];
    const refused = await runOnPty({ args, env: { ...world.env, ...SCRIPT, LANYARD_PROMPT_DISABLED: '1' }, send: null, timeout: 15 });
    expect(refused.exitCode, refused.output).toBe(4);
    expect(refused.output).toMatch(/LANYARD_PROMPT_DISABLED is set/);
    const asked = await runOnPty({ args, env: { ...world.env, ...SCRIPT }, waitFor: 'one-time code', timeout: 15 });
    expect(asked.output).toMatch(/one-time code: [A-Z0-9]{4}-[A-Z0-9]{4}/);
    expect(asked.exitCode).toBe(130);
  });
});
