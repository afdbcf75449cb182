/**
 * No interactive sign-in starts without a person, as run functions against
 * the in-process emulator (formerly spawned in test/e2e/no-person.test.ts,
 * which keeps the pty cases and protocol request): the context's IO is no
 * terminal, as under a script or CI; each sign-in ends at once with exit 4 and
 * what works instead, nothing asked of the sign-in endpoints, no browser.
 */
import { describe, expect, it } from 'vitest';
import { runHealthLogin } from '../../../../src/cli/commands/auth/health.js';
import { runAuthLogin } from '../../../../src/cli/commands/auth/login.js';
import { runEchoAuthInfo } from '../../../../src/cli/commands/echo/auth-info.js';
import type { Context } from '../../../../src/cli/context.js';
import { useEmulatorCommands } from '../on-emulator.js';

const cmd = useEmulatorCommands();

describe('sign-ins without a person', () => {
  it.each([
    ['auth login (web flow)', (ctx: Context) => runAuthLogin(ctx, {}), { LANYARD_CLIENT_SECRET: 'x' }, /LANYARD_TOKEN/],
    ['auth login --health', (ctx: Context) => runHealthLogin(ctx, { health: true }), {}, /LANYARD_HEALTH_TOKEN/],
    ['echo auth-info --scheme id-token', (ctx: Context) => runEchoAuthInfo(ctx, { scheme: 'id-token' }), {}, /lanyard echo token --scheme id-token/],
  ])('%s: exit 4 at once with what works instead', async (_name, f, env, hint) => {
    cmd.emu.clearRequests();
    const r = await cmd.run(f, { env });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/needs a person at a terminal, and standard input is not a terminal/);
    expect(r.stderr).toMatch(hint);
    expect(r.stderr).not.toMatch(/https?:\/\/\S+\/(authorize|login)/);
    expect(r.stdout).toBe('');
    // Nothing asked of a sign-in endpoint (discovery documents may be read).
    const signIns = cmd.emu.requests().filter((e) => e.service !== 'admin' && /authorize|token|device|\/login/.test(e.path));
    expect(signIns.map((e) => `${e.method} ${e.path}`)).toEqual([]);
    expect(cmd.opened).toEqual([]);
  });

  it('auth login with the client secret piped in: stdin is input, so a terminal stderr decides (here a pipe: exit 4)', async () => {
    const r = await cmd.run((ctx) => runAuthLogin(ctx, {}), { stdin: 'secret\n' });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/standard error is not a terminal/);
    expect(cmd.opened).toEqual([]);
  });
});
