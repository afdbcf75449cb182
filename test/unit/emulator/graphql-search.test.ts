/**
 * The query API's `search` (the service's search syntax over the store REST
 * shares), `issueOrPullRequest`, the validation rule for mutually exclusive
 * spreads, search's limits, named resources and words, and REST issue writes' scope check — through Octokit, an
 * independent client, where a client is involved.
 */
import { Octokit as Core } from '@octokit/core';
import { Octokit } from '@octokit/rest';
import { parse, validate } from 'graphql';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type RunningEmulator, startEmulator } from '../../../src/emulator/index.js';
import { queryApiSchema } from '../../../src/emulator/services/hosting/graphql.js';
import { dateMatches, parseSearch } from '../../../src/emulator/services/hosting/search-query.js';
import { QUERY_API_RULES } from '../../../src/emulator/services/hosting/graphql/validation.js';
import { SEED } from '../../../src/emulator/services/hosting/state.js';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
});
afterAll(async () => {
  await emu.stop();
});
beforeEach(async () => {
  await emu.reset();
});

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const api = () => emu.urls.hosting.api;
const rest = (auth: string = SEED.personalToken) => new Octokit({ auth, baseUrl: api(), log: quiet });
const gql = (auth: string = SEED.personalToken) => new Core({ auth, baseUrl: api(), log: quiet }).graphql;
const tokenWith = async (login: string, scopes: string[]) =>
  ((await emu.admin('hosting', 'issue-token', { login, clientId: SEED.app.clientId, scopes })) as { access_token: string }).access_token;

describe('parseSearch and dateMatches', () => {
  it('qualifiers with quoted values and negation; an unknown qualifier is a word', () => {
    expect(parseSearch('label:"good first issue" -label:bug repo:mona/hello-world widget -wip http://x')).toEqual([
      { key: 'label', value: 'good first issue', negated: false },
      { key: 'label', value: 'bug', negated: true },
      { key: 'repo', value: 'mona/hello-world', negated: false },
      { key: undefined, value: 'widget', negated: false },
      { key: undefined, value: 'wip', negated: true },
      { key: undefined, value: 'http://x', negated: false },
    ]);
  });
  it('>=, >, <=, <, a..b with * open, and a day', () => {
    const at = Date.parse('2026-03-15T12:00:00Z');
    expect(
      ['>=2026-03-15', '>2026-03-14', '<=2026-03-15', '<2026-03-16', '2026-03-01..2026-03-15', '*..2026-03-15', '2026-03-15'].map((s) => dateMatches(at, s)),
    ).toEqual(Array(7).fill(true));
    expect(['>2026-03-15', '<2026-03-15', '2026-03-16..*', '2026-03-14'].map((s) => dateMatches(at, s))).toEqual(Array(4).fill(false));
  });
});

describe('validation as the service applies it', () => {
  const errors = (q: string) => validate(queryApiSchema, parse(q), QUERY_API_RULES).map((e) => e.message);
  it('one response name of different types in Issue and PullRequest is accepted (gh’s spreads); other overlaps are still refused', () => {
    expect(
      errors('{ repository(owner: "a", name: "b") { issueOrPullRequest(number: 1) { ... on Issue { id state } ... on PullRequest { id state } } } }'),
    ).toEqual([]);
    expect(errors('{ viewer { a: login a: id } }')).toEqual([
      'Fields "a" conflict because "login" and "id" are different fields. Use different aliases on the fields to fetch both if this was intentional.',
    ]);
    expect(errors('{ repository(owner: "a", name: "b") { issue(number: 1) { ... on Issue { s: state } ... on Issue { s: title } } } }')).toHaveLength(1);
  });
});

describe('search and issueOrPullRequest through Octokit', () => {
  const SEARCH = `query($q: String!, $type: SearchType!, $n: Int, $after: String) {
    search(type: $type, last: $n, after: $after, query: $q) {
      issueCount repositoryCount userCount discussionCount
      nodes { __typename ... on Issue { number } ... on Repository { nameWithOwner } ... on User { login } }
      pageInfo { hasNextPage endCursor }
    }
  }`;
  type Page = {
    search: {
      issueCount: number;
      repositoryCount: number;
      userCount: number;
      nodes: Array<Record<string, unknown>>;
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
    };
  };

  it('gh’s paging (last: n, after: endCursor) walks every match newest first; qualifiers filter; other types count their own', async () => {
    for (const [title, labels] of [
      ['one', ['bug']],
      ['two', []],
      ['three', ['bug', 'documentation']],
      ['four', ['bug']],
      ['five', ['bug']],
    ] as const)
      await rest().issues.create({ owner: 'mona', repo: 'hello-world', title, labels: [...labels] });
    await rest().issues.update({ owner: 'mona', repo: 'hello-world', issue_number: 4, state: 'closed' });
    const seen: unknown[] = [];
    let after: string | null = null;
    for (let pages = 0; pages < 5; pages++) {
      const p: Page = await gql()(SEARCH, { q: 'repo:mona/hello-world label:bug type:issue', type: 'ISSUE', n: 2, after });
      expect(p.search.issueCount).toBe(4);
      seen.push(...p.search.nodes.map((n) => n.number));
      if (!p.search.pageInfo.hasNextPage) break;
      after = p.search.pageInfo.endCursor;
    }
    expect(seen).toEqual([5, 4, 3, 1]);
    const numbers = async (q: string) => ((await gql()(SEARCH, { q, type: 'ISSUE', n: 100 })) as Page).search.nodes.map((n) => n.number);
    expect(await numbers('repo:mona/hello-world label:bug state:open')).toEqual([5, 3, 1]);
    expect(await numbers('repo:mona/hello-world -label:bug')).toEqual([2]);
    expect(await numbers('repo:mona/hello-world label:documentation,wontfix')).toEqual([3]);
    expect(await numbers('repo:mona/hello-world no:label')).toEqual([2]);
    expect(await numbers('repo:mona/hello-world is:closed')).toEqual([4]);
    expect(await numbers('repo:mona/hello-world is:pr')).toEqual([]);
    expect(await numbers('repo:mona/hello-world author:hubot')).toEqual([]);
    expect(await numbers('THREE in:title')).toEqual([3]);
    expect(await numbers('repo:mona/hello-world sort:created-asc label:bug')).toEqual([1, 3, 4, 5]);
    const repos = (await gql()(SEARCH, { q: 'hello user:mona', type: 'REPOSITORY', n: 10 })) as Page;
    expect(repos.search).toMatchObject({ repositoryCount: 1, issueCount: 0, nodes: [{ __typename: 'Repository', nameWithOwner: 'mona/hello-world' }] });
    const users = (await gql()(SEARCH, { q: 'hubot', type: 'USER', n: 10 })) as Page;
    expect(users.search).toMatchObject({ userCount: 1, nodes: [{ __typename: 'User', login: 'hubot' }] });
  });

  it('a private repository’s issues are found by its owner only', async () => {
    await rest().issues.create({ owner: 'mona', repo: 'lanyard-notes', title: 'secret' });
    const hubot = await tokenWith('hubot', ['repo', 'read:org']);
    const q = { q: 'secret', type: 'ISSUE', n: 10 };
    expect(((await gql()(SEARCH, q)) as Page).search.issueCount).toBe(1);
    expect(((await gql(hubot)(SEARCH, q)) as Page).search).toMatchObject({ issueCount: 0, nodes: [] });
  });

  it('issueOrPullRequest is the Issue of that number, or NOT_FOUND with the service’s message', async () => {
    await rest().issues.create({ owner: 'mona', repo: 'hello-world', title: 'one' });
    const q =
      'query($n: Int!) { repository(owner: "mona", name: "hello-world") { issueOrPullRequest(number: $n) { __typename ... on Issue { number title } } } }';
    expect(await gql()(q, { n: 1 })).toEqual({ repository: { issueOrPullRequest: { __typename: 'Issue', number: 1, title: 'one' } } });
    await expect(gql()(q, { n: 7 })).rejects.toMatchObject({
      errors: [
        { type: 'NOT_FOUND', path: ['repository', 'issueOrPullRequest'], message: 'Could not resolve to an issue or pull request with the number of 7.' },
      ],
      data: { repository: { issueOrPullRequest: null } },
    });
  });
});

describe('REST issue writes and the token’s scopes (Octokit)', () => {
  it('a classic token without repo or public_repo gets 404 and writes nothing; public_repo suffices for a public repository only', async () => {
    const narrow = rest(await tokenWith('mona', ['read:org', 'gist']));
    await expect(narrow.issues.create({ owner: 'mona', repo: 'hello-world', title: 'refused' })).rejects.toMatchObject({
      status: 404,
      response: { data: { message: 'Not Found' }, headers: { 'x-accepted-oauth-scopes': 'public_repo, repo', 'x-oauth-scopes': 'read:org, gist' } },
    });
    expect((await narrow.issues.listForRepo({ owner: 'mona', repo: 'hello-world' })).data).toEqual([]);
    const pub = rest(await tokenWith('mona', ['public_repo']));
    expect((await pub.issues.create({ owner: 'mona', repo: 'hello-world', title: 'allowed' })).status).toBe(201);
    await expect(pub.issues.create({ owner: 'mona', repo: 'lanyard-notes', title: 'private' })).rejects.toMatchObject({ status: 404 });
    await expect(pub.activity.starRepoForAuthenticatedUser({ owner: 'mona', repo: 'hello-world' })).resolves.toMatchObject({ status: 204 });
    await expect(narrow.activity.starRepoForAuthenticatedUser({ owner: 'mona', repo: 'hello-world' })).rejects.toMatchObject({ status: 404 });
  });

  it('a private repository is seen through a classic token with repo only: without it 404, left out of /user/repos, NOT_FOUND in the query API', async () => {
    const token = await tokenWith('mona', ['public_repo', 'read:org']);
    await expect(rest(token).repos.get({ owner: 'mona', repo: 'lanyard-notes' })).rejects.toMatchObject({ status: 404 });
    await expect(rest(token).issues.listForRepo({ owner: 'mona', repo: 'lanyard-notes' })).rejects.toMatchObject({ status: 404 });
    expect((await rest(token).repos.listForAuthenticatedUser()).data.map((r) => r.name)).toEqual(['hello-world']);
    await expect(gql(token)('{ repository(owner: "mona", name: "lanyard-notes") { id } }')).rejects.toMatchObject({ errors: [{ type: 'NOT_FOUND' }] });
    const full = await tokenWith('mona', ['repo']);
    expect((await rest(full).repos.get({ owner: 'mona', repo: 'lanyard-notes' })).data.private).toBe(true);
    expect((await rest(full).repos.listForAuthenticatedUser()).data.map((r) => r.name)).toEqual(['hello-world', 'lanyard-notes']);
  });

  it('creating a repository: public_repo or repo for a public one, repo for a private one; without, 404 and nothing made', async () => {
    const narrow = rest(await tokenWith('mona', ['read:org', 'gist']));
    await expect(narrow.repos.createForAuthenticatedUser({ name: 'refused' })).rejects.toMatchObject({
      status: 404,
      response: { headers: { 'x-accepted-oauth-scopes': 'public_repo, repo' } },
    });
    const pub = rest(await tokenWith('mona', ['public_repo']));
    await expect(pub.repos.createForAuthenticatedUser({ name: 'secret', private: true })).rejects.toMatchObject({ status: 404 });
    expect((await pub.repos.createForAuthenticatedUser({ name: 'open' })).status).toBe(201);
    const full = rest(await tokenWith('mona', ['repo']));
    expect((await full.repos.createForAuthenticatedUser({ name: 'secret', private: true })).data.private).toBe(true);
    expect((await full.repos.listForAuthenticatedUser()).data.map((r) => r.name)).toEqual(['hello-world', 'lanyard-notes', 'open', 'secret']);
  });
});

const TITLES_QUERY = 'query($q: String!, $type: SearchType!) { search(type: $type, first: 100, query: $q) { issueCount nodes { ... on Issue { title } } } }';
const titles = async (q: string, auth?: string) =>
  ((await gql(auth)(TITLES_QUERY, { q, type: 'ISSUE' })) as { search: { nodes: Array<{ title: string }> } }).search.nodes.map((n) => n.title);
const refused = (message: string) => ({ errors: [{ type: 'INVALID', path: ['search'], message }] });
const restRefused = (message: string) => ({
  status: 422,
  response: { data: { message: 'Validation Failed', errors: [{ message, resource: 'Search', field: 'q', code: 'invalid' }] } },
});

const LONG = 'The search is longer than 256 characters.';
const OPERATORS = 'More than five AND / OR / NOT operators were used.';
const UNSEARCHABLE =
  'The listed users and repositories cannot be searched either because the resources do not exist or you do not have permission to view them.';

describe('search limits', () => {
  it('a query over 256 characters or of more than five AND/OR/NOT is refused with the service’s message; 256 characters and five operators are not', async () => {
    expect(await titles(`repo:mona/hello-world ${'x'.repeat(256 - 22)}`)).toEqual([]);
    await expect(titles(`repo:mona/hello-world ${'x'.repeat(257 - 22)}`)).rejects.toMatchObject(refused(LONG));
    expect(await titles('a OR b OR c OR d AND e NOT f')).toEqual([]);
    await expect(titles('a OR b OR c OR d AND e NOT f OR g')).rejects.toMatchObject(refused(OPERATORS));
    await expect(rest().search.repos({ q: 'x'.repeat(257) })).rejects.toMatchObject(restRefused(LONG));
    await expect(rest().search.repos({ q: 'a OR b OR c OR d OR e OR f OR g' })).rejects.toMatchObject(restRefused(OPERATORS));
  });

  it('a 1 MB query among 40 long issues is refused at once, many times in a row', async () => {
    for (let i = 0; i < 40; i++) await rest().issues.create({ owner: 'mona', repo: 'hello-world', title: `t${i}`, body: 'lorem ipsum '.repeat(80) });
    const q = '-zzzz '.repeat(166_000);
    const cpu = process.cpuUsage();
    for (let i = 0; i < 5; i++) await expect(titles(q)).rejects.toMatchObject(refused(LONG));
    const used = process.cpuUsage(cpu);
    // Matching 166,000 words against every issue took ~1 s of CPU a request.
    expect((used.user + used.system) / 1000).toBeLessThan(1500);
  });
});

describe('what a search names must exist and be visible', () => {
  it('repo:, user:/org:, author: naming nothing (or a private repository of someone else) is refused; REST answers 422', async () => {
    await rest().issues.create({ owner: 'mona', repo: 'lanyard-notes', title: 'secret' });
    const hubot = await tokenWith('hubot', ['repo']);
    for (const q of ['repo:mona/nope', 'repo:mona', 'user:nobody-here', 'org:no-such-org', 'author:nobody-here', 'repo:mona/hello-world -author:nobody-here'])
      await expect(titles(q)).rejects.toMatchObject(refused(UNSEARCHABLE));
    await expect(titles('repo:mona/lanyard-notes', hubot)).rejects.toMatchObject(refused(UNSEARCHABLE));
    expect(await titles('repo:mona/lanyard-notes')).toEqual(['secret']);
    expect(await titles('org:ent-corp author:hubot user:MONA')).toEqual([]);
    expect(await titles('author:@me repo:mona/lanyard-notes')).toEqual(['secret']);
    await expect(rest().search.repos({ q: 'hello user:nobody-here' })).rejects.toMatchObject(restRefused(UNSEARCHABLE));
    await expect(rest(hubot).search.repos({ q: 'repo:mona/lanyard-notes' })).rejects.toMatchObject(restRefused(UNSEARCHABLE));
    expect((await rest().search.repos({ q: 'hello user:mona' })).data.total_count).toBe(1);
    expect((await rest().search.repos({ q: 'hell' })).data.total_count).toBe(0);
  });
});

describe('words, operators and order', () => {
  it('whole words (bug is not in debug), quoted phrases, OR, NOT and AND; without sort: the titles with more of the words first', async () => {
    for (const [title, body] of [
      ['debug logging', 'verbose'],
      ['crash on start', 'a bug'],
      ['hang on exit', 'no bug here'],
      ['bug: crash and hang', ''],
    ])
      await rest().issues.create({ owner: 'mona', repo: 'hello-world', title, body });
    expect(await titles('bug')).toEqual(['bug: crash and hang', 'hang on exit', 'crash on start']);
    expect(await titles('debug')).toEqual(['debug logging']);
    expect(await titles('"crash on"')).toEqual(['crash on start']);
    expect(await titles('crash OR hang in:title')).toEqual(['bug: crash and hang', 'hang on exit', 'crash on start']);
    expect(await titles('bug NOT crash')).toEqual(['hang on exit']);
    expect(await titles('crash AND hang')).toEqual(['bug: crash and hang']);
    expect(await titles('on sort:created-asc')).toEqual(['crash on start', 'hang on exit']);
  });
});
