/** The loopback receiver in fragment mode, as the health implicit flow uses it. */
import { describe, expect, it } from 'vitest';
import { startLoopbackReceiver } from '../../../../src/core/auth/loopback.js';
import { FakeClock } from '../../../fakes/clock.js';

const never = new FakeClock(undefined, { autoAdvance: false });
const sleep = (ms: number, s?: AbortSignal) => never.sleep(ms, s);

describe('fragment relay', () => {
  it("serves the relay page, refuses cross-origin posts, accepts the page's own post with the right state", async () => {
    const rx = await startLoopbackReceiver({ state: 'st-1', responseMode: 'fragment' });
    const waiting = rx.wait(60_000, sleep);
    const page = await fetch(rx.redirectUri);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('location.hash');
    expect(html).toContain('history.replaceState');
    const origin = new URL(rx.redirectUri).origin;
    const body = 'access_token=tok&token_type=Bearer&expires_in=3599&state=st-1';
    const evil = await fetch(rx.redirectUri, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    expect(evil.status).toBe(403);
    const ok = await fetch(rx.redirectUri, { method: 'POST', headers: { origin, 'content-type': 'application/x-www-form-urlencoded' }, body });
    expect(ok.status).toBe(200);
    const params = await waiting;
    expect(params.get('access_token')).toBe('tok');
    await rx.close();
  });

  it('a post with another state aborts the flow', async () => {
    const rx = await startLoopbackReceiver({ state: 'st-2', responseMode: 'fragment' });
    const waiting = rx.wait(60_000, sleep).then(
      () => undefined,
      (e: unknown) => e,
    );
    const res = await fetch(rx.redirectUri, {
      method: 'POST',
      body: 'access_token=x&state=other',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(400);
    expect(String(await waiting)).toMatch(/state does not match/);
    await rx.close();
  });
});

describe('query mode', () => {
  it('the first callback counts: a page without script for the browser, a second callback is told the link was used; a wait begun later still gets the first', async () => {
    const rx = await startLoopbackReceiver({ state: 'st-3', productName: 'Lanyard test' });
    const first = await fetch(`${rx.redirectUri}?code=c1&state=st-3`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'");
    expect(await first.text()).toContain('Signed in to Lanyard test');
    const second = await fetch(`${rx.redirectUri}?code=c2&state=st-3`);
    expect(second.status).toBe(409);
    expect(await second.text()).toContain('This sign-in link was already used');
    const params = await rx.wait(60_000, sleep);
    expect(params.get('code')).toBe('c1');
    await rx.close();
  });
});
