/**
 * `auth login --server`: the browser's page does not say "Signed in" before
 * the CLI's checks pass. An authorization response from another issuer
 * (RFC 9207 `iss`) is refused by the CLI, and the page says so, instead of
 * "Signed in to Lanyard".
 */
import { describe, expect, it } from 'vitest';
import { runProtocolLogin } from '../../../../src/cli/commands/auth/protocol.js';
import { ConsentBrowser } from '../../../fakes/consent-browser.js';
import { useEmulatorCommands } from '../on-emulator.js';

const on = useEmulatorCommands();

describe('auth login --server: the page after an issuer mismatch', () => {
  it('iss of another issuer: the CLI refuses (nothing stored), the page says refused, not signed in', async () => {
    const b = new ConsentBrowser('record');
    const pending = on.run((c) => runProtocolLogin(c, { server: `${on.emu.url}/mcp` }), {
      manualClock: true,
      browser: b,
      globals: { timeout: '20s' },
      env: { LANYARD_BROWSER: 'in-process' },
    });
    const authorize = new URL(await b.firstUrl());
    const redirect = authorize.searchParams.get('redirect_uri')!;
    const state = authorize.searchParams.get('state')!;
    const page = await fetch(`${redirect}?code=c0de&state=${encodeURIComponent(state)}&iss=${encodeURIComponent('https://evil.example')}`);
    const html = await page.text();
    expect(page.status).toBe(400);
    expect(html).not.toMatch(/Signed in/);
    expect(html).toMatch(/Sign-in refused/);
    expect(html).toContain('https://evil.example');
    const r = await pending;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/came from issuer https:\/\/evil\.example/);
    expect([...on.store.data.keys()].filter((k) => k.startsWith('protocol:') && !k.includes('client'))).toEqual([]);
  });
});
