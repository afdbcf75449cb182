/**
 * The hosting answers against the code host's published REST description, as
 * the npm package @octokit/openapi ships it (a pinned devDependency): every
 * answer below must satisfy its operation's response schema, so a drift of
 * the emulator (or a new required field upstream, on an upgrade) fails here.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { useInProcessEmulator } from '../e2e/in-process-emulator.js';
import { PublishedDescription } from './validate.js';

const require = createRequire(import.meta.url);
const spec = new PublishedDescription(require('@octokit/openapi/generated/api.github.com.json'), 'https://api.github.com/openapi');
const ref = useInProcessEmulator();

async function call(method: string, path: string, o: { token?: string; basic?: [string, string]; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { accept: 'application/vnd.github+json', ...o.headers };
  if (o.token) headers.authorization = `token ${o.token}`;
  if (o.basic) headers.authorization = `Basic ${Buffer.from(o.basic.join(':')).toString('base64')}`;
  if (o.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${ref.emu.urls.hosting.api}${path}`, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

function expectPublished(method: string, path: string, r: { status: number; body: unknown }, status: number): void {
  expect(r.status, `${method} ${path}`).toBe(status);
  expect(spec.check(method, path.split('?')[0]!, r.status, r.body), `${method} ${path} ${r.status}`).toEqual([]);
}

describe('hosting answers satisfy the published description (@octokit/openapi)', () => {
  it('GET /user is a private-user with the `user` (or `read:user`) scope, GET /users/{username} a public-user', async () => {
    const { app } = ref.emu.fixtures.hosting;
    const issued = (await ref.emu.admin('hosting', 'issue-token', { login: 'mona', clientId: app.clientId, scopes: ['repo', 'user'] })) as {
      access_token: string;
    };
    const me = await call('GET', '/user', { token: issued.access_token });
    expectPublished('GET', '/user', me, 200);
    expect(me.body).toMatchObject({ user_view_type: 'private', two_factor_authentication: false, public_repos: 1, total_private_repos: 1 });
    const other = await call('GET', '/users/hubot', { token: issued.access_token });
    expectPublished('GET', '/users/hubot', other, 200);
    expect(other.body.user_view_type).toBe('public');
    expect(other.body).not.toHaveProperty('two_factor_authentication');
  });

  it('GET /user through a classic token without the `user` scope is the public profile only, as the service answers it', async () => {
    const { app } = ref.emu.fixtures.hosting;
    const profile = async (token: string) => {
      const me = await call('GET', '/user', { token });
      expectPublished('GET', '/user', me, 200);
      return me.body as Record<string, unknown>;
    };
    const privateFields = ['two_factor_authentication', 'plan', 'private_gists', 'total_private_repos', 'owned_private_repos', 'disk_usage', 'collaborators'];
    const issue = async (scopes: string[]) =>
      ((await ref.emu.admin('hosting', 'issue-token', { login: 'mona', clientId: app.clientId, scopes })) as { access_token: string }).access_token;
    for (const token of [ref.emu.fixtures.hosting.personalToken, await issue(['repo', 'user:email']), await issue([])]) {
      const me = await profile(token);
      expect(me).toMatchObject({ login: 'mona', user_view_type: 'public', public_repos: 1 });
      expect(privateFields.filter((k) => k in me)).toEqual([]);
      expect(me).toEqual((await call('GET', '/users/mona', { token })).body);
    }
    expect(await profile(await issue(['read:user']))).toMatchObject({ user_view_type: 'private', plan: { name: 'free' } });
  });

  it('GET /user counts private repositories only for a token that may see them (`repo`), as the service does', async () => {
    const { app } = ref.emu.fixtures.hosting;
    const counts = async (scopes: string[]) => {
      const issued = (await ref.emu.admin('hosting', 'issue-token', { login: 'mona', clientId: app.clientId, scopes: [...scopes, 'read:user'] })) as {
        access_token: string;
      };
      const me = await call('GET', '/user', { token: issued.access_token });
      expectPublished('GET', '/user', me, 200);
      return { total: me.body.total_private_repos, owned: me.body.owned_private_repos, public: me.body.public_repos };
    };
    expect(await counts(['repo'])).toEqual({ total: 1, owned: 1, public: 1 });
    expect(await counts(['public_repo', 'read:org'])).toEqual({ total: 0, owned: 0, public: 1 });
    expect(await counts([])).toEqual({ total: 0, owned: 0, public: 1 });
  });

  it('the token check, reset and scoped answers of /applications/{client_id}/token carry a whole simple-user', async () => {
    const { app } = ref.emu.fixtures.hosting;
    const issued = (await ref.emu.admin('hosting', 'issue-token', { login: 'mona', clientId: app.clientId, scopes: ['repo'] })) as { access_token: string };
    const basic: [string, string] = [app.clientId, app.clientSecret!];
    const path = `/applications/${app.clientId}/token`;
    const check = await call('POST', path, { basic, body: { access_token: issued.access_token } });
    expectPublished('POST', path, check, 200);
    expect(check.body.user.user_view_type).toBe('public');
    const reset = await call('PATCH', path, { basic, body: { access_token: issued.access_token } });
    expectPublished('PATCH', path, reset, 200);
  });

  it('the rate limit and the errors of a missing or foreign resource', async () => {
    expectPublished('GET', '/rate_limit', await call('GET', '/rate_limit'), 200);
    expectPublished('GET', '/user', await call('GET', '/user'), 401);
    expectPublished('GET', '/users/nobody-here', await call('GET', '/users/nobody-here'), 404);
  });
});

describe('hosting repositories satisfy the published description', () => {
  it('a repository, the caller’s list, a new one and a search', async () => {
    const token = ref.emu.fixtures.hosting.personalToken;
    expectPublished('GET', '/repos/{owner}/{repo}', await call('GET', '/repos/mona/hello-world', { token }), 200);
    expectPublished('GET', '/user/repos', await call('GET', '/user/repos', { token }), 200);
    expectPublished('POST', '/user/repos', await call('POST', '/user/repos', { token, body: { name: 'published-check' } }), 201);
    expectPublished('GET', '/search/repositories', await call('GET', '/search/repositories?q=hello', { token }), 200);
  });
});

/** The published example of an operation's answer (its first), as @octokit/openapi ships it. */
function publishedExample(path: string, method: string, status: string): Record<string, unknown> {
  const doc = require('@octokit/openapi/generated/api.github.com.json');
  const content = doc.paths[path][method].responses[status].content['application/json'];
  const first = Object.values(content.examples as Record<string, { $ref: string }>)[0]!;
  const value = doc.components.examples[first.$ref.split('/').pop()!].value;
  return Array.isArray(value) ? value[0] : value;
}

/** Fields an example carries only because its repository has them (a fork's parent, an organization's, a template's). */
const RELATIONAL = new Set(['organization', 'parent', 'source', 'template_repository']);

/** Every field of the example is in the answer, with a value of the same JSON type (`null` aside), and `permissions` has the example's keys. */
function expectExampleFields(answer: Record<string, unknown>, example: Record<string, unknown>, what: string, o: { besides?: string[] } = {}): void {
  const missing = Object.keys(example).filter((k) => !RELATIONAL.has(k) && !o.besides?.includes(k) && !(k in answer));
  expect(missing, `${what}: fields of the published example missing`).toEqual([]);
  const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  const differ = Object.keys(example).filter((k) => k in answer && example[k] !== null && answer[k] !== null && kind(example[k]) !== kind(answer[k]));
  expect(differ, `${what}: fields of another type than the example's`).toEqual([]);
  expect(Object.keys(answer.permissions as object)).toEqual(expect.arrayContaining(Object.keys(example.permissions as object)));
}

describe('hosting repositories carry what the published examples carry (not only the schema’s required fields)', () => {
  it('the owner gets permissions and the owner-only fields on a repository, a new one and the list', async () => {
    const token = ref.emu.fixtures.hosting.personalToken;
    const one = await call('GET', '/repos/mona/hello-world', { token });
    expectExampleFields(one.body, publishedExample('/repos/{owner}/{repo}', 'get', '200'), 'GET /repos/{owner}/{repo}');
    expect(one.body.permissions).toEqual({ admin: true, maintain: true, push: true, triage: true, pull: true });
    expect(one.body).toMatchObject({ allow_squash_merge: true, allow_merge_commit: true, allow_rebase_merge: true, temp_clone_token: '' });
    const created = await call('POST', '/user/repos', { token, body: { name: 'example-check', private: true } });
    expectExampleFields(created.body, publishedExample('/user/repos', 'post', '201'), 'POST /user/repos');
    expect(created.body.temp_clone_token).toMatch(/^[A-Z0-9]{20,}$/);
    const list = await call('GET', '/user/repos', { token });
    // The list's example is a whole repository's; the service's list items leave out the counts only one repository carries.
    const besides = ['network_count', 'subscribers_count'];
    for (const item of list.body) expectExampleFields(item, publishedExample('/user/repos', 'get', '200'), 'GET /user/repos item', { besides });
  });

  it('another signed-in caller reads: pull only and none of the owner’s settings; an anonymous caller is told no permissions', async () => {
    const { app } = ref.emu.fixtures.hosting;
    const hubot = (await ref.emu.admin('hosting', 'issue-token', { login: 'hubot', clientId: app.clientId, scopes: ['repo'] })) as { access_token: string };
    const other = await call('GET', '/repos/mona/hello-world', { token: hubot.access_token });
    expectPublished('GET', '/repos/{owner}/{repo}', other, 200);
    expect(other.body.permissions).toEqual({ admin: false, maintain: false, push: false, triage: false, pull: true });
    expect(Object.keys(other.body).filter((k) => /^allow_(?!forking)|^temp_clone_token$|merge_commit/.test(k))).toEqual([]);
    const anonymous = await call('GET', '/repos/mona/hello-world');
    expectPublished('GET', '/repos/{owner}/{repo}', anonymous, 200);
    expect(anonymous.body).not.toHaveProperty('permissions');
  });
});

describe('hosting issues, comments, labels, reactions and stars satisfy the published description', () => {
  it('GET /search/issues answers the published shape (each item an issue-search-result-item), and its refusals a validation-failed', async () => {
    const token = ref.emu.fixtures.hosting.personalToken;
    const made = await call('POST', '/repos/mona/hello-world/issues', { token, body: { title: 'Search me', labels: ['bug'], assignees: ['mona'] } });
    expect(made.status).toBe(201);
    const found = await call('GET', '/search/issues?q=search+label%3Abug+repo%3Amona%2Fhello-world', { token });
    expectPublished('GET', '/search/issues', found, 200);
    expect(found.body).toMatchObject({ total_count: 1, incomplete_results: false, items: [{ number: made.body.number, score: 1 }] });
    expect(found.headers.get('x-ratelimit-resource')).toBe('search');
    expectPublished('GET', '/search/issues', await call('GET', `/search/issues?q=${'x'.repeat(300)}`, { token }), 422);
    expectPublished('GET', '/search/issues', await call('GET', '/search/issues', { token }), 422);
    expectPublished('GET', '/search/repositories', await call('GET', '/search/repositories?q=hello', { token }), 200);
  });

  it('each answer of the issue endpoints, and an issue carries what the published example carries', async () => {
    const token = ref.emu.fixtures.hosting.personalToken;
    const R = '/repos/mona/hello-world';
    const made = await call('POST', `${R}/issues`, { token, body: { title: 'Found a bug', body: 'details', labels: ['bug'], assignees: ['mona'] } });
    expectPublished('POST', `${R}/issues`, made, 201);
    const example = publishedExample('/repos/{owner}/{repo}/issues', 'post', '201');
    const optional = [
      'repository',
      'pinned_comment',
      'type',
      'draft',
      'pull_request',
      'body_html',
      'body_text',
      'sub_issues_summary',
      'issue_dependencies_summary',
    ];
    const missing = Object.keys(example).filter((k) => !optional.includes(k) && !(k in made.body));
    expect(missing).toEqual([]);
    const n = made.body.number;
    expectPublished('GET', `${R}/issues`, await call('GET', `${R}/issues?state=all`, { token }), 200);
    expectPublished('GET', `${R}/issues/${n}`, await call('GET', `${R}/issues/${n}`, { token }), 200);
    expectPublished(
      'PATCH',
      `${R}/issues/${n}`,
      await call('PATCH', `${R}/issues/${n}`, { token, body: { state: 'closed', state_reason: 'not_planned' } }),
      200,
    );
    const comment = await call('POST', `${R}/issues/${n}/comments`, { token, body: { body: 'Me too' } });
    expectPublished('POST', `${R}/issues/${n}/comments`, comment, 201);
    expectPublished('GET', `${R}/issues/${n}/comments`, await call('GET', `${R}/issues/${n}/comments`, { token }), 200);
    expectPublished('GET', `${R}/issues/comments/${comment.body.id}`, await call('GET', `${R}/issues/comments/${comment.body.id}`, { token }), 200);
    expectPublished('GET', `${R}/labels`, await call('GET', `${R}/labels`, { token }), 200);
    expectPublished('POST', `${R}/labels`, await call('POST', `${R}/labels`, { token, body: { name: 'triage', color: 'ff0000' } }), 201);
    expectPublished('POST', `${R}/issues/${n}/labels`, await call('POST', `${R}/issues/${n}/labels`, { token, body: { labels: ['triage'] } }), 200);
    const reaction = await call('POST', `${R}/issues/${n}/reactions`, { token, body: { content: 'heart' } });
    expectPublished('POST', `${R}/issues/${n}/reactions`, reaction, 201);
    expectPublished('GET', `${R}/issues/${n}/reactions`, await call('GET', `${R}/issues/${n}/reactions`, { token }), 200);
    expect((await call('PUT', '/user/starred/mona/hello-world', { token })).status).toBe(204);
    expectPublished('GET', `${R}/stargazers`, await call('GET', `${R}/stargazers`, { token }), 200);
    expectPublished('GET', `${R}/issues/999`, await call('GET', `${R}/issues/999`, { token }), 404);
    expectPublished('POST', `${R}/issues`, await call('POST', `${R}/issues`, { token, body: { body: 'no title' } }), 422);
  });
});

describe('hosting label writes and errors satisfy the published description', () => {
  it("an issue's labels set, added from the array itself and cleared; a label updated and deleted", async () => {
    const token = ref.emu.fixtures.hosting.personalToken;
    const R = '/repos/mona/hello-world';
    const n = (await call('POST', `${R}/issues`, { token, body: { title: 'Labels' } })).body.number;
    expectPublished('PUT', `${R}/issues/${n}/labels`, await call('PUT', `${R}/issues/${n}/labels`, { token, body: { labels: [{ name: 'bug' }] } }), 200);
    // "You can also pass an array of labels directly" (add labels, set labels).
    const added = await call('POST', `${R}/issues/${n}/labels`, { token, body: ['question'] });
    expectPublished('POST', `${R}/issues/${n}/labels`, added, 200);
    expect(added.body.map((l: { name: string }) => l.name)).toEqual(['bug', 'question']);
    expectPublished('PUT', `${R}/issues/${n}/labels`, await call('PUT', `${R}/issues/${n}/labels`, { token, body: ['wontfix'] }), 200);
    expectPublished('DELETE', `${R}/issues/${n}/labels`, await call('DELETE', `${R}/issues/${n}/labels`, { token }), 204);
    await call('POST', `${R}/labels`, { token, body: { name: 'old', color: 'ff0000' } });
    const updated = await call('PATCH', `${R}/labels/old`, { token, body: { new_name: 'bug :bug:', description: 'Small bug fix required', color: 'b01f26' } });
    expectPublished('PATCH', `${R}/labels/old`, updated, 200);
    expect(updated.body).toMatchObject({ name: 'bug :bug:', color: 'b01f26', description: 'Small bug fix required' });
    expectPublished('DELETE', `${R}/labels/bug%20%3Abug%3A`, await call('DELETE', `${R}/labels/bug%20%3Abug%3A`, { token }), 204);
  });

  it('error bodies carry the fields of basic-error the service sends, status among them (a string)', async () => {
    const basic: { properties: Record<string, { type: string }> } = require('@octokit/openapi/generated/api.github.com.json').components.schemas['basic-error'];
    expect(basic.properties.status).toEqual({ type: 'string' });
    const token = ref.emu.fixtures.hosting.personalToken;
    for (const [method, path, status] of [
      ['GET', '/repos/mona/hello-world/issues/999', 404],
      ['GET', '/repos/mona/hello-world/labels/none', 404],
      ['GET', '/user/nope', 404],
    ] as const) {
      const r = await call(method, path, { token });
      expect(r.status).toBe(status);
      expect(r.body).toEqual({ message: 'Not Found', documentation_url: expect.stringMatching(/^https:/), status: String(status) });
      expect(Object.keys(r.body).filter((k) => !(k in basic.properties))).toEqual([]);
    }
    expect((await call('GET', '/user')).body).toMatchObject({ message: 'Requires authentication', status: '401' });
  });
});

describe('hosting endpoints scripts call besides issues satisfy the published description', () => {
  const R = '/repos/mona/hello-world';
  const issue = async (scopes: string[], login = 'mona') =>
    (
      (await ref.emu.admin('hosting', 'issue-token', { login, clientId: ref.emu.fixtures.hosting.app.clientId, scopes })) as {
        access_token: string;
      }
    ).access_token;

  it('an issue locked (with a reason) and unlocked by the owner; others may not lock it, nor comment while it is locked', async () => {
    const token = ref.emu.fixtures.hosting.personalToken;
    const hubot = await issue(['repo'], 'hubot');
    const n = (await call('POST', `${R}/issues`, { token, body: { title: 'Heated' } })).body.number;
    const lock = `${R}/issues/${n}/lock`;
    expect((await call('PUT', lock, { token, body: { lock_reason: 'too heated' } })).status).toBe(204);
    const locked = await call('GET', `${R}/issues/${n}`, { token });
    expectPublished('GET', `${R}/issues/${n}`, locked, 200);
    expect(locked.body).toMatchObject({ locked: true, active_lock_reason: 'too heated' });
    expectPublished('POST', `${R}/issues/${n}/comments`, await call('POST', `${R}/issues/${n}/comments`, { token: hubot, body: { body: 'x' } }), 403);
    expect((await call('POST', `${R}/issues/${n}/comments`, { token: hubot, body: { body: 'x' } })).body.message).toBe(
      'Unable to create comment because issue is locked.',
    );
    expect((await call('POST', `${R}/issues/${n}/comments`, { token, body: { body: 'owner may' } })).status).toBe(201);
    expectPublished('PUT', lock, await call('PUT', lock, { token: hubot }), 403);
    const bad = await call('PUT', lock, { token, body: { lock_reason: 'bored' } });
    expectPublished('PUT', lock, bad, 422);
    expect(bad.body.message).toBe('Invalid request.\n\nbored is not a member of ["off-topic", "too heated", "resolved", "spam"].');
    expect((await call('DELETE', lock, { token })).status).toBe(204);
    expect((await call('GET', `${R}/issues/${n}`, { token })).body).toMatchObject({ locked: false, active_lock_reason: null });
    expect((await call('PUT', lock, { token })).status).toBe(204);
    expect((await call('GET', `${R}/issues/${n}`, { token })).body).toMatchObject({ locked: true, active_lock_reason: null });
  });

  it('GET /meta, GET /user/emails (only with user:email or user: else 404) and GET /users/{username}/repos (public ones, sorted, paged)', async () => {
    const meta = await call('GET', '/meta');
    expectPublished('GET', '/meta', meta, 200);
    expect(meta.body).toMatchObject({ verifiable_password_authentication: false, api: ['127.0.0.1/32'], git: ['127.0.0.1/32'] });
    const emails = await call('GET', '/user/emails', { token: await issue(['user:email']) });
    expectPublished('GET', '/user/emails', emails, 200);
    expect(emails.body[0]).toEqual({ email: 'mona@example.com', primary: true, verified: true, visibility: 'public' });
    expect((await call('GET', '/user/emails', { token: await issue(['user']) })).status).toBe(200);
    const scopeless = await call('GET', '/user/emails', { token: ref.emu.fixtures.hosting.personalToken });
    expectPublished('GET', '/user/emails', scopeless, 404);
    expect(scopeless.headers.get('x-accepted-oauth-scopes')).toBe('user, user:email');
    expectPublished('GET', '/user/emails', await call('GET', '/user/emails'), 401);
    const token = ref.emu.fixtures.hosting.personalToken;
    for (const name of ['zebra', 'alpha']) await call('POST', '/user/repos', { token, body: { name } });
    await call('POST', '/user/repos', { token, body: { name: 'hidden', private: true } });
    const repos = await call('GET', '/users/mona/repos', { token });
    expectPublished('GET', '/users/mona/repos', repos, 200);
    expect(repos.body.map((r: { name: string }) => r.name)).toEqual(['alpha', 'hello-world', 'zebra']);
    const paged = await call('GET', '/users/mona/repos?per_page=1&page=2&sort=full_name&direction=desc');
    expect(paged.body.map((r: { name: string }) => r.name)).toEqual(['hello-world']);
    expect(paged.headers.get('link')).toContain('rel="next"');
    expect((await call('GET', '/users/mona/repos?type=member')).body).toEqual([]);
    expectPublished('GET', '/users/ent-corp/repos', await call('GET', '/users/ent-corp/repos'), 200);
    expect((await call('GET', '/users/nobody-here/repos')).status).toBe(404);
  });

  it('assignees: who may be assigned, an issue’s added and removed (ignored from those who do not push), each checked', async () => {
    const token = ref.emu.fixtures.hosting.personalToken;
    const n = (await call('POST', `${R}/issues`, { token, body: { title: 'Assign me' } })).body.number;
    const list = await call('GET', `${R}/assignees`, { token });
    expectPublished('GET', `${R}/assignees`, list, 200);
    expect(list.body.map((u: { login: string }) => u.login)).toEqual(expect.arrayContaining(['mona', 'hubot']));
    expect((await call('GET', `${R}/assignees/hubot`, { token })).status).toBe(204);
    expectPublished('GET', `${R}/assignees/nobody-here`, await call('GET', `${R}/assignees/nobody-here`, { token }), 404);
    const added = await call('POST', `${R}/issues/${n}/assignees`, { token, body: { assignees: ['hubot', 'mona', 'nobody-here'] } });
    expectPublished('POST', `${R}/issues/${n}/assignees`, added, 201);
    expect(added.body.assignees.map((u: { login: string }) => u.login)).toEqual(['hubot', 'mona']);
    expect((await call('GET', `${R}/issues/${n}/assignees/hubot`, { token })).status).toBe(204);
    const byHubot = await call('DELETE', `${R}/issues/${n}/assignees`, { token: await issue(['repo'], 'hubot'), body: { assignees: ['mona'] } });
    expect(byHubot.body.assignees.map((u: { login: string }) => u.login)).toEqual(['hubot', 'mona']);
    const removed = await call('DELETE', `${R}/issues/${n}/assignees`, { token, body: { assignees: ['hubot'] } });
    expectPublished('DELETE', `${R}/issues/${n}/assignees`, removed, 200);
    expect(removed.body).toMatchObject({ assignee: { login: 'mona' }, assignees: [{ login: 'mona' }] });
    expect((await call('GET', `${R}/issues/${n}/assignees/hubot`, { token })).status).toBe(204);
    const missing = await call('DELETE', `${R}/issues/${n}/assignees`, { token, body: {} });
    expect(missing).toMatchObject({ status: 422, body: { message: 'Invalid request.\n\n"assignees" wasn\'t supplied.' } });
  });

  it('milestones: created, listed, read, updated, deleted, and an issue that has one', async () => {
    const token = ref.emu.fixtures.hosting.personalToken;
    const M = `${R}/milestones`;
    const made = await call('POST', M, { token, body: { title: 'Published', description: 'checked', due_on: '2031-05-06T07:08:09Z' } });
    expectPublished('POST', M, made, 201);
    const n = made.body.number;
    expectPublished('GET', M, await call('GET', `${M}?state=all`, { token }), 200);
    expectPublished('GET', `${M}/${n}`, await call('GET', `${M}/${n}`, { token }), 200);
    expectPublished('PATCH', `${M}/${n}`, await call('PATCH', `${M}/${n}`, { token, body: { state: 'closed', due_on: null } }), 200);
    const issue = await call('POST', `${R}/issues`, { token, body: { title: 'In a milestone', milestone: n } });
    expectPublished('POST', `${R}/issues`, issue, 201);
    expect(issue.body.milestone).toMatchObject({ number: n, state: 'closed', open_issues: 1, due_on: null });
    expectPublished('POST', M, await call('POST', M, { token, body: { title: 'Published' } }), 422);
    const noTitle = await call('POST', M, { token, body: { description: 'x' } });
    expect(noTitle).toMatchObject({ status: 422, body: { message: 'Invalid request.\n\n"title" wasn\'t supplied.' } });
    expect((await call('PATCH', `${M}/${n}`, { token, body: { state: 'done' } })).body.message).toBe(
      'Invalid request.\n\ndone is not a member of ["open", "closed"].',
    );
    expectPublished('DELETE', `${M}/${n}`, await call('DELETE', `${M}/${n}`, { token }), 204);
    expectPublished('GET', `${M}/${n}`, await call('GET', `${M}/${n}`, { token }), 404);
  });

  it("issue events: an issue's, a repository's and one", async () => {
    const token = ref.emu.fixtures.hosting.personalToken;
    const n = (await call('POST', `${R}/issues`, { token, body: { title: 'Eventful', labels: ['bug'], assignees: ['hubot'] } })).body.number;
    await call('PATCH', `${R}/issues/${n}`, { token, body: { title: 'Renamed', state: 'closed' } });
    await call('PUT', `${R}/issues/${n}/lock`, { token, body: { lock_reason: 'spam' } });
    const events = await call('GET', `${R}/issues/${n}/events`, { token });
    expectPublished('GET', `${R}/issues/${n}/events`, events, 200);
    expect(events.body.map((e: { event: string }) => e.event)).toEqual(['labeled', 'assigned', 'renamed', 'closed', 'locked']);
    expectPublished('GET', `${R}/issues/events`, await call('GET', `${R}/issues/events`, { token }), 200);
    const id = events.body[0].id;
    expectPublished('GET', `${R}/issues/events/${id}`, await call('GET', `${R}/issues/events/${id}`, { token }), 200);
    expectPublished('GET', `${R}/issues/events/99999`, await call('GET', `${R}/issues/events/99999`, { token }), 404);
  });
});
