/** The loopback receiver in fragment mode, as the health implicit flow uses it. */
import { describe, expect, it } from 'vitest';
import { startLoopbackReceiver } from '../../../../src/core/auth/loopback.js';
import { OAuthError } from '../../../../src/core/errors.js';
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
    const okAnswer = fetch(rx.redirectUri, { method: 'POST', headers: { origin, 'content-type': 'application/x-www-form-urlencoded' }, body });
    const { params, finish } = await waiting;
    expect(params.get('access_token')).toBe('tok');
    await finish(async () => undefined);
    const ok = await okAnswer;
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('Signed in to Lanyard\nYou can close this window and return to the terminal.');
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
  it('the first callback counts: a page without script for the browser, sent once the flow has finished; a second callback is told the link was used', async () => {
    const rx = await startLoopbackReceiver({ state: 'st-3', productName: 'Lanyard test' });
    let answered = false;
    const answer = fetch(`${rx.redirectUri}?code=c1&state=st-3`).finally(() => {
      answered = true;
    });
    const callback = await rx.wait(60_000, sleep);
    expect(callback.params.get('code')).toBe('c1');
    const second = await fetch(`${rx.redirectUri}?code=c2&state=st-3`);
    expect(second.status).toBe(409);
    expect(await second.text()).toContain('This sign-in link was already used');
    // The browser is still waiting: nothing is said before the flow's outcome.
    expect(answered).toBe(false);
    expect(await callback.finish(async () => 'token')).toBe('token');
    const first = await answer;
    expect(first.status).toBe(200);
    expect(first.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'");
    expect(await first.text()).toContain('Signed in to Lanyard test');
    await rx.close();
  });
});

describe('the page tells the outcome of the exchange', () => {
  it('a failed exchange: the page says sign-in failed and why (escaped), and the error reaches the caller', async () => {
    const rx = await startLoopbackReceiver({ state: 'st-4' });
    const answer = fetch(`${rx.redirectUri}?code=c1&state=st-4`);
    const callback = await rx.wait(60_000, sleep);
    const refused = new OAuthError('invalid_grant', 'The code <b>expired</b>', undefined);
    await expect(callback.finish(() => Promise.reject(refused))).rejects.toBe(refused);
    const res = await answer;
    expect(res.status).toBe(502);
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'");
    const html = await res.text();
    expect(html).toContain('<h1>Sign-in failed</h1>');
    expect(html).toContain('invalid_grant');
    expect(html).toContain('&lt;b&gt;expired&lt;/b&gt;');
    expect(html).not.toContain('Signed in');
    await rx.close();
  });

  it('an error that is not one of ours is not shown (it could carry anything)', async () => {
    const rx = await startLoopbackReceiver({ state: 'st-5' });
    const answer = fetch(`${rx.redirectUri}?code=c1&state=st-5`);
    const callback = await rx.wait(60_000, sleep);
    await expect(callback.finish(() => Promise.reject(new Error('secret-ish detail')))).rejects.toThrow('secret-ish');
    const html = await (await answer).text();
    expect(html).toContain('an unexpected error');
    expect(html).not.toContain('secret-ish');
    await rx.close();
  });

  it('bounded: an exchange that outlasts answerWithinMs leaves the page saying it finishes in the terminal', async () => {
    const clock = new FakeClock(undefined, { autoAdvance: false });
    const rx = await startLoopbackReceiver({ state: 'st-6', answerWithinMs: 30_000 });
    const answer = fetch(`${rx.redirectUri}?code=c1&state=st-6`);
    const callback = await rx.wait(120_000, (ms, s) => clock.sleep(ms, s));
    let release!: () => void;
    const done = callback.finish(() => new Promise<string>((r) => (release = () => r('late'))));
    clock.advance(29_999);
    await new Promise((r) => setImmediate(r));
    clock.advance(1);
    const html = await (await answer).text();
    expect(html).toContain('Finishing sign-in in the terminal');
    release();
    expect(await done).toBe('late');
    await rx.close();
  });

  it('closed before the flow finished: the waiting browser is told to look at the terminal, not left hanging', async () => {
    const rx = await startLoopbackReceiver({ state: 'st-7' });
    const answer = fetch(`${rx.redirectUri}?code=c1&state=st-7`);
    await rx.wait(60_000, sleep);
    await rx.close();
    const res = await answer;
    expect(res.status).toBe(500);
    expect(await res.text()).toContain('Sign-in did not finish');
  });
});
