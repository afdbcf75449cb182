/**
 * `auth login` in an ssh session with no display, as a person and a script
 * meet it: the built CLI on a real pseudo-terminal (the URL, the port to
 * forward, `auth device`; no browser opened or said to be; Ctrl-C ends the
 * wait) and with no terminal (`ssh host lanyard auth login`: exit 4 at once,
 * pointing to `auth device`). Run functions: test/unit/cli/auth/web-login-ssh.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';
import { runOnPty } from './pty.js';
import { APP } from './auth-helpers.js';

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => world?.stop());

/** An ssh session's environment: no display, no browser command. */
const sshEnv = () => ({
  ...world.env,
  SSH_CONNECTION: '203.0.113.5 50022 198.51.100.7 22',
  SSH_TTY: '/dev/pts/3',
  LANYARD_BROWSER: undefined,
  BROWSER: undefined,
  DISPLAY: undefined,
  WAYLAND_DISPLAY: undefined,
  LANYARD_CLIENT_SECRET: APP.clientSecret,
});

describe('auth login over ssh with no display', () => {
  it('on a pseudo-terminal: the URL with the port to forward and auth device, no browser; Ctrl-C ends the wait', async () => {
    const r = await runOnPty({ args: ['--profile', 'emulator', 'auth', 'login'], env: sshEnv(), waitFor: 'auth device', timeout: 20 });
    expect(r.output).toMatch(/no browser can open here/);
    expect(r.output).not.toMatch(/Opening your browser|Asked the system/);
    const port = /ssh -L (\d+):127\.0\.0\.1:\1 /.exec(r.output)?.[1];
    expect(port, r.output).toBeDefined();
    expect(r.output).toContain(`redirect_uri=http%3A%2F%2F127.0.0.1%3A${port}`);
    expect(r.exitCode, r.output).toBe(130);
  });

  it('auth login --server (a protocol server) on a pseudo-terminal: the port to forward, no browser', async () => {
    const server = `${world.url}/mcp`;
    const r = await runOnPty({
      args: ['--profile', 'emulator', 'auth', 'login', '--server', server],
      env: sshEnv(),
      waitFor: '--client-credentials',
      timeout: 20,
    });
    expect(r.output).toMatch(/no browser can open here/);
    expect(r.output).not.toMatch(/could not start a browser/);
    expect(r.output, r.output).toMatch(/ssh -L (\d+):127\.0\.0\.1:\1 /);
    expect(r.exitCode, r.output).toBe(130);
  });

  it('with no terminal (ssh host lanyard auth login): exit 4 at once, naming auth device', async () => {
    const t0 = Date.now();
    const r = await world.run(['--profile', 'emulator', 'auth', 'login'], { env: sshEnv(), timeoutMs: 15_000 });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/cannot finish in an ssh session with no display/);
    expect(r.stderr).toMatch(/lanyard auth device/);
    expect(r.stderr).not.toMatch(/https?:\/\/\S+authorize/);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });
});

describe('auth login --health over ssh with no display (the same as the hosting sign-in)', () => {
  it('on a pseudo-terminal: says so, the URL with the port to forward, no browser; Ctrl-C ends the wait', async () => {
    const r = await runOnPty({ args: ['--profile', 'emulator', 'auth', 'login', '--health'], env: sshEnv(), waitFor: 'Ctrl-C to cancel', timeout: 20 });
    expect(r.output).toMatch(/ssh session with no display: no browser can open here/);
    expect(r.output).not.toMatch(/Opening the sign-in page in your browser/);
    const port = /ssh -L (\d+):127\.0\.0\.1:\1 /.exec(r.output)?.[1];
    expect(port, r.output).toBeDefined();
    expect(r.output).toContain(`redirect_uri=http%3A%2F%2F127.0.0.1%3A${port}`);
    expect(r.output).toMatch(/LANYARD_HEALTH_TOKEN/);
    expect(r.exitCode, r.output).toBe(130);
  });

  it('with no terminal: exit 4 at once, saying why and naming LANYARD_HEALTH_TOKEN; no URL to wait on', async () => {
    const t0 = Date.now();
    const r = await world.run(['--profile', 'emulator', 'auth', 'login', '--health'], { env: sshEnv(), timeoutMs: 15_000 });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/^the service-health sign-in cannot finish in an ssh session with no display \(standard input is not a terminal\)/);
    expect(r.stderr).toMatch(/LANYARD_HEALTH_TOKEN/);
    expect(r.stderr).not.toMatch(/authorize\?/);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });
});
