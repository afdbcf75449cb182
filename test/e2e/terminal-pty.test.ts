/**
 * Every command that waits, on a real pseudo-terminal (Python's pty module):
 * the Ctrl-C key (the byte 0x03 typed into the terminal, not a signal sent by
 * the test) ends it with exit 130 within a second and leaves the terminal's
 * mode as it was; `emulator start` ends with 0; a background job is never
 * stopped by the terminal (SIGTTOU/SIGTTIN).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';
import { runOnPty, type PtyResult } from './pty.js';

/** How long the key may take to end a command (the bound). */
const INTERRUPT_BOUND_MS = 1000;

let world: World;
beforeAll(async () => {
  world = await startWorld();
  await world.run(['--profile', 'emulator', 'config', 'set', 'hosting.clientId', 'lanyard-cli-emulator']);
});
afterAll(async () => world?.stop());

const inWorld = (extra: Record<string, string | undefined> = {}) => ({ ...world.env, ...extra });

function expectInterrupted(r: PtyResult): void {
  expect(r.sent, r.output).toBe(true);
  expect(r.exitCode, r.output).toBe(130);
  expect(r.exitAfterSendMs).not.toBeNull();
  expect(r.exitAfterSendMs!).toBeLessThan(INTERRUPT_BOUND_MS);
  expect(r.modeAfter).toBe(r.modeBefore);
  // The cursor is shown again when a spinner hid it.
  if (r.output.includes('\u001b[?25l')) expect(r.output.lastIndexOf('\u001b[?25h')).toBeGreaterThan(r.output.lastIndexOf('\u001b[?25l'));
}

describe('Ctrl-C on a terminal', () => {
  it('auth device (spinner while polling)', async () => {
    const r = await runOnPty({ args: ['--profile', 'emulator', 'auth', 'device'], env: inWorld(), waitFor: 'Waiting for authorization' });
    expectInterrupted(r);
  });

  it('auth login (web flow, spinner while the loopback waits)', async () => {
    const r = await runOnPty({
      args: ['--profile', 'emulator', 'auth', 'login'],
      env: inWorld({ LANYARD_CLIENT_SECRET: 'lanyard-cli-emulator-secret-0000000000000001' }),
      waitFor: 'Waiting for the browser',
    });
    expectInterrupted(r);
  });

  it('ratelimit wait (a countdown that moves)', async () => {
    await world.admin('hosting/budget', { remaining: 0, resetInSeconds: 60 });
    const r = await runOnPty({ args: ['--profile', 'emulator', 'ratelimit', 'wait'], env: inWorld(), waitFor: 'resets in', settle: 2.5 });
    expectInterrupted(r);
    const shown = [...r.output.matchAll(/resets in (\d+)s/g)].map((m) => Number(m[1]));
    expect(new Set(shown).size).toBeGreaterThan(1);
    await world.admin('reset');
  });

  it('protocol sign-in (protocol request without a token)', async () => {
    const r = await runOnPty({ args: ['protocol', 'request', `${world.url}/mcp`], env: inWorld(), waitFor: 'Waiting for the browser' });
    expectInterrupted(r);
  });

  it('health sign-in (auth login --health)', async () => {
    const r = await runOnPty({ args: ['--profile', 'emulator', 'auth', 'login', '--health'], env: inWorld(), waitFor: 'Waiting for the browser' });
    expectInterrupted(r);
  });

  it('echo sign-in (echo auth-info --scheme id-token)', async () => {
    const r = await runOnPty({
      args: ['--profile', 'emulator', 'echo', 'auth-info', '--scheme', 'id-token'],
      env: inWorld(),
      waitFor: 'Waiting for the sign-in',
    });
    expectInterrupted(r);
  });

  it('emulator start ends with 0 (its normal end)', async () => {
    const r = await runOnPty({ args: ['emulator', 'start', '--port', '0', '--no-profile'], env: inWorld(), waitFor: 'Emulator listening' });
    expect(r.exitCode, r.output).toBe(0);
    expect(r.exitAfterSendMs!).toBeLessThan(INTERRUPT_BOUND_MS);
    expect(r.modeAfter).toBe(r.modeBefore);
    expect(r.output).toContain('Shutting down the emulator');
  });
});

describe('odd terminal sizes', () => {
  it('a 0-column terminal gets plain lines, not a flood of cursor escapes', async () => {
    await world.admin('hosting/budget', { remaining: 0, resetInSeconds: 60 });
    const r = await runOnPty({ args: ['--profile', 'emulator', 'ratelimit', 'wait'], env: inWorld(), cols: 0, rows: 0, waitFor: 'resets in', settle: 2 });
    expectInterrupted(r);
    expect(r.output.length).toBeLessThan(2000);
    expect(r.output).not.toContain('\u001b[1G');
    await world.admin('reset');
  });
});

describe('background jobs', () => {
  it('`lanyard ratelimit wait &` on a terminal is not stopped by the terminal and finishes', async () => {
    await world.admin('hosting/budget', { remaining: 0, resetInSeconds: 2 });
    const r = await runOnPty({ args: ['--profile', 'emulator', 'ratelimit', 'wait'], env: inWorld(), background: true, send: null, timeout: 20 });
    expect(r.stopped, r.output).toBe(false);
    expect(r.exitCode, r.output).toBe(0);
    expect(r.output).toMatch(/core: \d+ of \d+ requests available/);
    await world.admin('reset');
  });
});
