/**
 * gh 2.23's issue commands against the emulator, as a script drives them:
 * `gh issue view` (it reads `issueOrPullRequest` and spreads on `Issue` and
 * `PullRequest`), `comment`, `edit --add-label/--remove-label`, `close`,
 * `reopen` and `list --label` (the `search` connection), each change seen
 * by REST; and REST issue writes with a token lacking `repo`/`public_repo`
 * get the service's 404 (through `gh api`); `gh search issues` (REST
 * `GET /search/issues`).
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { runGh, startGhEmulator, stopGhEmulator } from './gh-harness.js';

let emu: RunningEmulator;
let home: string;
let host: string;

const gh = (args: string[], input?: string) => runGh(args, { home, caFile: emu.tls!.caFile, input });
const R = () => ['-R', `${host}/mona/hello-world`];
/** The REST view of issue N of mona/hello-world, through gh. */
async function restIssue(n: number) {
  const r = await gh(['api', '--hostname', host, `repos/mona/hello-world/issues/${n}`, '--jq', '{state, state_reason, labels: [.labels[].name], comments}']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { state: string; state_reason: string | null; labels: string[]; comments: number };
}
const ok = (r: { code: number; stderr: string }) => expect(r.code, r.stderr).toBe(0);

beforeAll(async () => {
  ({ emu, home, host } = await startGhEmulator('lanyard-gh-issues-'));
});
afterAll(() => stopGhEmulator(emu, home));
beforeEach(async () => {
  await emu.reset();
  await rm(join(home, 'gh'), { recursive: true, force: true });
  ok(await gh(['auth', 'login', '--hostname', host, '--with-token'], `${emu.fixtures.hosting.personalToken}\n`));
  ok(await gh(['issue', 'create', ...R(), '--title', 'Filed with gh', '--body', 'the details']));
});

describe('gh 2.23 issue commands that name a number', () => {
  it('gh issue view: the table and --json with every field gh 2.23 asks the query API for', async () => {
    const table = await gh(['issue', 'view', '1', ...R()]);
    ok(table);
    expect(table.stdout).toMatch(/^title:\tFiled with gh\nstate:\tOPEN\nauthor:\tmona\n/);
    expect(table.stdout).toMatch(/\nnumber:\t1\n--\nthe details\n$/);
    const json = await gh([
      'issue',
      'view',
      '1',
      ...R(),
      '--json',
      'number,title,body,state,author,labels,comments,assignees,milestone,projectCards,reactionGroups,url,id,createdAt,closed',
    ]);
    ok(json);
    expect(JSON.parse(json.stdout)).toEqual({
      number: 1,
      title: 'Filed with gh',
      body: 'the details',
      state: 'OPEN',
      closed: false,
      author: { id: expect.any(String), is_bot: false, login: 'mona', name: 'Mona Lanyard' },
      labels: [],
      comments: [],
      assignees: [],
      milestone: null,
      projectCards: [],
      reactionGroups: [],
      url: `https://${host}/mona/hello-world/issues/1`,
      id: expect.stringMatching(/^\S+$/),
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
  });

  it('gh issue comment, then gh issue view --comments shows it with its association and reactions; REST counts it', async () => {
    const c = await gh(['issue', 'comment', '1', ...R(), '--body', 'a comment from gh']);
    ok(c);
    expect(c.stdout.trim()).toMatch(new RegExp(`^https://${host.replaceAll('.', '\\.')}/mona/hello-world/issues/1#issuecomment-\\d+$`));
    const id = Number(/issuecomment-(\d+)/.exec(c.stdout)![1]);
    ok(await gh(['api', '--hostname', host, '-X', 'POST', `repos/mona/hello-world/issues/comments/${id}/reactions`, '-f', 'content=heart']));
    const view = await gh(['issue', 'view', '1', ...R(), '--comments']);
    ok(view);
    expect(view.stdout).toMatch(/author:\tmona\nassociation:\towner\nedited:\tfalse\nstatus:\tnone\n--\na comment from gh\n--/);
    const json = await gh(['issue', 'view', '1', ...R(), '--json', 'comments', '--jq', '.comments[0] | {body, authorAssociation, reactionGroups}']);
    expect(JSON.parse(json.stdout)).toEqual({
      body: 'a comment from gh',
      authorAssociation: 'OWNER',
      reactionGroups: [{ content: 'HEART', users: { totalCount: 1 } }],
    });
    expect((await restIssue(1)).comments).toBe(1);
  });

  it('gh issue edit --add-label/--remove-label, --add-assignee/--remove-assignee, --title, --body; gh issue status: REST sees each change', async () => {
    ok(await gh(['issue', 'edit', '1', ...R(), '--add-label', 'bug,enhancement']));
    expect((await restIssue(1)).labels.sort()).toEqual(['bug', 'enhancement']);
    ok(await gh(['issue', 'edit', '1', ...R(), '--remove-label', 'bug']));
    expect((await restIssue(1)).labels).toEqual(['enhancement']);
    // Assignees (gh reads assignableUsers), title and body.
    ok(await gh(['issue', 'edit', '1', ...R(), '--add-assignee', 'mona,hubot', '--title', 'Renamed', '--body', 'new body']));
    ok(await gh(['issue', 'edit', '1', ...R(), '--remove-assignee', 'hubot']));
    const rest = await gh(['api', '--hostname', host, 'repos/mona/hello-world/issues/1', '--jq', '{title, body, assignees: [.assignees[].login]}']);
    expect(JSON.parse(rest.stdout)).toEqual({ title: 'Renamed', body: 'new body', assignees: ['mona'] });
    const status = await gh(['issue', 'status', ...R()]);
    ok(status);
    expect(status.stdout).toMatch(/Issues assigned to you\n\s+#?1\s+OPEN\s+Renamed/);
    const unknown = await gh(['issue', 'edit', '1', ...R(), '--add-label', 'no-such-label']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/'no-such-label' not found/);
  });

  it('gh issue close (and --reason "not planned"), gh issue reopen: REST sees the state and its reason', async () => {
    const closed = await gh(['issue', 'close', '1', ...R()]);
    ok(closed);
    expect(closed.stderr).toMatch(/Closed issue #1 \(Filed with gh\)/);
    expect(await restIssue(1)).toMatchObject({ state: 'closed', state_reason: 'completed' });
    const again = await gh(['issue', 'close', '1', ...R()]);
    expect(again.stderr).toMatch(/Issue #1 \(Filed with gh\) is already closed/);
    ok(await gh(['issue', 'reopen', '1', ...R()]));
    expect(await restIssue(1)).toMatchObject({ state: 'open', state_reason: 'reopened' });
    ok(await gh(['issue', 'close', '1', ...R(), '--reason', 'not planned']));
    expect(await restIssue(1)).toMatchObject({ state: 'closed', state_reason: 'not_planned' });
  });

  it('a number that names nothing: gh prints the service’s NOT_FOUND message and exits 1', async () => {
    for (const cmd of [['view'], ['close'], ['comment', '--body', 'x'], ['edit', '--add-label', 'bug']]) {
      const r = await gh(['issue', cmd[0]!, '99', ...R(), ...cmd.slice(1)]);
      expect(r.code, cmd[0]).toBe(1);
      expect(r.stderr, cmd[0]).toMatch(/Could not resolve to an issue or pull request with the number of 99\./);
    }
  });
});

describe('many in a row', () => {
  it('an agent’s 130 comments: gh issue view --comments and --json comments show every one (gh asks for the comments past 100 with their endCursor)', async () => {
    await emu.limits({ contentCreatingPerMinute: 1000, contentCreatingPerHour: 1000 });
    const dispatcher = new Agent({ connect: { ca: emu.tls!.ca } });
    try {
      for (let i = 0; i < 130; i++) {
        const r = await fetch(`${emu.urls.hosting.api}/repos/mona/hello-world/issues/1/comments`, {
          method: 'POST',
          headers: { authorization: `token ${emu.fixtures.hosting.personalToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ body: `comment ${i}` }),
          dispatcher,
        });
        expect(r.status).toBe(201);
      }
    } finally {
      await dispatcher.close();
    }
    const view = await gh(['issue', 'view', '1', ...R(), '--comments']);
    ok(view);
    const shown = view.stdout.split('\n').filter((l) => l.startsWith('comment '));
    expect(shown).toEqual(Array.from({ length: 130 }, (_, i) => `comment ${i}`));
    const json = await gh(['issue', 'view', '1', ...R(), '--json', 'comments', '--jq', '[.comments[].body] | length']);
    expect(json.stdout.trim()).toBe('130');
  });
});

describe('gh issue list --label (the query API’s search)', () => {
  it('one label, two labels (all of them), none matching, --state closed, --search words; newest first; the table too', async () => {
    ok(await gh(['issue', 'create', ...R(), '--title', 'Second', '--body', 'mentions a widget', '--label', 'bug']));
    ok(await gh(['issue', 'create', ...R(), '--title', 'Third', '--body', 'x', '--label', 'bug,documentation']));
    ok(await gh(['issue', 'edit', '1', ...R(), '--add-label', 'bug']));
    const list = async (...args: string[]) => {
      const r = await gh(['issue', 'list', ...R(), ...args, '--json', 'number']);
      ok(r);
      return (JSON.parse(r.stdout) as Array<{ number: number }>).map((i) => i.number);
    };
    expect(await list('--label', 'bug')).toEqual([3, 2, 1]);
    expect(await list('--label', 'bug', '--label', 'documentation')).toEqual([3]);
    expect(await list('--label', 'wontfix')).toEqual([]);
    expect(await list('--label', 'bug', '--limit', '2')).toEqual([3, 2]);
    expect(await list('--search', 'widget')).toEqual([2]);
    expect(await list('--search', 'label:bug sort:created-asc')).toEqual([1, 2, 3]);
    ok(await gh(['issue', 'close', '2', ...R()]));
    expect(await list('--label', 'bug')).toEqual([3, 1]);
    expect(await list('--label', 'bug', '--state', 'closed')).toEqual([2]);
    expect(await list('--label', 'bug', '--state', 'all')).toEqual([3, 2, 1]);
    const table = await gh(['issue', 'list', ...R(), '--label', 'documentation']);
    ok(table);
    expect(table.stdout).toMatch(/^3\tOPEN\tThird\tbug, documentation\t/);
  });
});

describe('gh search issues (REST GET /search/issues)', () => {
  it('finds by words and qualifiers (--json, and the table sorted by --sort/--order), and shows the service’s refusal', async () => {
    ok(await gh(['issue', 'create', ...R(), '--title', 'A crash on start', '--body', 'crashes', '--label', 'bug']));
    ok(await gh(['issue', 'create', ...R(), '--title', 'Another crash', '--body', 'again']));
    const json = await gh(['search', 'issues', 'crash', '--repo', 'mona/hello-world', '--json', 'number,title,state,labels,repository,author,url']);
    ok(json);
    const found = JSON.parse(json.stdout) as Array<Record<string, unknown>>;
    expect(found.map((i) => i.title).sort()).toEqual(['A crash on start', 'Another crash']);
    expect(found.find((i) => i.number === 2)).toEqual({
      number: 2,
      title: 'A crash on start',
      state: 'open',
      labels: [expect.objectContaining({ name: 'bug' })],
      repository: { name: 'hello-world', nameWithOwner: 'mona/hello-world' },
      author: expect.objectContaining({ login: 'mona' }),
      url: `https://${host}/mona/hello-world/issues/2`,
    });
    const labelled = await gh(['search', 'issues', '--label', 'bug', '--owner', 'mona', '--state', 'open', '--json', 'number']);
    ok(labelled);
    expect(JSON.parse(labelled.stdout)).toEqual([{ number: 2 }]);
    const table = await gh(['search', 'issues', 'crash', '--repo', 'mona/hello-world', '--sort', 'created', '--order', 'asc']);
    ok(table);
    expect(table.stdout).toMatch(/mona\/hello-world\t#?2\t.*A crash on start[^\n]*\n.*mona\/hello-world\t#?3\t.*Another crash/);
    const refused = await gh(['search', 'issues', '--', ...'a OR b OR c OR d OR e OR f OR g'.split(' ')]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/More than five AND \/ OR \/ NOT operators were used/);
  });
});

describe('REST issue writes check the token’s scopes (through gh api)', () => {
  const tokenWith = async (scopes: string[]) =>
    ((await emu.admin('hosting', 'issue-token', { login: 'mona', clientId: emu.fixtures.hosting.app.clientId, scopes })) as { access_token: string })
      .access_token;

  it('without repo or public_repo: 404 Not Found and nothing written; public_repo writes to a public repository only; reads need neither', async () => {
    const narrow = await tokenWith(['read:org']);
    const withToken = (token: string, ...args: string[]) =>
      runGh(['api', '--hostname', host, '-i', ...args], { home: join(home, 'env'), caFile: emu.tls!.caFile, token });
    const create = await withToken(narrow, '-X', 'POST', 'repos/mona/hello-world/issues', '-f', 'title=refused');
    expect(create.code).toBe(1);
    expect(create.stdout).toMatch(/^HTTP\/1\.1 404 Not Found/);
    expect(create.stdout).toMatch(/^X-Accepted-Oauth-Scopes: public_repo, repo\r?$/im);
    expect(create.stdout).toMatch(/^X-Oauth-Scopes: read:org\r?$/im);
    expect(create.stderr).toMatch(/Not Found \(HTTP 404\)/);
    for (const write of [
      ['-X', 'POST', 'repos/mona/hello-world/issues/1/comments', '-f', 'body=refused'],
      ['-X', 'PATCH', 'repos/mona/hello-world/issues/1', '-f', 'state=closed'],
      ['-X', 'POST', 'repos/mona/hello-world/issues/1/labels', '-f', 'labels[]=bug'],
      ['-X', 'POST', 'repos/mona/hello-world/issues/1/reactions', '-f', 'content=heart'],
      ['-X', 'POST', 'repos/mona/hello-world/labels', '-f', 'name=refused'],
      ['-X', 'PUT', 'user/starred/mona/hello-world'],
    ])
      expect((await withToken(narrow, ...write)).stdout, write.join(' ')).toMatch(/^HTTP\/1\.1 404 Not Found/);
    // Reads need no scope; nothing was written.
    const read = await withToken(narrow, 'repos/mona/hello-world/issues/1');
    expect(read.code, read.stderr).toBe(0);
    expect(await restIssue(1)).toEqual({ state: 'open', state_reason: null, labels: [], comments: 0 });
    // public_repo: a public repository's issues, not a private one's (mona/lanyard-notes).
    const pub = await tokenWith(['public_repo']);
    expect((await withToken(pub, '-X', 'POST', 'repos/mona/hello-world/issues/1/comments', '-f', 'body=allowed')).stdout).toMatch(/^HTTP\/1\.1 201 Created/);
    expect((await withToken(pub, '-X', 'POST', 'repos/mona/lanyard-notes/issues', '-f', 'title=private')).stdout).toMatch(/^HTTP\/1\.1 404 Not Found/);
    const full = await tokenWith(['repo']);
    expect((await withToken(full, '-X', 'POST', 'repos/mona/lanyard-notes/issues', '-f', 'title=private')).stdout).toMatch(/^HTTP\/1\.1 201 Created/);
  });
});
