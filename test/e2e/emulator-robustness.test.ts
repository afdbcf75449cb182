/**
 * The emulator under bad input, in-process: malformed bodies, unknown
 * api-versions, huge headers, garbage on the wire. Each gets the owning
 * service's error shape and status (or the HTTP parser's 400/431), never a
 * crash or a hang, and the emulator keeps serving. Also: a user revokes a
 * personal token (API and settings page), and the CPU-time secondary limit.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useInProcessEmulator } from './in-process-emulator.js';

const ref = useInProcessEmulator();

const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const basic = (user: string, pass: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}` });

/**
 * Sends raw bytes; resolves with what came back before the server closed (or
 * 3 s passed). A server that answers before it has read everything (431 to a
 * huge header) and closes may reset the connection while the rest is still
 * being written (Node 24's server does): what it answered counts, as a
 * client that reads the answer sees it.
 */
function raw(bytes: string | Buffer): Promise<string> {
  const { port } = new URL(ref.emu.url);
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), '127.0.0.1');
    let out = '';
    s.on('data', (c) => (out += c.toString('latin1')));
    s.on('error', (err: NodeJS.ErrnoException) => (out && (err.code === 'ECONNRESET' || err.code === 'EPIPE') ? resolve(out) : reject(err)));
    s.on('close', () => resolve(out));
    s.setTimeout(3000, () => s.destroy());
    s.end(bytes);
  });
}

async function stillServing(): Promise<void> {
  const r = await fetch(`${ref.emu.urls.hosting.api}/rate_limit`);
  expect(r.status).toBe(200);
}

describe('bad input', () => {
  it('malformed JSON: 400 Problems parsing JSON (hosting), InvalidRequestContent (health), 400 (admin)', async () => {
    const repos = await fetch(`${ref.emu.urls.hosting.api}/user/repos`, {
      method: 'POST',
      headers: { ...bearer(ref.emu.fixtures.hosting.personalToken), 'content-type': 'application/json' },
      body: '{"name": ',
    });
    expect(repos.status).toBe(400);
    expect(await repos.json()).toEqual({ message: 'Problems parsing JSON', documentation_url: expect.stringMatching(/^https:/), status: '400' });

    const app = ref.emu.fixtures.hosting.app;
    const check = await fetch(`${ref.emu.urls.hosting.api}/applications/${app.clientId}/token`, {
      method: 'POST',
      headers: { ...basic(app.clientId, app.clientSecret), 'content-type': 'application/json' },
      body: '[1,2',
    });
    expect([check.status, ((await check.json()) as { message: string }).message]).toEqual([400, 'Problems parsing JSON']);

    const h = ref.emu.fixtures.health;
    const events = `${ref.emu.urls.health.management}/subscriptions/${h.subscriptionId}/providers/Microsoft.ResourceHealth/events`;
    const list = (await (await fetch(`${events}?api-version=2022-10-01`, { headers: bearer(h.token) })).json()) as { value: Array<{ name: string }> };
    const fetchDetails = await fetch(`${events}/${list.value[0]!.name}/fetchEventDetails?api-version=2022-10-01`, {
      method: 'POST',
      headers: { ...bearer(h.token), 'content-type': 'application/json' },
      body: '{oops',
    });
    expect(fetchDetails.status).toBe(400);
    expect(await fetchDetails.json()).toMatchObject({ code: 'InvalidRequestContent' });

    const admin = await fetch(`${ref.emu.urls.admin}/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' });
    expect(admin.status).toBe(400);
    await stillServing();
  });

  it('unknown api-version, unknown health route and wrong method: flat ErrorResponse', async () => {
    const h = ref.emu.fixtures.health;
    const base = `${ref.emu.urls.health.management}/subscriptions/${h.subscriptionId}/providers/Microsoft.ResourceHealth`;
    const v = await fetch(`${base}/events?api-version=1999-01-01`, { headers: bearer(h.token) });
    expect(v.status).toBe(400);
    expect(await v.json()).toMatchObject({ code: 'InvalidApiVersionParameter', message: expect.stringContaining('1999-01-01') });
    const nf = await fetch(`${base}/availabilityStatuses?api-version=2022-10-01`, { headers: bearer(h.token) });
    expect(nf.status).toBe(404);
    expect(await nf.json()).toEqual({ code: 'NotFound', message: 'Not Found' });
    const m = await fetch(`${base}/events?api-version=2022-10-01`, { method: 'DELETE', headers: bearer(h.token) });
    expect(m.status).toBe(405);
    expect(await m.json()).toMatchObject({ code: 'MethodNotAllowed' });
  });

  it('huge headers get 431, garbage gets 400, a bad URL or escape is answered; the emulator keeps serving', async () => {
    const huge = await raw(`GET /api/v3/rate_limit HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(200_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    await stillServing();
    expect(await raw('THIS IS NOT HTTP\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 /);
    await stillServing();
    const badEscape = await fetch(`${ref.emu.urls.hosting.api}/repos/%E0%A4%A/x`);
    expect(badEscape.status).toBe(404);
    expect(await badEscape.json()).toMatchObject({ message: 'Not Found' });
    const absolute = await raw('GET http://[bad HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(absolute).toMatch(/^HTTP\/1\.1 400 /);
    // A body that stops half way: the request is dropped (no 500, no hang).
    const half = await raw(
      `POST /api/v3/user/repos HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: token ${ref.emu.fixtures.hosting.personalToken}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na`,
    );
    expect(half).not.toMatch(/^HTTP\/1\.1 5/);
    await stillServing();
  });
});

describe('a user revokes a personal token', () => {
  const user = () => ref.emu.fixtures.hosting.user;
  async function create(note: string): Promise<{ id: number; token: string }> {
    const r = await fetch(`${ref.emu.urls.hosting.api}/authorizations`, {
      method: 'POST',
      headers: { ...basic(user().login, user().password), 'content-type': 'application/json' },
      body: JSON.stringify({ note, scopes: ['repo'] }),
    });
    expect(r.status).toBe(201);
    return (await r.json()) as { id: number; token: string };
  }
  const works = async (token: string) => (await fetch(`${ref.emu.urls.hosting.api}/user`, { headers: bearer(token) })).status;

  it('through the API: list (no token values), get, delete; the token then gets 401', async () => {
    const a = await create('laptop');
    expect(await works(a.token)).toBe(200);
    const list = (await (await fetch(`${ref.emu.urls.hosting.api}/authorizations`, { headers: basic(user().login, user().password) })).json()) as Array<{
      id: number;
      token: string;
      note: string;
    }>;
    expect(list.find((x) => x.id === a.id)).toMatchObject({ note: 'laptop', token: '' });
    const del = await fetch(`${ref.emu.urls.hosting.api}/authorizations/${a.id}`, { method: 'DELETE', headers: basic(user().login, user().password) });
    expect(del.status).toBe(204);
    expect(await works(a.token)).toBe(401);
    const again = await fetch(`${ref.emu.urls.hosting.api}/authorizations/${a.id}`, { method: 'DELETE', headers: basic(user().login, user().password) });
    expect(again.status).toBe(404);
    // Another user's token cannot be deleted; a token cannot manage authorizations.
    const b = await create('desktop');
    const other = ref.emu.fixtures.hosting.secondUser;
    expect((await fetch(`${ref.emu.urls.hosting.api}/authorizations/${b.id}`, { method: 'DELETE', headers: basic(other.login, other.password) })).status).toBe(
      404,
    );
    expect((await fetch(`${ref.emu.urls.hosting.api}/authorizations`, { headers: bearer(b.token) })).status).toBe(401);
  });

  it('on the settings page: sign in, see the tokens, delete one', async () => {
    const a = await create('ci runner');
    const page = `${ref.emu.url}/settings/tokens`;
    expect(await (await fetch(page)).text()).toMatch(/Sign in to manage your tokens/);
    const signIn = await fetch(page, { method: 'POST', body: new URLSearchParams({ login: user().login, password: user().password }) });
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const html = await signIn.text();
    expect(html).toContain('ci runner');
    expect(html).toContain(`data-token-id="${a.id}"`);
    const del = await fetch(page, { method: 'POST', headers: { cookie }, body: new URLSearchParams({ revoke: String(a.id) }) });
    expect(del.status).toBe(200);
    expect(await del.text()).toMatch(/deleted/);
    expect(await works(a.token)).toBe(401);
  });
});

describe('CPU-time secondary limit (90 s of CPU per 60 s, at most 60 s for the query API)', () => {
  it('modelled per request on the emulator clock: refused past 90 s, served again after the window', async () => {
    await ref.emu.admin('hosting', 'cpu-cost', { path: '/api/v3/search/repositories', ms: 30_000 });
    const search = () => fetch(`${ref.emu.urls.hosting.api}/search/repositories?q=hello`, { headers: bearer(ref.emu.fixtures.hosting.personalToken) });
    for (let i = 0; i < 3; i++) expect((await search()).status).toBe(200);
    const refused = await search();
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { message: string }).message).toMatch(/secondary rate limit/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    ref.emu.advance('61s');
    expect((await search()).status).toBe(200);
  });

  it('the query API has its own 60 s share; REST still has the rest', async () => {
    await ref.emu.admin('hosting', 'cpu-cost', { path: '/api/graphql', ms: 30_000 });
    const gql = () =>
      fetch(`${ref.emu.urls.hosting.graphql}`, {
        method: 'POST',
        headers: { ...bearer(ref.emu.fixtures.hosting.personalToken), 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ viewer { login } }' }),
      });
    expect((await gql()).status).toBe(200);
    expect((await gql()).status).toBe(200);
    expect((await gql()).status).toBe(403);
    expect((await fetch(`${ref.emu.urls.hosting.api}/user`, { headers: bearer(ref.emu.fixtures.hosting.personalToken) })).status).toBe(200);
  });
});
