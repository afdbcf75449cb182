/**
 * Secrets typed at a terminal: `auth token --with-token` and `echo key set`
 * with a terminal on stdin ask for the value without echoing it (as gh does),
 * rather than refusing and advising `echo "$TOKEN" | …` (which puts the secret
 * in the shell's history). Run on a real pseudo-terminal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';
import { PERSONAL_TOKEN } from './auth-helpers.js';
import { runOnPty } from './pty.js';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => world?.stop());

const hex = (s: string) => Buffer.from(s).toString('hex');
const typed = (args: string[], waitFor: string, keys: string[], env: Record<string, string> = {}) =>
  runOnPty({ args: ['--profile', 'emulator', ...args], env: { ...world.env, LANYARD_PAGER: '', ...env }, waitFor, send: keys[0]!, sendAfter: keys.slice(1) });

describe('a secret typed at the terminal', () => {
  it('auth token --with-token asks for the token without echo and stores it', async () => {
    await world.run(['--profile', 'emulator', 'auth', 'logout', '--user', 'mona']);
    const r = await typed(['auth', 'token', '--with-token'], 'Paste your token', [hex(PERSONAL_TOKEN.slice(0, 10)), hex(`${PERSONAL_TOKEN.slice(10)}\r`)]);
    expect(r.exitCode, r.output).toBe(0);
    expect(r.output).toContain('Logged in as mona');
    expect(r.output).not.toContain(PERSONAL_TOKEN.slice(0, 10));
    expect(r.output).not.toContain('echo "$TOKEN"');
    expect(r.modeAfter).toBe(r.modeBefore);
    expect((await world.run(['--profile', 'emulator', 'auth', 'token'])).stdout.trim()).toBe(PERSONAL_TOKEN);
  });

  it('Ctrl-C at the token prompt is exit 130 and stores nothing', async () => {
    await world.run(['--profile', 'emulator', 'auth', 'logout', '--user', 'mona']);
    const r = await typed(['auth', 'token', '--with-token'], 'Paste your token', [hex('lyp_half'), '03']);
    expect(r.exitCode, r.output).toBe(130);
    expect(r.modeAfter).toBe(r.modeBefore);
    expect((await world.run(['--profile', 'emulator', 'auth', 'token'])).code).toBe(4);
  });

  it('with LANYARD_PROMPT_DISABLED it refuses (exit 2) and says to redirect a file', async () => {
    const r = await typed(['auth', 'token', '--with-token'], '.', ['0d'], { LANYARD_PROMPT_DISABLED: '1' });
    expect(r.exitCode, r.output).toBe(2);
    expect(r.output).toContain('--with-token < token.txt');
  });

  it('echo key set asks for the key without echo and stores it', async () => {
    const r = await typed(['echo', 'key', 'set'], 'API key', [hex('k3y-typed-at-the-terminal\r')]);
    expect(r.exitCode, r.output).toBe(0);
    expect(r.output).not.toContain('k3y-typed-at-the-terminal');
    expect(r.output).toMatch(/API key \S+ stored/);
    const status = JSON.parse((await world.run(['--profile', 'emulator', 'echo', 'key', 'status', '--json'])).stdout) as { configured: boolean };
    expect(status.configured).toBe(true);
  });
});
