import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../../fakes/clock.js';
import { StubHttp } from '../../../fakes/stub-http.js';
import { authorizeUrl, runWebFlow } from '../../../../src/core/hosting/web-flow.js';
import { HttpClient } from '../../../../src/core/http/client.js';
import { OAuthError } from '../../../../src/core/errors.js';
import { systemClock } from '../../../../src/core/system-clock.js';

describe('authorizeUrl', () => {
  it('carries client_id, redirect_uri, space-delimited scope, state and the options; never PKCE', () => {
    const u = new URL(
      authorizeUrl({
        webUrl: 'https://web.example/',
        clientId: 'cid',
        redirectUri: 'http://127.0.0.1:5000/callback',
        state: 's1',
        scopes: ['repo', 'gist'],
        login: 'mona',
        allowSignup: false,
        selectAccount: true,
      }),
    );
    expect(u.origin + u.pathname).toBe('https://web.example/login/oauth/authorize');
    expect(Object.fromEntries(u.searchParams)).toEqual({
      client_id: 'cid',
      redirect_uri: 'http://127.0.0.1:5000/callback',
      scope: 'repo gist',
      state: 's1',
      login: 'mona',
      allow_signup: 'false',
      prompt: 'select_account',
    });
    expect(u.searchParams.has('code_challenge')).toBe(false);
  });
});

describe('runWebFlow', () => {
  let stub: StubHttp | undefined;
  afterEach(async () => stub?.close());

  it('opens the authorize URL, receives the code on the loopback and exchanges it with the same redirect_uri', async () => {
    stub = await StubHttp.start();
    stub.on('POST', '/login/oauth/access_token', {
      headers: { 'content-type': 'application/json' },
      body: { access_token: 'lyo_web', token_type: 'bearer', scope: 'repo' },
    });
    const http = new HttpClient({ clock: new FakeClock(), userAgent: 'test' });
    let opened = '';
    const token = await runWebFlow({
      http,
      clock: systemClock,
      webUrl: stub.url,
      clientId: 'cid',
      clientSecret: 'sek',
      scopes: ['repo'],
      timeoutMs: 10_000,
      openUrl: async (url) => {
        opened = url;
        const u = new URL(url);
        const back = new URL(u.searchParams.get('redirect_uri')!);
        back.searchParams.set('code', 'the-code');
        back.searchParams.set('state', u.searchParams.get('state')!);
        setTimeout(() => void fetch(back), 10);
      },
    });
    expect(token.accessToken).toBe('lyo_web');
    const sent = new URLSearchParams(stub.requests[0]!.body);
    const u = new URL(opened);
    expect(u.searchParams.get('state')!.length).toBeGreaterThanOrEqual(43);
    expect(new URL(u.searchParams.get('redirect_uri')!).hostname).toBe('127.0.0.1');
    expect(Object.fromEntries(sent)).toEqual({ client_id: 'cid', client_secret: 'sek', code: 'the-code', redirect_uri: u.searchParams.get('redirect_uri') });
    await http.close();
  });

  it('aborts on a state mismatch without exchanging anything', async () => {
    stub = await StubHttp.start();
    const http = new HttpClient({ clock: new FakeClock(), userAgent: 'test' });
    let page = 0;
    const err = await runWebFlow({
      http,
      clock: systemClock,
      webUrl: stub.url,
      clientId: 'cid',
      clientSecret: 'sek',
      timeoutMs: 10_000,
      openUrl: async (url) => {
        const back = new URL(new URL(url).searchParams.get('redirect_uri')!);
        back.searchParams.set('code', 'c');
        back.searchParams.set('state', 'forged');
        setTimeout(() => void fetch(back).then((r) => (page = r.status)), 10);
      },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OAuthError);
    expect((err as Error).message).toMatch(/state does not match/);
    expect(stub.requests).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 50));
    expect(page).toBe(400);
    await http.close();
  });

  it('a token the flow refuses: the browser is told sign-in failed (after the exchange), not signed in', async () => {
    stub = await StubHttp.start();
    stub.on('POST', '/login/oauth/access_token', { headers: { 'content-type': 'application/json' }, body: { token_type: 'bearer', scope: 'repo' } });
    const http = new HttpClient({ clock: new FakeClock(), userAgent: 'test' });
    let page: Promise<Response> | undefined;
    const app = { webUrl: stub.url, clientId: 'cid', clientSecret: 'sek' };
    const err = await runWebFlow({
      ...app,
      http,
      clock: systemClock,
      timeoutMs: 10_000,
      openUrl: (url) => {
        const u = new URL(url);
        const back = new URL(u.searchParams.get('redirect_uri')!);
        back.searchParams.set('code', 'c');
        back.searchParams.set('state', u.searchParams.get('state')!);
        page = fetch(back);
      },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    const res = await page!;
    const html = await res.text();
    expect(html).toContain('<h1>Sign-in failed</h1>');
    expect(html).toContain('the server&#39;s response lacks access_token');
    expect(html).not.toContain('Signed in');
    expect(stub.requests).toHaveLength(1);
    await http.close();
  });
});
