/**
 * Octokit (the code host's own JavaScript client) against the emulator,
 * in-process: REST calls and their headers, Bad credentials on a public
 * endpoint, the throttling and retry plugins against the emulator's limits
 * and faults, the device flow (auth-oauth-device), and the OAuth app methods
 * (oauth-methods: device code, token check, reset, scope, delete, grant).
 */
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { Octokit as Core } from '@octokit/core';
import { Octokit } from '@octokit/rest';
import { throttling } from '@octokit/plugin-throttling';
import { retry } from '@octokit/plugin-retry';
import { createOAuthDeviceAuth } from '@octokit/auth-oauth-device';
import { checkToken, createDeviceCode, deleteAuthorization, deleteToken, exchangeDeviceCode, resetToken, scopeToken } from '@octokit/oauth-methods';
import { useInProcessEmulator } from './in-process-emulator.js';

const ref = useInProcessEmulator();

const rest = (auth?: string) => new Octokit({ auth, baseUrl: ref.emu.urls.hosting.api });
const appToken = async (scopes: string[], clientId = ref.emu.fixtures.hosting.app.clientId) =>
  ((await ref.emu.admin('hosting', 'issue-token', { login: 'mona', clientId, scopes })) as { access_token: string }).access_token;

describe('REST', () => {
  it('the signed-in user, a repository, the scope headers and the rate-limit headers', async () => {
    const o = rest(ref.emu.fixtures.hosting.personalToken);
    const me = await o.rest.users.getAuthenticated();
    expect(me.data).toMatchObject({ login: 'mona', id: 1, type: 'User' });
    expect(me.headers['x-oauth-scopes']).toBe('repo, read:org, gist');
    expect(me.headers['x-ratelimit-limit']).toBe('5000');
    const repo = await o.rest.repos.get({ owner: 'mona', repo: 'hello-world' });
    expect(repo.data.full_name).toBe('mona/hello-world');
    expect(repo.headers['x-accepted-oauth-scopes']).toBe('repo');
    expect(repo.data.url).toBe(`${ref.emu.urls.hosting.api}/repos/mona/hello-world`);
    const root = await o.request('GET /');
    expect(root.data).toMatchObject({ current_user_url: `${ref.emu.urls.hosting.api}/user` });
  });

  it('a token that is not valid is refused even on a public endpoint: 401 Bad credentials', async () => {
    const err = await rest('lyp_unknown_token_000000000000000000000')
      .rest.repos.get({ owner: 'mona', repo: 'hello-world' })
      .catch((e) => e);
    expect(err.status).toBe(401);
    expect(err.response.data).toMatchObject({ message: 'Bad credentials' });
    // Anonymous access to the same public repository is fine.
    expect((await rest().rest.repos.get({ owner: 'mona', repo: 'hello-world' })).status).toBe(200);
  });

  it('errors of unknown routes and unreadable bodies are in the API shape', async () => {
    const o = rest(ref.emu.fixtures.hosting.personalToken);
    const nf = await o.request('GET /no/such/route').catch((e) => e);
    expect([nf.status, nf.response.data.message]).toEqual([404, 'Not Found']);
    expect(nf.response.data.documentation_url).toMatch(/^https:\/\//);
  });
});

describe('conditional requests and the usual headers (as the code host documents them)', () => {
  const token = () => ref.emu.fixtures.hosting.personalToken;

  it('a read carries ETag and Last-Modified; If-None-Match and If-Modified-Since answer 304, which a signed-in caller does not pay for', async () => {
    const o = rest(token());
    const first = await o.rest.users.getAuthenticated();
    const etag = first.headers.etag!;
    expect(etag).toMatch(/^W\/"[0-9a-f]{64}"$/);
    expect(first.headers['last-modified']).toBe(new Date(first.data.updated_at).toUTCString());
    const remaining = first.headers['x-ratelimit-remaining'];

    const byTag = await o.rest.users.getAuthenticated({ headers: { 'if-none-match': etag } }).catch((e) => e);
    expect(byTag.status).toBe(304);
    expect(byTag.response.headers.etag).toBe(etag);
    expect(byTag.response.headers['x-ratelimit-remaining']).toBe(remaining);
    const byDate = await o.rest.users.getAuthenticated({ headers: { 'if-modified-since': first.headers['last-modified']! } }).catch((e) => e);
    expect(byDate.status).toBe(304);
    expect(byDate.response.headers['x-ratelimit-remaining']).toBe(remaining);
    expect((await o.rest.rateLimit.get()).data.resources.core.remaining).toBe(Number(remaining));

    // A stale tag (or an older date) gets the whole answer, and it counts.
    const stale = await o.rest.users.getAuthenticated({ headers: { 'if-none-match': 'W/"0000"' } });
    expect([stale.status, stale.headers['x-ratelimit-remaining']]).toEqual([200, String(Number(remaining) - 1)]);
    const older = await o.rest.users.getAuthenticated({ headers: { 'if-modified-since': new Date(Date.parse(first.data.updated_at) - 1000).toUTCString() } });
    expect(older.status).toBe(200);
    // Another caller's answer has another tag: its tag never matches this caller's.
    const hubot = (await ref.emu.admin('hosting', 'issue-token', { login: 'hubot', clientId: ref.emu.fixtures.hosting.app.clientId, scopes: [] })) as {
      access_token: string;
    };
    expect((await rest(hubot.access_token).rest.users.getAuthenticated({ headers: { 'if-none-match': etag } })).status).toBe(200);
  });

  it('a repository says when it was updated and pushed to; its Last-Modified follows updated_at and If-Modified-Since answers 304', async () => {
    const o = rest(token());
    const repo = await o.rest.repos.get({ owner: 'mona', repo: 'hello-world' });
    expect(repo.data).toMatchObject({ full_name: 'mona/hello-world', fork: false, owner: { login: 'mona', type: 'User' } });
    expect(Date.parse(repo.data.updated_at)).not.toBeNaN();
    expect(Date.parse(repo.data.pushed_at!)).not.toBeNaN();
    expect(repo.headers['last-modified']).toBe(new Date(repo.data.updated_at).toUTCString());
    const again = await o.rest.repos
      .get({ owner: 'mona', repo: 'hello-world', headers: { 'if-modified-since': repo.headers['last-modified']! } })
      .catch((e) => e);
    expect(again.status).toBe(304);
    // The list items are repositories too, without the counts only one repository carries.
    const mine = await o.rest.repos.listForAuthenticatedUser();
    expect(mine.data.find((r) => r.name === 'hello-world')).toMatchObject({ updated_at: repo.data.updated_at, has_downloads: true });
    expect(mine.data[0]).not.toHaveProperty('subscribers_count');
  });

  it('the ETag follows the representation, not the spelling of Accept: none, application/json and application/vnd.github+json share one, and a 304', async () => {
    const url = `${ref.emu.urls.hosting.api}/repos/mona/hello-world`;
    const get = (headers: Record<string, string>) => fetch(url, { headers: { authorization: `token ${token()}`, ...headers } });
    const first = await get({});
    await first.arrayBuffer();
    const etag = first.headers.get('etag')!;
    for (const accept of ['application/json', 'application/vnd.github+json', 'application/vnd.github.v3+json', '*/*']) {
      const same = await get({ accept });
      await same.arrayBuffer();
      expect(same.headers.get('etag'), accept).toBe(etag);
      const cached = await get({ accept, 'if-none-match': etag });
      expect(cached.status, accept).toBe(304);
    }
    // No Accept at all (fetch always sends one): the same tag.
    const bare = await new Promise<string | undefined>((resolve, reject) => {
      const u = new URL(url);
      request({ host: u.hostname, port: u.port, path: u.pathname, headers: { authorization: `token ${token()}` } }, (res) => {
        res.resume();
        resolve(res.headers.etag);
      })
        .on('error', reject)
        .end();
    });
    expect(bare).toBe(etag);
    // Another representation (the raw media type) is another tag.
    const raw = await get({ accept: 'application/vnd.github.raw+json' });
    await raw.arrayBuffer();
    expect(raw.headers.get('etag')).not.toBe(etag);
  });

  it('an anonymous 304 still counts against the address', async () => {
    const anon = rest();
    const first = await anon.rest.repos.get({ owner: 'mona', repo: 'hello-world' });
    expect(first.headers['cache-control']).toBe('public, max-age=60, s-maxage=60');
    const again = await anon.rest.repos.get({ owner: 'mona', repo: 'hello-world', headers: { 'if-none-match': first.headers.etag! } }).catch((e) => e);
    expect(again.status).toBe(304);
    expect(Number(again.response.headers['x-ratelimit-remaining'])).toBe(Number(first.headers['x-ratelimit-remaining']) - 1);
  });

  it('media type, request id, API version (selected, or a 400 for one the service does not have), CORS and hardening headers', async () => {
    const o = rest(token());
    const me = await o.rest.users.getAuthenticated();
    expect(me.headers).toMatchObject({
      'x-github-media-type': 'github.v3; format=json',
      'x-github-api-version-selected': '2022-11-28',
      'cache-control': 'private, max-age=60, s-maxage=60',
      'access-control-allow-origin': '*',
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'deny',
    });
    expect(me.headers['x-github-request-id']).toMatch(/^[0-9A-F]{4}:[0-9A-F]{4}:[0-9A-F]{7}:[0-9A-F]{7}:[0-9A-F]{6}$/);
    expect(me.headers.vary).toMatch(/^Accept, Authorization, Cookie, X-GitHub-OTP/);
    expect(me.headers['access-control-expose-headers']).toMatch(/\bETag\b.*\bX-RateLimit-Remaining\b.*\bX-GitHub-Request-Id\b/);
    const raw = await o.request('GET /user', { headers: { accept: 'application/vnd.github.raw+json', 'x-github-api-version': '2026-03-10' } });
    expect(raw.headers['x-github-media-type']).toBe('github.v3; param=raw; format=json');
    expect(raw.headers['x-github-api-version-selected']).toBe('2026-03-10');
    const bad = await o.request('GET /user', { headers: { 'x-github-api-version': '2001-01-01' } }).catch((e) => e);
    expect(bad.status).toBe(400);
    expect(bad.response.data.message).toBe('API version 2001-01-01 is not supported.');
    // Errors carry them too (the rate limiter's refusals included).
    const nf = await o.request('GET /users/{u}', { u: 'nobody-here' }).catch((e) => e);
    expect(nf.response.headers['x-github-request-id']).toBeTruthy();
    expect(nf.response.headers.etag).toBeUndefined();
  });
});

describe('throttling and retry plugins', () => {
  const Throttled = Octokit.plugin(throttling, retry);

  it('primary limit: onRateLimit gets the wait from x-ratelimit-reset; secondary: onSecondaryRateLimit retries after retry-after', async () => {
    const calls: string[] = [];
    const o = new Throttled({
      auth: ref.emu.fixtures.hosting.personalToken,
      baseUrl: ref.emu.urls.hosting.api,
      throttle: {
        onRateLimit: (retryAfter: number) => {
          calls.push(`primary ${retryAfter}`);
          return false;
        },
        onSecondaryRateLimit: (retryAfter: number) => {
          calls.push(`secondary ${retryAfter}`);
          return true;
        },
      },
      retry: { retryAfterBaseValue: 1 },
    });
    await ref.emu.budget({ login: 'mona', remaining: 0, resetInSeconds: 40 });
    const err = await o.rest.users.getAuthenticated().catch((e) => e);
    expect(err.status).toBe(403);
    expect(calls).toHaveLength(1);
    expect(Number(calls[0]!.split(' ')[1])).toBeGreaterThanOrEqual(38);
    await ref.emu.reset();
    calls.length = 0;
    // (retry-after 0 would read as "absent" to the plugin, which then waits its 60 s fallback.)
    await ref.emu.secondary({ login: 'mona', retryAfter: 1, count: 1 });
    expect((await o.rest.users.getAuthenticated()).data.login).toBe('mona');
    expect(calls).toEqual(['secondary 1']);
  });

  it('the retry plugin retries an injected 502 and succeeds', async () => {
    const o = new Throttled({
      auth: ref.emu.fixtures.hosting.personalToken,
      baseUrl: ref.emu.urls.hosting.api,
      throttle: { enabled: false },
      retry: { retryAfterBaseValue: 1 },
    });
    ref.emu.fault({ type: 'status', status: 502, path: '/api/v3/user', count: 1 });
    expect((await o.rest.users.getAuthenticated()).data.login).toBe('mona');
    expect(ref.emu.info().hosting).toBeDefined();
  });
});

describe('OAuth', () => {
  const request = () => new Core({ baseUrl: ref.emu.urls.hosting.api }).request;

  it('device flow with auth-oauth-device: verification URL without a default port, token for the user', async () => {
    await ref.emu.admin('hosting', 'device-policy', { interval: 0 });
    let verificationUri = '';
    const auth = createOAuthDeviceAuth({
      clientType: 'oauth-app',
      clientId: ref.emu.fixtures.hosting.app.clientId,
      scopes: ['repo', 'read:org'],
      request: request(),
      onVerification: async (v) => {
        verificationUri = v.verification_uri;
        await ref.emu.admin('hosting', 'device-approve', { user_code: v.user_code });
      },
    });
    const a = await auth({ type: 'oauth' });
    expect(verificationUri).toBe(`${ref.emu.url}/login/device`);
    // The token response lists scopes comma-separated (spec); the library splits on spaces, as it does with the real service.
    expect(a.scopes.flatMap((x) => x.split(','))).toEqual(['repo', 'read:org']);
    expect((await rest(a.token).rest.users.getAuthenticated()).data.login).toBe('mona');
  });

  it('oauth-methods: device code exchange, check, reset, delete token, delete grant', async () => {
    const { clientId, clientSecret } = ref.emu.fixtures.hosting.app;
    await ref.emu.admin('hosting', 'device-policy', { interval: 0 });
    const code = await createDeviceCode({ clientType: 'oauth-app', clientId, scopes: ['repo'], request: request() });
    await ref.emu.admin('hosting', 'device-approve', { user_code: code.data.user_code });
    const { authentication } = await exchangeDeviceCode({ clientType: 'oauth-app', clientId, code: code.data.device_code, request: request() });
    const token = authentication.token;

    const checked = await checkToken({ clientType: 'oauth-app', clientId, clientSecret, token, request: request() });
    expect(checked.data.user?.login).toBe('mona');
    expect(checked.authentication.scopes).toEqual(['repo']);

    const reset = await resetToken({ clientType: 'oauth-app', clientId, clientSecret, token, request: request() });
    expect(reset.authentication.token).not.toBe(token);
    expect(reset.data.id).toBe(checked.data.id);
    const old = await checkToken({ clientType: 'oauth-app', clientId, clientSecret, token, request: request() }).catch((e) => e);
    expect(old.status).toBe(404);

    const wrongSecret = await checkToken({
      clientType: 'oauth-app',
      clientId,
      clientSecret: 'nope',
      token: reset.authentication.token,
      request: request(),
    }).catch((e) => e);
    expect(wrongSecret.status).toBe(401);

    expect((await deleteToken({ clientType: 'oauth-app', clientId, clientSecret, token: reset.authentication.token, request: request() })).status).toBe(204);
    const gone = await rest(reset.authentication.token)
      .rest.users.getAuthenticated()
      .catch((e) => e);
    expect(gone.status).toBe(401);

    // Deleting the grant revokes every token of the app for the user.
    const t1 = await appToken(['repo']);
    const t2 = await appToken(['gist']);
    expect((await deleteAuthorization({ clientType: 'oauth-app', clientId, clientSecret, token: t1, request: request() })).status).toBe(204);
    expect(
      (
        await rest(t2)
          .rest.users.getAuthenticated()
          .catch((e) => e)
      ).status,
    ).toBe(401);
  });

  it('scopeToken for an installable app; refused for a classic OAuth app', async () => {
    const app = ref.emu.fixtures.hosting.installableApp;
    const token = await appToken([], app.clientId);
    const scoped = await scopeToken({
      clientType: 'github-app',
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      token,
      target: 'mona',
      permissions: { contents: 'read' },
      request: request(),
    });
    expect(scoped.authentication.token).not.toBe(token);
    expect(scoped.data.expires_at).toMatch(/Z$/);
    const { clientId, clientSecret } = ref.emu.fixtures.hosting.app;
    const classic = await appToken(['repo']);
    const refused = await request()('POST /applications/{client_id}/token/scoped', {
      client_id: clientId,
      access_token: classic,
      headers: { authorization: `basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
    }).catch((e) => e);
    expect(refused.status).toBe(422);
  });
});
