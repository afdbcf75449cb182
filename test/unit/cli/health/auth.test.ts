/**
 * The service-health sign-in's command behaviour around the browser, on the
 * run functions against the in-process emulator (formerly spawned end to
 * end): a stored token is used by `health events` (the environment's wins),
 * `auth logout --health` forgets it, an expired one asks for a new sign-in,
 * --no-browser prints the URL, a profile without health.clientId is exit 2.
 * The sign-in itself (the page, the fragment relay) stays in
 * test/e2e/health-auth.test.ts, driven in Chromium.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { runHealthLogin, runHealthLogout, runHealthToken } from '../../../../src/cli/commands/auth/health.js';
import { runHealthEvents } from '../../../../src/cli/commands/health/run.js';
import { healthAccount } from '../../../../src/core/health/token.js';
import { ConsentBrowser } from '../../../fakes/consent-browser.js';
import { useEmulatorCommands } from '../on-emulator.js';

const on = useEmulatorCommands();
let token: string;
beforeAll(async () => {
  token = (on.emu.info() as { health: { token: string } }).health.token;
});

/** A sign-in's record in the store, expiring `inMs` after the emulator's now. */
async function storeToken(inMs: number): Promise<void> {
  const now = on.emu.now();
  await on.store.set(healthAccount(on.emu.url), JSON.stringify({ access_token: token, token_type: 'Bearer', expires_at: now + inMs, obtained_at: now }));
}

describe('a stored health token', () => {
  it('is used by health events; LANYARD_HEALTH_TOKEN wins over it; logout forgets it', async () => {
    await storeToken(3_600_000);
    const t = await on.run((c) => runHealthToken(c, {}));
    expect(t.stdout).toBe(`${token}\n`);
    const ev = await on.run((c) => runHealthEvents(c, { max: '2' }), { format: 'json' });
    expect(ev.code, ev.stderr).toBe(0);
    expect(JSON.parse(ev.stdout)).toHaveLength(2);
    const envWins = await on.run((c) => runHealthEvents(c, {}), { env: { LANYARD_HEALTH_TOKEN: 'bogus' } });
    expect(envWins.code).toBe(4);
    expect(envWins.stderr).toMatch(/InvalidAuthenticationToken/);
    const out = await on.run((c) => runHealthLogout(c, {}));
    expect(out.code).toBe(0);
    expect(out.stderr).toMatch(/^✓ Removed the service-health token for 127\.0\.0\.1:\d+\./);
    const after = await on.run((c) => runHealthEvents(c, {}));
    expect(after.code).toBe(4);
    expect(after.stderr).toMatch(/not signed in to the health API/);
    expect((await on.run((c) => runHealthToken(c, {}))).code).toBe(4);
  });

  it('expired (within the 30 s skew) asks for a new sign-in, exit 4', async () => {
    await storeToken(29_000);
    const r = await on.run((c) => runHealthEvents(c, {}));
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^the health API token expired at .*\nthe implicit flow gives no refresh token: run `lanyard auth login --health` again/m);
  });
});

describe('auth login --health', () => {
  it('--no-browser prints the URL instead of opening one, and gives up after --timeout (exit 1)', async () => {
    const b = new ConsentBrowser('record');
    const r = await on.run((c) => runHealthLogin(c, { browser: false }), { globals: { timeout: '1s' }, browser: b, env: { LANYARD_BROWSER: 'in-process' } });
    expect(r.stderr).toMatch(/Open this URL in a browser to sign in:\n {2}http:\/\/127\.0\.0\.1:\d+\/common\/oauth2\/authorize\?response_type=token&/);
    expect(b.urls).toEqual([]);
    expect(r.code).toBe(1); // timed out waiting
    expect(r.clock.sleeps).toContain(1000);
  });

  it('over ssh with no display and no terminal: exit 4 at once, saying why (as the hosting auth login), no browser, no wait', async () => {
    const b = new ConsentBrowser('record');
    const r = await on.run((c) => runHealthLogin(c, {}), { browser: b, env: { SSH_CONNECTION: '203.0.113.5 50022 198.51.100.7 22' } });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(
      /^the service-health sign-in cannot finish in an ssh session with no display \(standard input is not a terminal\): its page redirects to 127\.0\.0\.1 on this machine\nset LANYARD_HEALTH_TOKEN/,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(2);
    expect(b.urls).toEqual([]);
    expect(r.clock.sleeps).toEqual([]);
  });

  it('a profile without health.clientId is exit 2, naming the setting', async () => {
    const r = await on.run((c) => runHealthLogin(c, {}), { settings: { 'health.clientId': undefined }, env: { LANYARD_BROWSER: 'in-process' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/profile "emulator" has no health\.clientId\nrun `lanyard config set health\.clientId <value> --profile emulator`/);
  });
});
