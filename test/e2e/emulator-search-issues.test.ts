/**
 * The emulator's REST `GET /search/issues` through Octokit (the code host's
 * own JavaScript client, `search.issuesAndPullRequests` and `paginate`):
 * the query API's search grammar, limits and refusals, the service's answer
 * (`total_count`, `incomplete_results`, `items`, 422 Validation Failed), its
 * `search` rate-limit bucket, what a token may see, paging and its 1,000
 * limit, and REST's `sort`/`order`.
 */
import { describe, expect, it } from 'vitest';
import { Octokit } from '@octokit/rest';
import { useInProcessEmulator } from './in-process-emulator.js';

const ref = useInProcessEmulator();

// Quiet: the refusals below are expected (Octokit logs every 4xx).
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const rest = (auth?: string) => new Octokit({ auth, baseUrl: ref.emu.urls.hosting.api, log: quiet });
const token = async (login: string, scopes: string[]) =>
  ((await ref.emu.admin('hosting', 'issue-token', { login, clientId: ref.emu.fixtures.hosting.app.clientId, scopes })) as { access_token: string })
    .access_token;

/** mona's issues: three in the public repository (one closed, two labelled bug), one in the private one. */
async function seed(o: Octokit): Promise<void> {
  const open = (repo: string, title: string, labels: string[] = [], body = '') => o.rest.issues.create({ owner: 'mona', repo, title, labels, body });
  await open('hello-world', 'Crash on start', ['bug'], 'It crashes at once.');
  const second = await open('hello-world', 'Crash when saving', ['bug']);
  await open('hello-world', 'Document the flags');
  await open('lanyard-notes', 'Secret crash');
  await o.rest.issues.update({ owner: 'mona', repo: 'hello-world', issue_number: second.data.number, state: 'closed' });
  await o.rest.issues.createComment({ owner: 'mona', repo: 'hello-world', issue_number: second.data.number, body: 'saw it too' });
}

const refusal = async (p: Promise<unknown>) => {
  const e = (await p.catch((err) => err)) as { status: number; response: { data: { message: string; errors?: Array<Record<string, string>> } } };
  return { status: e.status, message: e.response.data.message, error: e.response.data.errors?.[0] };
};

describe('GET /search/issues (Octokit)', () => {
  it('the query grammar the query API reads, over the issues the caller may see, in the service’s answer', async () => {
    const o = rest(ref.emu.fixtures.hosting.personalToken);
    await seed(o);
    const found = await o.rest.search.issuesAndPullRequests({ q: 'crash repo:mona/hello-world' });
    expect(found.data).toMatchObject({ total_count: 2, incomplete_results: false });
    expect(found.data.items.map((i) => i.title).sort()).toEqual(['Crash on start', 'Crash when saving']);
    const item = found.data.items.find((i) => i.title === 'Crash on start')!;
    expect(item).toMatchObject({
      state: 'open',
      repository_url: `${ref.emu.urls.hosting.api}/repos/mona/hello-world`,
      user: { login: 'mona' },
      labels: [{ name: 'bug' }],
      score: 1,
      body: 'It crashes at once.',
    });
    expect(item).not.toHaveProperty('pull_request');
    // Qualifiers, negation, OR and `@me`, as the query API reads them.
    const titles = async (q: string) => (await o.rest.search.issuesAndPullRequests({ q })).data.items.map((i) => i.title).sort();
    expect(await titles('is:open label:bug user:mona')).toEqual(['Crash on start']);
    expect(await titles('crash -label:bug')).toEqual(['Secret crash']);
    expect(await titles('flags OR saving author:@me')).toEqual(['Crash when saving', 'Document the flags']);
    expect(await titles('commenter:mona')).toEqual(['Crash when saving']);
    expect(await titles('is:pr crash')).toEqual([]);
    expect(await titles('rash')).toEqual([]);
  });

  it('a private repository’s issues only for a token with `repo`; anonymous callers see the public ones', async () => {
    await seed(rest(ref.emu.fixtures.hosting.personalToken));
    const titles = async (o: Octokit, q: string) => (await o.rest.search.issuesAndPullRequests({ q })).data.items.map((i) => i.title).sort();
    expect(await titles(rest(await token('mona', ['repo'])), 'crash')).toEqual(['Crash on start', 'Crash when saving', 'Secret crash']);
    expect(await titles(rest(await token('mona', ['public_repo'])), 'crash')).toEqual(['Crash on start', 'Crash when saving']);
    expect(await titles(rest(await token('hubot', ['repo'])), 'crash')).toEqual(['Crash on start', 'Crash when saving']);
    expect(await titles(rest(), 'crash')).toEqual(['Crash on start', 'Crash when saving']);
    // Naming the private repository is naming one the caller cannot see.
    const named = await refusal(rest(await token('mona', ['public_repo'])).rest.search.issuesAndPullRequests({ q: 'repo:mona/lanyard-notes' }));
    expect(named).toMatchObject({ status: 422, message: 'Validation Failed', error: { resource: 'Search', field: 'q', code: 'invalid' } });
    expect(named.error?.message).toMatch(/cannot be searched either because the resources do not exist/);
  });

  it('refused as the query API refuses: too long, too many operators, an unknown repository or user; no q at all', async () => {
    const o = rest(ref.emu.fixtures.hosting.personalToken);
    const search = (q: string) => refusal(o.rest.search.issuesAndPullRequests({ q }));
    expect(await search('x'.repeat(257))).toMatchObject({ status: 422, error: { code: 'invalid', message: 'The search is longer than 256 characters.' } });
    expect((await o.rest.search.issuesAndPullRequests({ q: 'x'.repeat(256) })).status).toBe(200);
    expect(await search('a OR b OR c OR d OR e OR f OR g')).toMatchObject({
      status: 422,
      error: { code: 'invalid', message: 'More than five AND / OR / NOT operators were used.' },
    });
    expect((await search('repo:mona/nothing-here')).error?.code).toBe('invalid');
    expect((await search('author:nobody-at-all')).error?.code).toBe('invalid');
    expect(await refusal(o.request('GET /search/issues'))).toMatchObject({ status: 422, error: { resource: 'Search', field: 'q', code: 'missing' } });
  });

  it('counts against the search bucket (30 a minute signed in, 10 anonymous), not core', async () => {
    const o = rest(ref.emu.fixtures.hosting.personalToken);
    const before = (await o.rest.rateLimit.get()).data.resources;
    const r = await o.rest.search.issuesAndPullRequests({ q: 'crash' });
    expect([r.headers['x-ratelimit-resource'], r.headers['x-ratelimit-limit']]).toEqual(['search', '30']);
    const after = (await o.rest.rateLimit.get()).data.resources;
    expect([after.search.remaining, after.core.remaining]).toEqual([before.search.remaining - 1, before.core.remaining]);
    const anonymous = await rest().rest.search.issuesAndPullRequests({ q: 'crash' });
    expect([anonymous.headers['x-ratelimit-resource'], anonymous.headers['x-ratelimit-limit']]).toEqual(['search', '10']);
  });

  it('pages with per_page and Link (Octokit’s paginate), sorts by REST’s sort and order, and reaches only the first 1,000', async () => {
    const o = rest(ref.emu.fixtures.hosting.personalToken);
    for (let n = 1; n <= 5; n++) await o.rest.issues.create({ owner: 'mona', repo: 'hello-world', title: `Paged ${n}` });
    await o.rest.issues.createComment({ owner: 'mona', repo: 'hello-world', issue_number: 2, body: 'one' });
    await o.rest.issues.createComment({ owner: 'mona', repo: 'hello-world', issue_number: 2, body: 'two' });
    await o.rest.issues.createComment({ owner: 'mona', repo: 'hello-world', issue_number: 4, body: 'one' });
    const page = await o.rest.search.issuesAndPullRequests({ q: 'paged', per_page: 2 });
    expect([page.data.total_count, page.data.items.length]).toEqual([5, 2]);
    expect(page.headers.link).toMatch(/[?&]page=2[^>]*>; rel="next"/);
    const all = await o.paginate(o.rest.search.issuesAndPullRequests, { q: 'paged', per_page: 2 });
    expect(all.map((i) => i.title).sort()).toEqual(['Paged 1', 'Paged 2', 'Paged 3', 'Paged 4', 'Paged 5']);
    const byComments = await o.rest.search.issuesAndPullRequests({ q: 'paged', sort: 'comments', order: 'desc' });
    expect(byComments.data.items.slice(0, 2).map((i) => i.number)).toEqual([2, 4]);
    const oldest = await o.rest.search.issuesAndPullRequests({ q: 'paged', sort: 'created', order: 'asc' });
    expect(oldest.data.items.map((i) => i.title)).toEqual(['Paged 1', 'Paged 2', 'Paged 3', 'Paged 4', 'Paged 5']);
    // Past the first 1,000 results (page 11 of 100): refused as the service refuses it.
    const past = await refusal(o.rest.search.issuesAndPullRequests({ q: 'paged', per_page: 100, page: 11 }));
    expect(past).toMatchObject({ status: 422, message: 'Only the first 1000 search results are available' });
  });
});
