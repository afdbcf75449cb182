/**
 * The hosting emulator's OAuth endpoints against the spec, over real HTTP:
 * redirect URL rules (the shared fixture), codes (10 minutes, single use,
 * bound to redirect_uri), parameter sources, encodings, device-flow errors
 * and limits, OPTIONS. The emulator runs in process (no CLI is spawned here;
 * formerly test/e2e/auth-emulator.test.ts on a spawned `lanyard emulator`);
 * the admin verbs are called on it directly.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useInProcessEmulator } from '../../e2e/in-process-emulator.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const MONA = { login: 'mona', password: 'lanyard-emulator-password' };
const APP = { clientId: 'lanyard-cli-emulator', clientSecret: 'lanyard-cli-emulator-secret-0000000000000001' };
const NO_DEVICE_APP = 'lanyard-web-only';

const e = useInProcessEmulator();
/** The emulator's URL and admin verbs (`hosting/<verb>`, `advance`), as the end-to-end tests named them. */
const world = {
  get url() {
    return e.emu.url;
  },
  async admin(path: string, body: Record<string, unknown> = {}): Promise<unknown> {
    if (path === 'advance') return e.emu.advance(Number(body.seconds) * 1000);
    const [service, verb] = path.split('/');
    return e.emu.admin(service!, verb!, body);
  },
};

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

async function post(path: string, params: Record<string, string>, o: { accept?: string; as?: 'form' | 'json' | 'query'; cookie?: string } = {}) {
  const as = o.as ?? 'form';
  const url = new URL(world.url + path);
  const headers: Record<string, string> = {};
  if (o.accept) headers.accept = o.accept;
  if (o.cookie) headers.cookie = o.cookie;
  let body: string | undefined;
  if (as === 'query') for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  else if (as === 'json') {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(params);
  } else body = new URLSearchParams(params).toString();
  if (as === 'form') headers['content-type'] = 'application/x-www-form-urlencoded';
  return fetch(url, { method: 'POST', headers, body, redirect: 'manual' });
}

async function json(path: string, params: Record<string, string>, as: 'form' | 'json' | 'query' = 'form'): Promise<Record<string, string | number>> {
  const res = await post(path, params, { accept: 'application/json', as });
  return (await res.json()) as Record<string, string | number>;
}

/** Signs in and authorizes on the authorize page; returns the redirect Location. */
async function authorize(params: Record<string, string>): Promise<string> {
  const res = await post('/login/oauth/authorize', {
    client_id: APP.clientId,
    state: 'xyz',
    ...params,
    login: MONA.login,
    password: MONA.password,
    authorize: '1',
  });
  expect(res.status).toBe(302);
  return res.headers.get('location')!;
}

describe('redirect URL rules (fixtures/hosting/redirect-uri-cases.json)', async () => {
  const fixture = JSON.parse(
    await readFile(join(ROOT, '..', 'shared', 'fixtures', 'hosting', 'redirect-uri-cases.json'), 'utf8').catch(() =>
      readFile('/work/shared/fixtures/hosting/redirect-uri-cases.json', 'utf8'),
    ),
  ) as { groups: Array<{ callback: string; cases: Array<{ redirect_uri: string; accepted: boolean }> }> };
  const cases = fixture.groups.flatMap((g, gi) => g.cases.map((c) => ({ ...c, callback: g.callback, app: `fixture-app-${gi}` })));
  it.each(cases)('callback $callback, redirect_uri $redirect_uri → accepted: $accepted', async (c) => {
    await world.admin('hosting/add-app', { clientId: c.app, clientSecret: 'secret-' + c.app, callbackUrl: c.callback });
    const res = await fetch(`${world.url}/login/oauth/authorize?${new URLSearchParams({ client_id: c.app, redirect_uri: c.redirect_uri, state: 's' })}`, {
      redirect: 'manual',
    });
    const body = await res.text();
    if (c.accepted) {
      expect(res.status).toBe(200);
      expect(body).toContain('name="password"');
    } else {
      expect(res.status).toBe(400);
      expect(body).toContain('redirect_uri_mismatch');
    }
  });

  it('rule 1: without redirect_uri the user goes to the configured callback', async () => {
    const loc = new URL(await authorize({}));
    expect(`${loc.origin}${loc.pathname}`).toBe('http://127.0.0.1/callback');
    expect(loc.searchParams.get('state')).toBe('xyz');
  });
});

describe('authorization codes', () => {
  const redirect = 'http://127.0.0.1:4567/callback';
  const exchange = (code: string, extra: Record<string, string> = {}) =>
    json('/login/oauth/access_token', { client_id: APP.clientId, client_secret: APP.clientSecret, code, redirect_uri: redirect, ...extra });

  it('exchanged once; a second exchange fails', async () => {
    const code = new URL(await authorize({ redirect_uri: redirect, scope: 'repo' })).searchParams.get('code')!;
    const t = await exchange(code);
    expect(t).toMatchObject({ token_type: 'bearer', scope: 'repo' });
    expect(await exchange(code)).toMatchObject({ error: 'bad_verification_code' });
  });

  it('valid 10 minutes', async () => {
    const code = new URL(await authorize({ redirect_uri: redirect })).searchParams.get('code')!;
    await world.admin('advance', { seconds: 601 });
    expect(await exchange(code)).toMatchObject({ error: 'bad_verification_code' });
    const fresh = new URL(await authorize({ redirect_uri: redirect })).searchParams.get('code')!;
    await world.admin('advance', { seconds: 590 });
    expect(await exchange(fresh)).toHaveProperty('access_token');
  });

  it('bound to its redirect_uri and client; wrong secret refused', async () => {
    const code = new URL(await authorize({ redirect_uri: redirect })).searchParams.get('code')!;
    expect(await exchange(code, { redirect_uri: 'http://127.0.0.1:9999/callback' })).toMatchObject({ error: 'redirect_uri_mismatch' });
    expect(await exchange(code, { client_secret: 'nope' })).toMatchObject({ error: 'incorrect_client_credentials' });
    expect(await exchange(code)).toHaveProperty('access_token');
  });

  it('cancel redirects with access_denied and the state', async () => {
    const res = await post('/login/oauth/authorize', {
      client_id: APP.clientId,
      state: 'st8',
      redirect_uri: redirect,
      login: MONA.login,
      password: MONA.password,
      authorize: '0',
    });
    const loc = new URL(res.headers.get('location')!);
    expect(Object.fromEntries(loc.searchParams)).toMatchObject({ error: 'access_denied', state: 'st8' });
  });

  it('account picker: with prompt=select_account or several signed-in accounts, the user chooses', async () => {
    const first = await post('/login/oauth/authorize', { client_id: APP.clientId, login: MONA.login, password: MONA.password });
    const cookie = first.headers.get('set-cookie')!.split(';')[0]!;
    await first.arrayBuffer();
    const picker1 = await (await fetch(`${world.url}/login/oauth/authorize?client_id=${APP.clientId}&prompt=select_account`, { headers: { cookie } })).text();
    expect(picker1).toContain('id="account-picker"');
    // A second account on the same browser: the picker lists both, even without prompt.
    const second = await post('/login/oauth/authorize', { client_id: APP.clientId, login: 'hubot', password: 'hubot-emulator-password' }, { cookie });
    await second.arrayBuffer();
    const picker2 = await (await fetch(`${world.url}/login/oauth/authorize?client_id=${APP.clientId}&scope=repo`, { headers: { cookie } })).text();
    expect(picker2).toContain('value="mona"');
    expect(picker2).toContain('value="hubot" checked');
    const chosen = await post('/login/oauth/authorize', { client_id: APP.clientId, scope: 'repo', account: 'mona', authorize: '1' }, { cookie });
    const code = new URL(chosen.headers.get('location')!).searchParams.get('code')!;
    const t = await json('/login/oauth/access_token', { client_id: APP.clientId, client_secret: APP.clientSecret, code });
    const me = await fetch(`${world.url}/api/v3/user`, { headers: { authorization: `Bearer ${String(t.access_token)}` } });
    expect(((await me.json()) as { login: string }).login).toBe('mona');
  });

  it('PKCE parameters and the implicit grant are refused', async () => {
    const pkce = await fetch(
      `${world.url}/login/oauth/authorize?${new URLSearchParams({ client_id: APP.clientId, code_challenge: 'x', code_challenge_method: 'S256' })}`,
    );
    expect(pkce.status).toBe(400);
    const implicit = await fetch(`${world.url}/login/oauth/authorize?${new URLSearchParams({ client_id: APP.clientId, response_type: 'token' })}`);
    expect(implicit.status).toBe(400);
  });

  it('unknown client_id: an error page, no redirect', async () => {
    const res = await fetch(`${world.url}/login/oauth/authorize?client_id=nobody&redirect_uri=http://evil.example/`, { redirect: 'manual' });
    expect(res.status).toBe(404);
  });

  it('allow_signup: the sign-up link is offered by default and works', async () => {
    const page = await (await fetch(`${world.url}/login/oauth/authorize?client_id=${APP.clientId}`)).text();
    const href = /id="signup" href="([^"]+)"/.exec(page)![1]!.replace(/&amp;/g, '&');
    const res = await fetch(world.url + href.replace(/^.*?\/signup/, '/signup'), {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ login: 'newbie', password: 'newbie-password', return_to: new URL(world.url + href).searchParams.get('return_to')! }),
    });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toMatch(/^\/login\/oauth\/authorize\?/);
    const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
    const consent = await (await fetch(world.url + res.headers.get('location')!, { headers: { cookie } })).text();
    expect(consent).toContain('Signed in as <strong>newbie</strong>');
    const out = await fetch(`${world.url}/logout`, { method: 'POST', headers: { cookie } });
    expect(out.status).toBe(200);
    const after = await (await fetch(world.url + res.headers.get('location')!, { headers: { cookie } })).text();
    expect(after).not.toContain('Signed in as');
    expect(after).toContain('Sign in to continue');
  });
});

describe('token endpoint and device code endpoint', () => {
  it('parameters are accepted from the query, a form body and a JSON body', async () => {
    for (const as of ['query', 'form', 'json'] as const) {
      const d = await json('/login/device/code', { client_id: APP.clientId, scope: 'repo gist' }, as);
      expect(String(d.device_code)).toMatch(/^[0-9a-f]{40}$/);
      expect(
        await json('/login/oauth/access_token', { client_id: APP.clientId, device_code: String(d.device_code), grant_type: DEVICE_GRANT }, as),
      ).toMatchObject({ error: 'authorization_pending' });
    }
  });

  it('device authorization response: 40-char device code, XXXX-XXXX user code, 900 s, interval; form by default, JSON, XML', async () => {
    const form = await post('/login/device/code', { client_id: APP.clientId });
    expect(form.headers.get('content-type')).toMatch(/application\/x-www-form-urlencoded/);
    const f = new URLSearchParams(await form.text());
    expect(f.get('device_code')).toHaveLength(40);
    expect(f.get('user_code')).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    expect(f.get('verification_uri')).toBe(`${world.url}/login/device`);
    expect(f.get('expires_in')).toBe('900');
    expect(f.get('interval')).toBe('5');
    const xml = await post('/login/device/code', { client_id: APP.clientId }, { accept: 'application/xml' });
    expect(xml.headers.get('content-type')).toMatch(/xml/);
    expect(await xml.text()).toMatch(/<OAuth><device_code>[0-9a-f]{40}<\/device_code><user_code>/);
  });

  it('token responses in the three encodings with comma-separated scopes', async () => {
    const loc = new URL(await authorize({ scope: 'repo gist' }));
    const code = loc.searchParams.get('code')!;
    const res = await post('/login/oauth/access_token', { client_id: APP.clientId, client_secret: APP.clientSecret, code });
    const f = new URLSearchParams(await res.text());
    expect(f.get('scope')).toBe('repo,gist');
    expect(f.get('token_type')).toBe('bearer');
    const code2 = new URL(await authorize({ scope: 'repo' })).searchParams.get('code')!;
    const x = await (
      await post('/login/oauth/access_token', { client_id: APP.clientId, client_secret: APP.clientSecret, code: code2 }, { accept: 'application/xml' })
    ).text();
    expect(x).toMatch(/^<\?xml[^>]*>\n<OAuth><access_token>lyo_[^<]+<\/access_token><token_type>bearer<\/token_type><scope>repo<\/scope><\/OAuth>/);
  });

  it('every device-flow error code of the spec', async () => {
    const d = await json('/login/device/code', { client_id: APP.clientId });
    const dc = String(d.device_code);
    const poll = (extra: Record<string, string>) =>
      json('/login/oauth/access_token', { client_id: APP.clientId, device_code: dc, grant_type: DEVICE_GRANT, ...extra });
    expect(await json('/login/oauth/access_token', { client_id: APP.clientId, device_code: dc })).toMatchObject({ error: 'unsupported_grant_type' });
    expect(await poll({ grant_type: 'password' })).toMatchObject({ error: 'unsupported_grant_type' });
    expect(await poll({ client_id: 'nobody' })).toMatchObject({ error: 'incorrect_client_credentials' });
    expect(await poll({ device_code: 'f'.repeat(40) })).toMatchObject({ error: 'incorrect_device_code' });
    expect(await json('/login/device/code', { client_id: NO_DEVICE_APP })).toMatchObject({ error: 'device_flow_disabled' });
    expect(await json('/login/oauth/access_token', { client_id: NO_DEVICE_APP, device_code: dc, grant_type: DEVICE_GRANT })).toMatchObject({
      error: 'device_flow_disabled',
    });
    // pending, then polled too soon: slow_down with the interval grown by 5 s (and again).
    expect(await poll({})).toMatchObject({ error: 'authorization_pending' });
    expect(await poll({})).toMatchObject({ error: 'slow_down', interval: 10 });
    expect(await poll({})).toMatchObject({ error: 'slow_down', interval: 15 });
    await world.admin('advance', { seconds: 16 });
    expect(await poll({})).toMatchObject({ error: 'authorization_pending' });
    await world.admin('hosting/device-approve', { user_code: String(d.user_code), deny: true });
    await world.admin('advance', { seconds: 16 });
    expect(await poll({})).toMatchObject({ error: 'access_denied' });
    // Expiry.
    const e = await json('/login/device/code', { client_id: APP.clientId });
    await world.admin('advance', { seconds: 901 });
    expect(await json('/login/oauth/access_token', { client_id: APP.clientId, device_code: String(e.device_code), grant_type: DEVICE_GRANT })).toMatchObject({
      error: 'expired_token',
    });
  });

  it('errors arrive with HTTP 200, form-encoded by default', async () => {
    const res = await post('/login/oauth/access_token', { client_id: APP.clientId, device_code: 'x', grant_type: DEVICE_GRANT });
    expect(res.status).toBe(200);
    expect(new URLSearchParams(await res.text()).get('error')).toBe('incorrect_device_code');
  });

  it('a device token is issued once', async () => {
    await world.admin('hosting/device-policy', { interval: 1 });
    const d = await json('/login/device/code', { client_id: APP.clientId, scope: 'repo' });
    await world.admin('hosting/device-approve', { user_code: String(d.user_code) });
    const poll = () => json('/login/oauth/access_token', { client_id: APP.clientId, device_code: String(d.device_code), grant_type: DEVICE_GRANT });
    expect(await poll()).toMatchObject({ token_type: 'bearer', scope: 'repo' });
    await world.admin('advance', { seconds: 2 });
    expect(await poll()).toMatchObject({ error: 'incorrect_device_code' });
  });

  it('OPTIONS (CORS pre-flight) is not supported', async () => {
    for (const p of ['/login/oauth/access_token', '/login/device/code', '/login/oauth/authorize', '/api/v3/authorizations']) {
      const res = await fetch(world.url + p, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
      expect(res.status).toBe(405);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it('2,000 token requests per hour per app, then a secondary rate limit', async () => {
    const one = () =>
      post('/login/oauth/access_token', { client_id: APP.clientId, device_code: 'x', grant_type: DEVICE_GRANT }).then(async (r) => {
        await r.arrayBuffer();
        return r.status;
      });
    for (let i = 0; i < 2000; i += 50) {
      const statuses = await Promise.all(Array.from({ length: 50 }, one));
      expect(statuses.every((s) => s === 200)).toBe(true);
    }
    const limited = await post('/login/oauth/access_token', { client_id: APP.clientId, device_code: 'x', grant_type: DEVICE_GRANT });
    expect(limited.status).toBe(429);
    expect(await limited.text()).toMatch(/secondary rate limit/);
    await world.admin('advance', { seconds: 3601 });
    expect(await one()).toBe(200);
  });
});

describe('device verification page', () => {
  async function session(): Promise<string> {
    const res = await post('/login/device', { login: MONA.login, password: MONA.password, user_code: '' });
    await res.arrayBuffer();
    return res.headers.get('set-cookie')!.split(';')[0]!;
  }

  it('50 code submissions per hour per application', async () => {
    const cookie = await session();
    const d = await json('/login/device/code', { client_id: APP.clientId });
    for (let i = 0; i < 50; i++) {
      const res = await post('/login/device', { user_code: String(d.user_code) }, { cookie });
      await res.arrayBuffer();
      expect(res.status).toBe(200);
    }
    const over = await post('/login/device', { user_code: String(d.user_code) }, { cookie });
    expect(over.status).toBe(429);
    expect(await over.text()).toMatch(/Too many codes/);
    // Another app is not affected.
    await world.admin('hosting/add-app', { clientId: 'other-app', clientSecret: 's', callbackUrl: 'http://127.0.0.1/callback' });
    const o = await json('/login/device/code', { client_id: 'other-app' });
    expect((await post('/login/device', { user_code: String(o.user_code) }, { cookie })).status).toBe(200);
  });

  it('an expired code is refused on the page', async () => {
    const cookie = await session();
    const d = await json('/login/device/code', { client_id: APP.clientId });
    await world.admin('advance', { seconds: 901 });
    const res = await post('/login/device', { user_code: String(d.user_code) }, { cookie });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/expired/);
  });
});

describe('non-web flow: POST /api/v3/authorizations', () => {
  const basic = (u: string, p: string) => 'Basic ' + Buffer.from(`${u}:${p}`).toString('base64');
  it('creates a personal token with Basic authentication; wrong password 401; note required', async () => {
    const res = await fetch(`${world.url}/api/v3/authorizations`, {
      method: 'POST',
      headers: { authorization: basic(MONA.login, MONA.password), 'content-type': 'application/json' },
      body: JSON.stringify({ scopes: ['repo'], note: 'test' }),
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { token: string; scopes: string[] };
    expect(body.scopes).toEqual(['repo']);
    const user = await fetch(`${world.url}/api/v3/user`, { headers: { authorization: `Bearer ${body.token}` } });
    expect(((await user.json()) as { login: string }).login).toBe('mona');
    const bad = await fetch(`${world.url}/api/v3/authorizations`, {
      method: 'POST',
      headers: { authorization: basic(MONA.login, 'nope') },
      body: '{"note":"x"}',
    });
    expect(bad.status).toBe(401);
    const noNote = await fetch(`${world.url}/api/v3/authorizations`, {
      method: 'POST',
      headers: { authorization: basic(MONA.login, MONA.password) },
      body: '{}',
    });
    expect(noNote.status).toBe(422);
  });
});
