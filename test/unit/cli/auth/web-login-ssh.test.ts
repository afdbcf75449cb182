/**
 * `auth login` (the web flow, whose page redirects to a loopback listener on
 * this machine) in an ssh session with no display: no browser is opened or
 * said to be, the URL comes with what works (a browser here, an `ssh -L`
 * forward of the listener's port, or `auth device`); without a person it
 * ends at once with exit 4 pointing to `auth device`, as gh does. The
 * browser helper says "opened" only when an opener started. The same on a
 * real pseudo-terminal and with no terminal: test/e2e/auth-web-ssh.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { runAuthLogin } from '../../../../src/cli/commands/auth/login.js';
import { createBrowser } from '../../../../src/cli/terminal/browser.js';
import { remoteWithoutDisplay } from '../../../../src/cli/terminal/interactive.js';
import { useEmulatorCommands } from '../on-emulator.js';

const cmd = useEmulatorCommands();
const SECRET = 'lanyard-cli-emulator-secret-0000000000000001';
const SSH = { SSH_CONNECTION: '203.0.113.5 50022 198.51.100.7 22', LANYARD_CLIENT_SECRET: SECRET };
/** A person at a terminal (the fake's stdin is never one): stderr a terminal, the secret piped in. */
const atTerminal = { env: { SSH_CONNECTION: SSH.SSH_CONNECTION }, stdin: `${SECRET}\n`, tty: true, globals: { timeout: '1s' } };

describe('auth login over ssh with no display', () => {
  it('without a terminal: exit 4 at once, one line and a hint naming auth device; no browser, no listener wait', async () => {
    const t0 = Date.now();
    const r = await cmd.run((ctx) => runAuthLogin(ctx, {}), { env: SSH });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^the browser sign-in cannot finish in an ssh session with no display \(standard input is not a terminal\)/);
    expect(r.stderr).toMatch(/lanyard auth device/);
    expect(r.stderr).not.toMatch(/Opening|Asked the system|Open this URL/);
    expect(r.stderr.trim().split('\n')).toHaveLength(2);
    expect(cmd.opened).toEqual([]);
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('on a terminal: the URL, the port to forward with ssh -L, auth device; no browser opened', async () => {
    const r = await cmd.run((ctx) => runAuthLogin(ctx, {}), atTerminal);
    expect(cmd.opened).toEqual([]);
    expect(r.stderr).not.toMatch(/Opening your browser|Asked the system/);
    expect(r.stderr).toMatch(/ssh session with no display: no browser can open here/);
    const port = /ssh -L (\d+):127\.0\.0\.1:(\d+) /.exec(r.stderr);
    expect(port?.[1]).toBe(port?.[2]);
    const url = new URL(/\n {2}(http\S+)\n/.exec(r.stderr)![1]!);
    expect(new URL(url.searchParams.get('redirect_uri')!).port).toBe(port![1]);
    expect(r.stderr).toMatch(/lanyard auth device/);
  });

  it('a display (X forwarding) or a browser command named: a browser may open, as before', async () => {
    expect(remoteWithoutDisplay({ SSH_CONNECTION: 'x' })).toBe(true);
    expect(remoteWithoutDisplay({ SSH_TTY: '/dev/pts/1' })).toBe(true);
    expect(remoteWithoutDisplay({ SSH_CONNECTION: 'x', DISPLAY: 'localhost:10.0' })).toBe(false);
    expect(remoteWithoutDisplay({ SSH_CONNECTION: 'x', WAYLAND_DISPLAY: 'wayland-0' })).toBe(false);
    expect(remoteWithoutDisplay({ SSH_CONNECTION: 'x', BROWSER: 'w3m' })).toBe(false);
    expect(remoteWithoutDisplay({})).toBe(false);
    const r = await cmd.run((ctx) => runAuthLogin(ctx, {}), { ...atTerminal, env: { ...atTerminal.env, DISPLAY: 'localhost:10.0' } });
    expect(cmd.opened).toHaveLength(1);
    expect(r.stderr).toMatch(/Asked the system to open a browser on this machine; if no sign-in page appears, open this URL/);
  });
});

describe('the browser helper', () => {
  it('over ssh with no display it opens nothing and says so (false); an opener that cannot start is false', async () => {
    expect(await createBrowser({ SSH_CONNECTION: 'x' }).open('https://example.test/')).toBe(false);
    expect(await createBrowser({ LANYARD_BROWSER: '/nonexistent/opener' }).open('https://example.test/')).toBe(false);
  });
});
