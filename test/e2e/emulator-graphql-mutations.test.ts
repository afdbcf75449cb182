/**
 * The query API's mutations, driven by Octokit (the code host's own
 * JavaScript client: `@octokit/core`'s graphql, which turns an enterprise
 * base URL `/api/v3` into `/api/graphql`) and read back through Octokit's
 * REST methods, and the other way round: REST and GraphQL share one store.
 * Also the service's limits: node limits, the primary cost of connections,
 * and mutations as content-creating requests for the secondary limits.
 */
import { Octokit as Core } from '@octokit/core';
import { Octokit } from '@octokit/rest';
import { describe, expect, it } from 'vitest';
import { useInProcessEmulator } from './in-process-emulator.js';

const ref = useInProcessEmulator();

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const rest = (auth = ref.emu.fixtures.hosting.personalToken) => new Octokit({ auth, baseUrl: ref.emu.urls.hosting.api, log: quiet });
const gql = (auth = ref.emu.fixtures.hosting.personalToken) => new Core({ auth, baseUrl: ref.emu.urls.hosting.api }).graphql;
const hubotToken = async () =>
  (
    (await ref.emu.admin('hosting', 'issue-token', { login: 'hubot', clientId: ref.emu.fixtures.hosting.app.clientId, scopes: ['repo'] })) as {
      access_token: string;
    }
  ).access_token;

/** A GraphQL call that fails: the errors Octokit's GraphqlResponseError carries, and the partial data. */
async function failing(p: Promise<unknown>): Promise<{ errors: Array<{ type?: string; message: string; path?: string[] }>; data: unknown }> {
  const e = (await p.then(
    () => undefined,
    (x: unknown) => x,
  )) as { errors?: Array<{ type?: string; message: string }>; data?: unknown } | undefined;
  if (!e?.errors) throw new Error('expected a GraphQL error');
  return { errors: e.errors, data: e.data };
}

const REPO_ID = 'query { repository(owner: "mona", name: "hello-world") { id } }';
const repoId = async () => ((await gql()(REPO_ID)) as { repository: { id: string } }).repository.id;

describe('issues and comments: a mutation’s result is REST’s, and REST’s is the query API’s', () => {
  it('createIssue and addComment through Octokit’s graphql are listed by Octokit’s REST methods, with the same ids', async () => {
    const made = (await gql()(
      `mutation($input: CreateIssueInput!) { createIssue(input: $input) { clientMutationId issue { id number title body state author { login } url repository { nameWithOwner } } } }`,
      { input: { repositoryId: await repoId(), title: 'From GraphQL', body: 'Made by a mutation', clientMutationId: 'cm-1' } },
    )) as { createIssue: { clientMutationId: string; issue: { id: string; number: number; url: string } } };
    expect(made.createIssue).toMatchObject({
      clientMutationId: 'cm-1',
      issue: {
        number: 1,
        title: 'From GraphQL',
        body: 'Made by a mutation',
        state: 'OPEN',
        author: { login: 'mona' },
        repository: { nameWithOwner: 'mona/hello-world' },
      },
    });
    const listed = await rest().rest.issues.listForRepo({ owner: 'mona', repo: 'hello-world' });
    expect(listed.data.map((i) => [i.number, i.title, i.node_id, i.html_url])).toEqual([
      [1, 'From GraphQL', made.createIssue.issue.id, made.createIssue.issue.url],
    ]);

    const comment = (await gql()(
      `mutation($id: ID!) { addComment(input: {subjectId: $id, body: "Me too"}) { commentEdge { node { id body author { login } } } subject { id } } }`,
      {
        id: made.createIssue.issue.id,
      },
    )) as { addComment: { commentEdge: { node: { id: string } } } };
    const comments = await rest().rest.issues.listComments({ owner: 'mona', repo: 'hello-world', issue_number: 1 });
    expect(comments.data.map((c) => [c.body, c.node_id, c.user?.login])).toEqual([['Me too', comment.addComment.commentEdge.node.id, 'mona']]);
    expect((await rest().rest.repos.get({ owner: 'mona', repo: 'hello-world' })).data.open_issues_count).toBe(1);
  });

  it('an issue and a comment made through REST are read by the query API (repository.issue, issues, comments, node)', async () => {
    const o = rest();
    const issue = await o.rest.issues.create({ owner: 'mona', repo: 'hello-world', title: 'From REST', labels: ['bug'] });
    await o.rest.issues.createComment({ owner: 'mona', repo: 'hello-world', issue_number: issue.data.number, body: 'first' });
    await o.rest.issues.create({ owner: 'mona', repo: 'hello-world', title: 'Second' });
    const q = (await gql()(
      `query { repository(owner: "mona", name: "hello-world") {
         issue(number: 1) { id title labels(first: 5) { nodes { name } } comments(first: 5) { totalCount nodes { body } } }
         issues(first: 1, states: OPEN, orderBy: {field: CREATED_AT, direction: DESC}) { totalCount nodes { title } pageInfo { hasNextPage endCursor } }
       } }`,
    )) as { repository: { issue: { id: string }; issues: { pageInfo: { endCursor: string } } } };
    expect(q.repository).toEqual({
      issue: { id: issue.data.node_id, title: 'From REST', labels: { nodes: [{ name: 'bug' }] }, comments: { totalCount: 1, nodes: [{ body: 'first' }] } },
      issues: { totalCount: 2, nodes: [{ title: 'Second' }], pageInfo: { hasNextPage: true, endCursor: expect.any(String) } },
    });
    const next = (await gql()(
      `query($after: String) { repository(owner: "mona", name: "hello-world") { issues(first: 1, after: $after, orderBy: {field: CREATED_AT, direction: DESC}) { nodes { title } pageInfo { hasNextPage } } } }`,
      {
        after: q.repository.issues.pageInfo.endCursor,
      },
    )) as unknown;
    expect(next).toEqual({ repository: { issues: { nodes: [{ title: 'From REST' }], pageInfo: { hasNextPage: false } } } });
    const node = await gql()(`query($id: ID!) { node(id: $id) { __typename ... on Issue { number } } }`, { id: issue.data.node_id });
    expect(node).toEqual({ node: { __typename: 'Issue', number: 1 } });
  });

  it('closeIssue with a reason, reopenIssue and updateIssue show in REST’s state, state_reason and fields', async () => {
    const o = rest();
    const { data } = await o.rest.issues.create({ owner: 'mona', repo: 'hello-world', title: 'Close me' });
    const closed = (await gql()(
      `mutation($id: ID!) { closeIssue(input: {issueId: $id, stateReason: NOT_PLANNED}) { issue { state stateReason closed closedAt } } }`,
      {
        id: data.node_id,
      },
    )) as { closeIssue: { issue: { closedAt: string } } };
    expect(closed.closeIssue.issue).toMatchObject({ state: 'CLOSED', stateReason: 'NOT_PLANNED', closed: true });
    const read = await o.rest.issues.get({ owner: 'mona', repo: 'hello-world', issue_number: data.number });
    expect(read.data).toMatchObject({
      state: 'closed',
      state_reason: 'not_planned',
      closed_at: closed.closeIssue.issue.closedAt,
      closed_by: { login: 'mona' },
    });
    await gql()(`mutation($id: ID!) { reopenIssue(input: {issueId: $id}) { issue { state } } }`, { id: data.node_id });
    const updated = (await gql()(
      `mutation($id: ID!) { updateIssue(input: {id: $id, title: "Renamed", body: "now with a body"}) { actor { login } issue { title body state stateReason } } }`,
      {
        id: data.node_id,
      },
    )) as unknown;
    expect(updated).toEqual({
      updateIssue: { actor: { login: 'mona' }, issue: { title: 'Renamed', body: 'now with a body', state: 'OPEN', stateReason: 'REOPENED' } },
    });
    expect((await o.rest.issues.get({ owner: 'mona', repo: 'hello-world', issue_number: data.number })).data).toMatchObject({
      title: 'Renamed',
      state: 'open',
      state_reason: 'reopened',
    });
    // REST closes, the query API sees it.
    await o.rest.issues.update({ owner: 'mona', repo: 'hello-world', issue_number: data.number, state: 'closed' });
    expect(await gql()(`query { repository(owner: "mona", name: "hello-world") { issue(number: ${data.number}) { state stateReason } } }`)).toEqual({
      repository: { issue: { state: 'CLOSED', stateReason: 'COMPLETED' } },
    });
  });
});

describe('labels, reactions and stars', () => {
  it('addLabelsToLabelable / removeLabelsFromLabelable with the repository’s label ids; createLabel; REST sees them', async () => {
    const o = rest();
    const { data } = await o.rest.issues.create({ owner: 'mona', repo: 'hello-world', title: 'Label me' });
    const labels = (await gql()(`query { repository(owner: "mona", name: "hello-world") { id labels(first: 100) { totalCount nodes { id name } } } }`)) as {
      repository: { id: string; labels: { totalCount: number; nodes: Array<{ id: string; name: string }> } };
    };
    expect(labels.repository.labels.totalCount).toBe(9);
    const id = (n: string) => labels.repository.labels.nodes.find((l) => l.name === n)!.id;
    const created = (await gql()(
      `mutation($r: ID!) { createLabel(input: {repositoryId: $r, name: "triage", color: "#A2EEEF", description: "Needs a look"}) { label { id name color } } }`,
      {
        r: labels.repository.id,
      },
    )) as { createLabel: { label: { id: string } } };
    expect(created.createLabel.label).toMatchObject({ name: 'triage', color: 'a2eeef' });
    const added = await gql()(
      `mutation($i: ID!, $l: [ID!]!) { addLabelsToLabelable(input: {labelableId: $i, labelIds: $l}) { labelable { ... on Issue { labels(first: 10) { nodes { name } } } } } }`,
      {
        i: data.node_id,
        l: [id('bug'), created.createLabel.label.id],
      },
    );
    expect(added).toEqual({ addLabelsToLabelable: { labelable: { labels: { nodes: [{ name: 'bug' }, { name: 'triage' }] } } } });
    expect((await o.rest.issues.listLabelsOnIssue({ owner: 'mona', repo: 'hello-world', issue_number: data.number })).data.map((l) => l.name)).toEqual([
      'bug',
      'triage',
    ]);
    await gql()(`mutation($i: ID!, $l: [ID!]!) { removeLabelsFromLabelable(input: {labelableId: $i, labelIds: $l}) { clientMutationId } }`, {
      i: data.node_id,
      l: [id('bug')],
    });
    await o.rest.issues.addLabels({ owner: 'mona', repo: 'hello-world', issue_number: data.number, labels: ['question'] });
    expect(
      (await o.rest.issues.get({ owner: 'mona', repo: 'hello-world', issue_number: data.number })).data.labels.map((l) => (typeof l === 'string' ? l : l.name)),
    ).toEqual(['triage', 'question']);
  });

  it('addReaction / removeReaction on an issue and a comment, and reactionGroups; REST lists the same reactions', async () => {
    const o = rest();
    const { data: issue } = await o.rest.issues.create({ owner: 'mona', repo: 'hello-world', title: 'React' });
    const { data: comment } = await o.rest.issues.createComment({ owner: 'mona', repo: 'hello-world', issue_number: issue.number, body: 'hi' });
    const react = `mutation($s: ID!, $c: ReactionContent!) { addReaction(input: {subjectId: $s, content: $c}) { reaction { id content user { login } } subject { id } reactionGroups { content viewerHasReacted } } }`;
    const r = (await gql()(react, { s: issue.node_id, c: 'THUMBS_UP' })) as {
      addReaction: { reaction: { id: string }; reactionGroups: Array<{ content: string; viewerHasReacted: boolean }> };
    };
    expect(r.addReaction.reactionGroups.filter((g) => g.viewerHasReacted)).toEqual([{ content: 'THUMBS_UP', viewerHasReacted: true }]);
    await gql(await hubotToken())(react, { s: comment.node_id, c: 'HEART' });
    const onIssue = await o.rest.reactions.listForIssue({ owner: 'mona', repo: 'hello-world', issue_number: issue.number });
    expect(onIssue.data.map((x) => [x.content, x.node_id, x.user?.login])).toEqual([['+1', r.addReaction.reaction.id, 'mona']]);
    const onComment = await o.rest.reactions.listForIssueComment({ owner: 'mona', repo: 'hello-world', comment_id: comment.id });
    expect(onComment.data.map((x) => [x.content, x.user?.login])).toEqual([['heart', 'hubot']]);
    expect((await o.rest.issues.get({ owner: 'mona', repo: 'hello-world', issue_number: issue.number })).data.reactions).toMatchObject({
      total_count: 1,
      '+1': 1,
    });
    await gql()(`mutation($s: ID!) { removeReaction(input: {subjectId: $s, content: THUMBS_UP}) { reaction { content } } }`, { s: issue.node_id });
    expect((await o.rest.reactions.listForIssue({ owner: 'mona', repo: 'hello-world', issue_number: issue.number })).data).toEqual([]);
  });

  it('addStar / removeStar: REST’s starred check, stargazers and stargazers_count follow', async () => {
    const id = await repoId();
    const starred = await gql()(`mutation($id: ID!) { addStar(input: {starrableId: $id}) { starrable { stargazerCount viewerHasStarred } } }`, { id });
    expect(starred).toEqual({ addStar: { starrable: { stargazerCount: 1, viewerHasStarred: true } } });
    const o = rest();
    expect((await o.rest.activity.checkRepoIsStarredByAuthenticatedUser({ owner: 'mona', repo: 'hello-world' })).status).toBe(204);
    expect(
      (await o.rest.activity.listStargazersForRepo({ owner: 'mona', repo: 'hello-world' })).data.map((u) => (u && 'login' in u ? u.login : undefined)),
    ).toEqual(['mona']);
    expect((await o.rest.repos.get({ owner: 'mona', repo: 'hello-world' })).data.stargazers_count).toBe(1);
    await gql()(`mutation($id: ID!) { removeStar(input: {starrableId: $id}) { clientMutationId } }`, { id });
    const err = await o.rest.activity.checkRepoIsStarredByAuthenticatedUser({ owner: 'mona', repo: 'hello-world' }).catch((e: { status: number }) => e);
    expect((err as { status: number }).status).toBe(404);
  });
});

describe('the service’s errors', () => {
  it('an unknown or foreign id is NOT_FOUND; another user’s issue is FORBIDDEN; a blank title UNPROCESSABLE; each with its field null', async () => {
    const unknown = await failing(gql()(`mutation { closeIssue(input: {issueId: "MDU6SXNzdWU5OTk5"}) { issue { id } } }`));
    expect(unknown.errors).toEqual([
      expect.objectContaining({ type: 'NOT_FOUND', path: ['closeIssue'], message: "Could not resolve to a node with the global id of 'MDU6SXNzdWU5OTk5'." }),
    ]);
    expect(unknown.data).toEqual({ closeIssue: null });
    // A repository id where an issue id belongs resolves to no issue.
    expect(
      (await failing(gql()(`mutation($id: ID!) { closeIssue(input: {issueId: $id}) { clientMutationId } }`, { id: await repoId() }))).errors[0]!.type,
    ).toBe('NOT_FOUND');
    const { data } = await rest().rest.issues.create({ owner: 'mona', repo: 'hello-world', title: 'Mine' });
    const hubot = gql(await hubotToken());
    const forbidden = await failing(hubot(`mutation($id: ID!) { closeIssue(input: {issueId: $id}) { issue { state } } }`, { id: data.node_id }));
    expect(forbidden.errors[0]).toMatchObject({ type: 'FORBIDDEN', message: 'hubot does not have the correct permissions to execute `CloseIssue`' });
    // hubot may comment and react on a public repository, and open an issue (without labels: it cannot triage).
    expect(await hubot(`mutation($id: ID!) { addComment(input: {subjectId: $id, body: "ok"}) { subject { id } } }`, { id: data.node_id })).toBeTruthy();
    const blank = await failing(gql()(`mutation($r: ID!) { createIssue(input: {repositoryId: $r, title: "  "}) { issue { id } } }`, { r: await repoId() }));
    expect(blank.errors[0]).toMatchObject({ type: 'UNPROCESSABLE', message: "Title can't be blank" });
    const long = await failing(
      gql()(`mutation($id: ID!, $b: String!) { addComment(input: {subjectId: $id, body: $b}) { subject { id } } }`, {
        id: data.node_id,
        b: 'x'.repeat(65_537),
      }),
    );
    expect(long.errors[0]!.message).toBe('Body is too long (maximum is 65536 characters)');
    // A private repository of another user does not exist for hubot.
    const notes = (await gql()(`query { repository(owner: "mona", name: "lanyard-notes") { id } }`)) as { repository: { id: string } };
    expect(
      (await failing(hubot(`mutation($id: ID!) { addStar(input: {starrableId: $id}) { clientMutationId } }`, { id: notes.repository.id }))).errors[0]!.type,
    ).toBe('NOT_FOUND');
  });

  it('a classic token without public_repo or repo may query but not mutate: INSUFFICIENT_SCOPES before anything runs', async () => {
    const limited = (
      (await ref.emu.admin('hosting', 'issue-token', { login: 'mona', clientId: ref.emu.fixtures.hosting.app.clientId, scopes: ['read:org'] })) as {
        access_token: string;
      }
    ).access_token;
    expect(await gql(limited)('{ viewer { login } }')).toEqual({ viewer: { login: 'mona' } });
    const refused = await failing(gql(limited)('mutation($id: ID!) { addStar(input: {starrableId: $id}) { clientMutationId } }', { id: await repoId() }));
    expect(refused.errors).toEqual([
      expect.objectContaining({
        type: 'INSUFFICIENT_SCOPES',
        message: expect.stringMatching(
          /^Your token has not been granted the required scopes to execute this query\. The 'addStar' field requires one of the following scopes: \['public_repo'\], but your token has only been granted the: \['read:org'\] scopes\./,
        ),
      }),
    ]);
    expect(refused.data).toBeUndefined();
    expect((await rest().rest.activity.listStargazersForRepo({ owner: 'mona', repo: 'hello-world' })).data).toEqual([]);
    const publicRepo = (
      (await ref.emu.admin('hosting', 'issue-token', { login: 'mona', clientId: ref.emu.fixtures.hosting.app.clientId, scopes: ['public_repo'] })) as {
        access_token: string;
      }
    ).access_token;
    expect(await gql(publicRepo)('mutation($id: ID!) { addStar(input: {starrableId: $id}) { starrable { stargazerCount } } }', { id: await repoId() })).toEqual(
      {
        addStar: { starrable: { stargazerCount: 1 } },
      },
    );
  });

  it('an input of the wrong shape is a validation error before anything runs (no data)', async () => {
    const res = await fetch(ref.emu.urls.hosting.graphql, {
      method: 'POST',
      headers: { authorization: `bearer ${ref.emu.fixtures.hosting.personalToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation { createIssue(input: {title: "no repository"}) { issue { id } } }' }),
    });
    const body = (await res.json()) as { data?: unknown; errors: Array<{ message: string }> };
    expect(body.data).toBeUndefined();
    expect(body.errors[0]!.message).toMatch(/Field "CreateIssueInput.repositoryId" of required type "ID!" was not provided/);
    expect((await rest().rest.issues.listForRepo({ owner: 'mona', repo: 'hello-world' })).data).toEqual([]);
  });
});

/** A raw query API call: status, the rate-limit headers and the body. */
async function post(query: string, o: { variables?: unknown; operationName?: string } = {}) {
  const res = await fetch(ref.emu.urls.hosting.graphql, {
    method: 'POST',
    headers: { authorization: `bearer ${ref.emu.fixtures.hosting.personalToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, ...o }),
  });
  return {
    status: res.status,
    used: Number(res.headers.get('x-ratelimit-used')),
    body: (await res.json()) as { data?: any; errors?: Array<Record<string, any>> },
  };
}

describe('the service’s limits on the query API', () => {
  it('a connection whose nodes or edges are asked needs first or last, at most 100: refused before it runs, with the published types', async () => {
    const missing = await post('{ repository(owner: "mona", name: "hello-world") { issues { nodes { number } } } }');
    expect(missing.body).toEqual({
      errors: [
        {
          type: 'MISSING_PAGINATION_BOUNDARIES',
          locations: [{ line: 1, column: 52 }],
          message: 'You must provide a `first` or `last` value to properly paginate the `issues` connection.',
        },
      ],
    });
    // Only its totalCount (gh's `issues(states: OPEN) { totalCount }`, `reactionGroups { users { totalCount } }`): answered, no page needed.
    const counted = await post(
      '{ repository(owner: "mona", name: "hello-world") { issues(states: OPEN) { totalCount } ...E } } fragment E on Repository { labels { totalCount pageInfo { hasNextPage } } }',
    );
    expect(counted.body).toEqual({ data: { repository: { issues: { totalCount: 0 }, labels: { totalCount: 9, pageInfo: { hasNextPage: false } } } } });
    const viaFragment = await post('{ repository(owner: "mona", name: "hello-world") { labels { ...L } } } fragment L on LabelConnection { edges { cursor } }');
    expect(viaFragment.body.errors?.[0]).toMatchObject({ type: 'MISSING_PAGINATION_BOUNDARIES' });
    const over = await post('query($n: Int) { repository(owner: "mona", name: "hello-world") { labels(last: $n) { totalCount } } }', { variables: { n: 101 } });
    expect(over.body.errors).toEqual([
      expect.objectContaining({
        type: 'EXCESSIVE_PAGINATION',
        message: 'Requesting 101 records on the `labels` connection exceeds the `last` limit of 100 records.',
      }),
    ]);
    expect(over.body.data).toBeUndefined();
  });

  it('the primary cost is the connections’ requests over 100 (at least 1): rateLimit.cost and x-ratelimit-used agree', async () => {
    const before = await post('{ rateLimit { used } }');
    // 1 request for the issues, 100 for their comments, 100 for their labels: 201 / 100 -> 2 points; nodes 100 + 100*50 + 100*20.
    const nested = await post(`{ rateLimit { cost nodeCount }
      repository(owner: "mona", name: "hello-world") { issues(first: 100) { nodes { comments(first: 50) { totalCount } labels(first: 20) { totalCount } } } } }`);
    expect(nested.body.data.rateLimit).toEqual({ cost: 2, nodeCount: 7100 });
    expect(nested.used - before.used).toBe(2);
    // A mutation without connections costs 1 point of the primary budget.
    const m = await post('mutation($id: ID!) { addStar(input: {starrableId: $id}) { clientMutationId } }', { variables: { id: await repoId() } });
    expect(m.body.errors).toBeUndefined();
    expect((await post('{ rateLimit { used } }')).used - m.used).toBe(1);
    // More than 500,000 nodes is refused.
    const huge = await post(
      `{ repository(owner: "mona", name: "hello-world") { issues(first: 100) { nodes { comments(first: 100) { nodes { reactions(first: 100) { totalCount } } } } } } }`,
    );
    expect(huge.body.errors).toEqual([expect.objectContaining({ type: 'MAX_NODE_LIMIT_EXCEEDED' })]);
  });

  it('a query whose cost the budget cannot pay is RATE_LIMITED', async () => {
    // One point left: the limiter takes it, the second of the query's two cannot be paid.
    await ref.emu.budget({ login: 'mona', resource: 'graphql', remaining: 1 });
    const r = await post(
      `{ repository(owner: "mona", name: "hello-world") { issues(first: 100) { nodes { comments(first: 100) { totalCount } labels(first: 100) { totalCount } } } } }`,
    );
    expect(r.body).toEqual({ errors: [{ type: 'RATE_LIMITED', message: expect.stringMatching(/^API rate limit exceeded for user ID 1\./) }] });
  });

  it('mutations are content-creating (secondary limits), queries are not; a mutation chosen by operationName after a query counts too', async () => {
    await ref.emu.limits({ contentCreatingPerMinute: 2 });
    const id = await repoId();
    const doc = 'query Look { viewer { login } } mutation Star($id: ID!) { addStar(input: {starrableId: $id}) { clientMutationId } }';
    expect((await post(doc, { operationName: 'Star', variables: { id } })).status).toBe(200);
    expect((await post(doc, { operationName: 'Star', variables: { id } })).status).toBe(200);
    const third = await post(doc, { operationName: 'Star', variables: { id } });
    expect(third.status).toBe(403);
    expect(JSON.stringify(third.body)).toMatch(/secondary rate limit/);
    // The same document running its query is no content creation.
    expect((await post(doc, { operationName: 'Look', variables: { id } })).status).toBe(200);
  });
});

describe('many in a row', () => {
  it('a bulk import of 300 issues, 20 mutations in flight at a time (each runs to completion in turn in the emulator): numbers 1..300 once each, and both APIs page through all of them', async () => {
    await ref.emu.limits({ contentCreatingPerMinute: 1000, contentCreatingPerHour: 1000 });
    const id = await repoId();
    const create = gql();
    const numbers: number[] = [];
    for (let batch = 0; batch < 15; batch++) {
      const made = await Promise.all(
        Array.from({ length: 20 }, (_, k) =>
          create(`mutation($r: ID!, $t: String!) { createIssue(input: {repositoryId: $r, title: $t}) { issue { number } } }`, {
            r: id,
            t: `bulk ${batch * 20 + k}`,
          }),
        ),
      );
      numbers.push(...made.map((m) => (m as { createIssue: { issue: { number: number } } }).createIssue.issue.number));
    }
    expect(numbers.sort((a, b) => a - b)).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
    const viaRest = await rest().paginate(rest().rest.issues.listForRepo, { owner: 'mona', repo: 'hello-world', per_page: 100 });
    expect(viaRest.length).toBe(300);
    const seen: number[] = [];
    let after: string | null = null;
    do {
      const page = (await gql()(
        `query($after: String) { repository(owner: "mona", name: "hello-world") { issues(first: 100, after: $after) { nodes { number } pageInfo { hasNextPage endCursor } } } }`,
        {
          after,
        },
      )) as { repository: { issues: { nodes: Array<{ number: number }>; pageInfo: { hasNextPage: boolean; endCursor: string } } } };
      seen.push(...page.repository.issues.nodes.map((n) => n.number));
      after = page.repository.issues.pageInfo.hasNextPage ? page.repository.issues.pageInfo.endCursor : null;
    } while (after);
    expect(seen).toEqual(Array.from({ length: 300 }, (_, i) => i + 1));
  });
});
