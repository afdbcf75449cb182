/**
 * The hosting emulator's rate limiter over real HTTP (in-process emulator on
 * 127.0.0.1): every row of the Primary REST limits table, the headers,
 * GET /rate_limit, secondary limits and the admin verbs.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../../src/emulator/server.js';
import { installationLimit } from '../../../src/emulator/services/hosting/ratelimit/callers.js';
import { RATE_LIMIT_SEED } from '../../../src/emulator/services/hosting/ratelimit/seed.js';
import { SEED } from '../../../src/emulator/services/hosting/state.js';

let emu: Emulator;
const tok = (note: string) => RATE_LIMIT_SEED.tokens.find((t) => t.note.includes(note))!.value;

beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
});
afterAll(async () => {
  await emu.close();
});
beforeEach(async () => {
  await admin('reset');
});

async function admin(path: string, body: unknown = {}): Promise<any> {
  const r = await fetch(`${emu.url}/_emulator/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const j = await r.json();
  if (!r.ok) throw new Error(`${path}: ${r.status} ${JSON.stringify(j)}`);
  return j;
}

async function call(path: string, o: { token?: string; basic?: string; method?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = {};
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.basic) headers.authorization = `Basic ${Buffer.from(o.basic).toString('base64')}`;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(emu.url + path, { method: o.method ?? 'GET', headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
  const text = await r.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  const h = (n: string) => r.headers.get(n);
  return {
    status: r.status,
    json,
    h,
    limit: Number(h('x-ratelimit-limit')),
    remaining: Number(h('x-ratelimit-remaining')),
    used: Number(h('x-ratelimit-used')),
    resource: h('x-ratelimit-resource'),
  };
}

describe('primary limits per caller', () => {
  it('anonymous: 60 per hour per IP, x-ratelimit-* on every /api/v3 response, even a 404', async () => {
    const a = await call('/api/v3/repos/mona/hello-world');
    expect(a.status).toBe(200);
    expect([a.limit, a.remaining, a.used, a.resource]).toEqual([60, 59, 1, 'core']);
    const reset = Number(a.h('x-ratelimit-reset'));
    expect(reset - emu.clock.nowSec()).toBeGreaterThan(3590);
    const b = await call('/api/v3/repos/mona/nope');
    expect(b.status).toBe(404);
    expect([b.remaining, b.used]).toEqual([58, 2]);
  });

  it("a user: 5,000 shared by all the user's tokens", async () => {
    const { token: second } = await admin('hosting/rate-limit-token', { kind: 'personal', login: 'mona' });
    const a = await call('/api/v3/user', { token: SEED.personalToken });
    const b = await call('/api/v3/user', { token: second });
    expect(a.limit).toBe(5000);
    expect([b.limit, b.used, b.remaining]).toEqual([5000, 2, 4998]);
  });

  it("enterprise-cloud app for a member: 15,000, sharing used with the member's 5,000 personal token", async () => {
    const app = await call('/api/v3/user', { token: tok('enterprise-cloud app') });
    expect([app.limit, app.used]).toEqual([15000, 1]);
    const pat = await call('/api/v3/user', { token: tok('enterprise user, personal') });
    expect([pat.limit, pat.used, pat.remaining]).toEqual([5000, 2, 4998]);
  });

  it('installation tokens: basic, the 50-per-repo/user formula, the 12,500 cap, enterprise 15,000', async () => {
    expect((await call('/api/v3/repos/mona/hello-world', { token: tok('installation, basic') })).limit).toBe(5000);
    expect((await call('/api/v3/repos/mona/hello-world', { token: tok('120 repos') })).limit).toBe(11500);
    expect((await call('/api/v3/repos/mona/hello-world', { token: tok('capped') })).limit).toBe(12500);
    expect((await call('/api/v3/repos/mona/hello-world', { token: tok('installation on an enterprise') })).limit).toBe(15000);
    const minted = await admin('hosting/rate-limit-token', { kind: 'installation', repositories: 40, users: 30 });
    expect(minted.coreLimit).toBe(5000 + 20 * 50 + 10 * 50);
    expect((await call('/api/v3/repos/mona/hello-world', { token: minted.token })).limit).toBe(6500);
    expect([installationLimit(20, 20), installationLimit(21, 0), installationLimit(1000, 1000)]).toEqual([5000, 5050, 12500]);
  });

  it('workflow tokens: 1,000 per repository (15,000 enterprise), shared by tokens of the same repository', async () => {
    const a = await call('/api/v3/repos/mona/hello-world', { token: tok('workflow token of mona') });
    expect([a.limit, a.used]).toEqual([1000, 1]);
    const other = await admin('hosting/rate-limit-token', { kind: 'workflow', repository: 'mona/hello-world' });
    expect((await call('/api/v3/repos/mona/hello-world', { token: other.token })).used).toBe(2);
    expect((await call('/api/v3/repos/mona/hello-world', { token: tok('workflow token, enterprise') })).limit).toBe(15000);
  });

  it('OAuth app with client id and secret (Basic): 5,000 per app, 15,000 enterprise', async () => {
    const a = await call('/api/v3/repos/mona/hello-world', { basic: `${SEED.app.clientId}:${SEED.app.clientSecret}` });
    expect(a.limit).toBe(5000);
    const e = RATE_LIMIT_SEED.enterpriseApp;
    expect((await call('/api/v3/repos/mona/hello-world', { basic: `${e.clientId}:${e.clientSecret}` })).limit).toBe(15000);
  });

  it('exhausted: 403 with remaining 0 and the message real clients detect; nothing counted', async () => {
    await admin('hosting/budget', { anonymous: true, remaining: 1, resetInSeconds: 30 });
    expect((await call('/api/v3/repos/mona/hello-world')).status).toBe(200);
    const r = await call('/api/v3/repos/mona/hello-world');
    expect(r.status).toBe(403);
    expect(r.remaining).toBe(0);
    expect(r.json.message).toMatch(/^API rate limit exceeded for 127\.0\.0\.1\. /);
    const before = emu.clock.nowSec();
    const u = await admin('hosting/budget', { login: 'mona', remaining: 0, resetInSeconds: 30 });
    expect(u.buckets[0]).toMatchObject({ caller: 'user:mona', remaining: 0 });
    const m = await call('/api/v3/user', { token: SEED.personalToken });
    expect(m.status).toBe(403);
    expect(m.json.message).toBe('API rate limit exceeded for user ID 1.');
    // 30 s after the budget was set, on the emulator's clock (a second may tick between setting it and reading the clock here).
    const reset = Number(m.h('x-ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(before + 30);
    expect(reset).toBeLessThanOrEqual(emu.clock.nowSec() + 30);
  });

  it('the window resets on the emulator clock', async () => {
    await admin('hosting/budget', { anonymous: true, remaining: 0, resetInSeconds: 5 });
    expect((await call('/api/v3/repos/mona/hello-world')).status).toBe(403);
    await admin('advance', { ms: 6000 });
    const r = await call('/api/v3/repos/mona/hello-world');
    expect([r.status, r.remaining]).toEqual([200, 59]);
  });

  it('a budget without a caller applies to every caller, also ones not seen yet', async () => {
    await call('/api/v3/user', { token: SEED.personalToken });
    const r = await admin('hosting/budget', { remaining: 0, resetInSeconds: 10 });
    expect(r.appliesTo).toBe('every caller');
    expect((await call('/api/v3/user', { token: SEED.personalToken })).status).toBe(403);
    expect((await call('/api/v3/repos/mona/hello-world', { token: tok('installation, basic') })).status).toBe(403);
  });
});

describe('other buckets', () => {
  it('search: a per-minute bucket (10 anonymous, 30 authenticated); code search its own and authenticated only', async () => {
    const a = await call('/api/v3/search/repositories?q=hello');
    expect([a.status, a.resource, a.limit]).toEqual([200, 'search', 10]);
    expect(a.json.items.map((i: any) => i.full_name)).toEqual(['mona/hello-world']);
    expect(Number(a.h('x-ratelimit-reset')) - emu.clock.nowSec()).toBeLessThanOrEqual(60);
    expect((await call('/api/v3/search/repositories?q=x', { token: SEED.personalToken })).limit).toBe(30);
    expect((await call('/api/v3/search/code?q=x')).status).toBe(401);
    const c = await call('/api/v3/search/code?q=x', { token: SEED.personalToken });
    expect([c.status, c.resource, c.limit]).toEqual([200, 'code_search', 10]);
    expect((await call('/api/v3/search/repositories')).status).toBe(422);
  });

  it('query API: separate bucket, authenticated only, reports its own rateLimit', async () => {
    expect((await call('/api/graphql', { method: 'POST', body: { query: '{ viewer { login } }' } })).status).toBe(401);
    const g = await call('/api/graphql', { method: 'POST', token: SEED.personalToken, body: { query: '{ viewer { login } rateLimit { remaining } }' } });
    expect([g.status, g.resource, g.used]).toEqual([200, 'graphql', 1]);
    expect(g.json.data).toMatchObject({ viewer: { login: 'mona' }, rateLimit: { remaining: g.remaining } });
    expect((await call('/api/v3/user', { token: SEED.personalToken })).used).toBe(1);
  });

  it('LFS: per-minute bucket (300 anonymous, 3,000 authenticated), 100 objects per batch', async () => {
    const oid = 'a'.repeat(64);
    const a = await call('/mona/hello-world.git/info/lfs/objects/batch', { method: 'POST', body: { operation: 'download', objects: [{ oid, size: 3 }] } });
    expect([a.status, a.resource, a.limit]).toEqual([200, 'lfs', 300]);
    expect(a.json.objects[0].actions.download.href).toContain(`/mona/hello-world.git/info/lfs/objects/${oid}`);
    expect(
      (await call('/mona/hello-world.git/info/lfs/objects/batch', { method: 'POST', token: SEED.personalToken, body: { operation: 'download', objects: [] } }))
        .limit,
    ).toBe(3000);
    const big = await call('/mona/hello-world.git/info/lfs/objects/batch', {
      method: 'POST',
      body: { operation: 'upload', objects: Array.from({ length: 101 }, () => ({ oid, size: 1 })) },
    });
    expect(big.status).toBe(413);
    expect((await call('/api/v3/rate_limit')).json.resources.core.used).toBe(0);
  });

  it('enterprise audit log: 1,750 per user and IP, members only', async () => {
    const r = await call('/api/v3/enterprises/ent-corp/audit-log', { token: tok('enterprise-cloud app') });
    expect([r.status, r.resource, r.limit]).toEqual([200, 'audit_log', 1750]);
    expect((await call('/api/v3/enterprises/ent-corp/audit-log', { token: SEED.personalToken })).status).toBe(404);
    expect((await call('/api/v3/enterprises/ent-corp/audit-log')).status).toBe(401);
  });

  it('GET /rate_limit: every resource, plus rate; free of primary cost; 401 for bad credentials', async () => {
    await call('/api/v3/user', { token: SEED.personalToken });
    const r = await call('/api/v3/rate_limit', { token: SEED.personalToken });
    const again = await call('/api/v3/rate_limit', { token: SEED.personalToken });
    expect(r.status).toBe(200);
    for (const name of ['core', 'search', 'graphql', 'code_search', 'integration_manifest', 'audit_log']) {
      expect(Object.keys(r.json.resources[name])).toEqual(['limit', 'used', 'remaining', 'reset']);
    }
    expect(r.json.resources.core).toMatchObject({ limit: 5000, used: 1, remaining: 4999 });
    expect(r.json.rate).toEqual(r.json.resources.core);
    expect(again.json.resources.core.used).toBe(1);
    expect([r.resource, r.used]).toEqual(['core', 1]);
    expect((await call('/api/v3/rate_limit', { token: 'lyp_not_a_token' })).status).toBe(401);
  });
});

describe('secondary limits', () => {
  it('forced: 403 with the message, with and without retry-after, once', async () => {
    await admin('hosting/secondary', { retryAfter: 7 });
    const a = await call('/api/v3/rate_limit');
    expect(a.status).toBe(403);
    expect(a.json.message).toMatch(/^You have exceeded a secondary rate limit\. Please wait a few minutes before you try again\./);
    expect(a.h('retry-after')).toBe('7');
    expect(a.remaining).toBeGreaterThan(0);
    await admin('hosting/secondary', { status: 429, login: 'mona' });
    expect((await call('/api/v3/rate_limit')).status).toBe(200); // another caller
    const b = await call('/api/v3/rate_limit', { token: SEED.personalToken });
    expect([b.status, b.h('retry-after')]).toEqual([429, null]);
    expect((await call('/api/v3/rate_limit', { token: SEED.personalToken })).status).toBe(200);
  });

  it('forced with exhaustBudget: remaining 0 and the reset in the headers', async () => {
    await admin('hosting/secondary', { exhaustBudget: true, resetInSeconds: 4 });
    const a = await call('/api/v3/user', { token: SEED.personalToken });
    expect([a.status, a.remaining, a.h('retry-after')]).toEqual([403, 0, null]);
    expect(Number(a.h('x-ratelimit-reset'))).toBe(emu.clock.nowSec() + 4);
  });

  it('points per minute per endpoint: GET 1, writes 5, with retry-after', async () => {
    await admin('hosting/limits', { restPointsPerMinute: 12 });
    for (let i = 0; i < 12; i++) expect((await call('/api/v3/repos/mona/hello-world')).status).toBe(200);
    const r = await call('/api/v3/repos/mona/hello-world');
    expect(r.status).toBe(403);
    expect(r.json.message).toMatch(/secondary rate limit/);
    expect(Number(r.h('retry-after'))).toBeGreaterThan(0);
    expect((await call('/api/v3/repos/mona/lanyard-notes')).status).toBe(404); // another endpoint
    await admin('reset');
    await admin('hosting/limits', { restPointsPerMinute: 12 });
    for (let i = 0; i < 2; i++)
      expect((await call('/api/v3/user/repos', { method: 'POST', token: SEED.personalToken, body: { name: `r${i}` } })).status).toBe(201);
    expect((await call('/api/v3/user/repos', { method: 'POST', token: SEED.personalToken, body: { name: 'r9' } })).status).toBe(403);
  });

  it('content-creating: per minute with retry-after, per hour without', async () => {
    await admin('hosting/limits', { contentCreatingPerMinute: 2, contentCreatingPerHour: 3 });
    const post = (name: string) => call('/api/v3/user/repos', { method: 'POST', token: SEED.personalToken, body: { name } });
    expect((await post('a')).status).toBe(201);
    expect((await post('b')).status).toBe(201);
    const c = await post('c');
    expect(c.status).toBe(403);
    expect(c.h('retry-after')).not.toBeNull();
    await admin('advance', { ms: 61_000 });
    expect((await post('d')).status).toBe(201);
    const e = await post('e');
    expect([e.status, e.h('retry-after')]).toEqual([403, null]);
    expect((await call('/api/v3/repos/mona/hello-world', { token: SEED.personalToken })).status).toBe(200); // reads unaffected
  });

  it('concurrent requests above the limit get 429', async () => {
    await admin('hosting/limits', { concurrent: 2 });
    // Two requests stay in flight: their bodies never finish.
    const { request } = await import('node:http');
    const open = [1, 2].map(() => {
      const r = request(`${emu.url}/api/v3/user/repos`, {
        method: 'POST',
        headers: { authorization: `Bearer ${SEED.personalToken}`, 'content-type': 'application/json' },
      });
      r.on('error', () => undefined);
      r.write('{"name":');
      return r;
    });
    await new Promise((r) => setTimeout(r, 200));
    const third = await call('/api/v3/repos/mona/hello-world', { token: SEED.personalToken });
    expect(third.status).toBe(429);
    expect(third.json.message).toMatch(/secondary rate limit/);
    expect((await call('/api/v3/repos/mona/hello-world')).status).toBe(200); // another caller
    for (const r of open) r.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect((await call('/api/v3/repos/mona/hello-world', { token: SEED.personalToken })).status).toBe(200);
  });

  it('admin verbs validate their input', async () => {
    await expect(admin('hosting/budget', { resource: 'nope' })).rejects.toThrow(/resource must be one of/);
    await expect(admin('hosting/budget', { login: 'ghost' })).rejects.toThrow(/no user/);
    await expect(admin('hosting/secondary', { status: 500 })).rejects.toThrow(/403 or 429/);
    await expect(admin('hosting/limits', { bogus: 1 })).rejects.toThrow(/unknown limit/);
    await expect(admin('hosting/rate-limit-token', { kind: 'workflow', repository: 'bad' })).rejects.toThrow(/owner\/name/);
    const list = await admin('hosting/budgets');
    expect(list.seeded.map((s: any) => s.coreLimit)).toEqual([5000, 15000, 5000, 11500, 12500, 15000, 1000, 15000]);
  });
});

describe('REST endpoints', () => {
  it('creates repositories (content-creating) with validation; private ones are hidden from others', async () => {
    const c = await call('/api/v3/user/repos', { method: 'POST', token: SEED.personalToken, body: { name: 'new-repo', private: true } });
    expect(c.status).toBe(201);
    expect(c.json).toMatchObject({ full_name: 'mona/new-repo', private: true, owner: { login: 'mona' } });
    expect((await call('/api/v3/user/repos', { method: 'POST', token: SEED.personalToken, body: { name: 'new-repo' } })).status).toBe(422);
    expect((await call('/api/v3/user/repos', { method: 'POST', token: SEED.personalToken, body: { name: 'bad name' } })).status).toBe(422);
    expect((await call('/api/v3/user/repos', { method: 'POST', body: { name: 'x' } })).status).toBe(401);
    expect((await call('/api/v3/repos/mona/new-repo', { token: SEED.personalToken })).status).toBe(200);
    expect((await call('/api/v3/repos/mona/new-repo')).status).toBe(404);
  });
});
