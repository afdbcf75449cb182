/**
 * The hosting emulator's issue lock, assignees, `/meta`, the caller's emails,
 * another user's repositories and the caller's profile by scope, through
 * Octokit (the code host's own JavaScript client, an independent reading of
 * the same API): the calls scripts make, what they get back, and the
 * refusals (a lock or a comment on a locked issue from one who does not
 * push, emails without the `user:email` scope).
 */
import { describe, expect, it } from 'vitest';
import { useInProcessEmulator } from '../../e2e/in-process-emulator.js';
import { hostingOctokit } from './hosting-octokit.js';

const ref = useInProcessEmulator({ port: 0 });
const owner = 'mona';
const repo = 'hello-world';
const { rest, tokenWith } = hostingOctokit(ref);
const logins = (users: Array<{ login: string }> | null | undefined) => (users ?? []).map((u) => u.login);

describe('an issue’s lock', () => {
  it('lock (with and without a reason) and unlock; one who does not push may neither lock nor comment on a locked issue', async () => {
    const o = rest();
    const hubot = rest(await tokenWith('hubot', ['repo']));
    const issue_number = (await o.rest.issues.create({ owner, repo, title: 'lock me' })).data.number;
    expect((await o.rest.issues.lock({ owner, repo, issue_number, lock_reason: 'off-topic' })).status).toBe(204);
    expect((await o.rest.issues.get({ owner, repo, issue_number })).data).toMatchObject({ locked: true, active_lock_reason: 'off-topic' });
    await expect(hubot.rest.issues.createComment({ owner, repo, issue_number, body: 'hi' })).rejects.toMatchObject({
      status: 403,
      message: expect.stringContaining('Unable to create comment because issue is locked.'),
    });
    // The query API refuses the same comment (one store).
    const { node_id } = (await o.rest.issues.get({ owner, repo, issue_number })).data;
    const addComment = 'mutation($id: ID!) { addComment(input: {subjectId: $id, body: "hi"}) { subject { id } } }';
    await expect(hubot.graphql(addComment, { id: node_id })).rejects.toMatchObject({
      errors: [{ type: 'FORBIDDEN', message: 'Unable to create comment because issue is locked.' }],
    });
    await expect(hubot.rest.issues.unlock({ owner, repo, issue_number })).rejects.toMatchObject({ status: 403 });
    expect((await o.rest.issues.unlock({ owner, repo, issue_number })).status).toBe(204);
    expect((await hubot.rest.issues.createComment({ owner, repo, issue_number, body: 'hi' })).status).toBe(201);
    await expect(o.rest.issues.lock({ owner, repo, issue_number: 9999 })).rejects.toMatchObject({ status: 404 });
    // Octokit sends no body for a lock without a reason.
    expect((await o.rest.issues.lock({ owner, repo, issue_number })).status).toBe(204);
    expect((await o.rest.issues.get({ owner, repo, issue_number })).data).toMatchObject({ locked: true, active_lock_reason: null });
  });
});

describe('assignees', () => {
  it('listAssignees, checkUserCanBeAssigned, addAssignees and removeAssignees', async () => {
    const o = rest();
    const issue_number = (await o.rest.issues.create({ owner, repo, title: 'assign me' })).data.number;
    expect(logins((await o.rest.issues.listAssignees({ owner, repo })).data)).toEqual(expect.arrayContaining(['mona', 'hubot']));
    expect((await o.rest.issues.checkUserCanBeAssigned({ owner, repo, assignee: 'hubot' })).status).toBe(204);
    await expect(o.rest.issues.checkUserCanBeAssigned({ owner, repo, assignee: 'nobody-here' })).rejects.toMatchObject({ status: 404 });
    const added = await o.rest.issues.addAssignees({ owner, repo, issue_number, assignees: ['hubot', 'mona'] });
    expect([added.status, logins(added.data.assignees)]).toEqual([201, ['hubot', 'mona']]);
    const removed = await o.rest.issues.removeAssignees({ owner, repo, issue_number, assignees: ['mona'] });
    expect([removed.status, logins(removed.data.assignees), removed.data.assignee?.login]).toEqual([200, ['hubot'], 'hubot']);
    expect((await o.rest.issues.checkUserCanBeAssignedToIssue({ owner, repo, issue_number, assignee: 'mona' })).status).toBe(204);
  });

  it('logins match whatever their case, as the service matches them: stored as the user has it, never twice', async () => {
    const o = rest();
    const issue_number = (await o.rest.issues.create({ owner, repo, title: 'case', assignees: ['HUBOT'] })).data.number;
    expect(logins((await o.rest.issues.get({ owner, repo, issue_number })).data.assignees)).toEqual(['hubot']);
    expect((await o.rest.issues.checkUserCanBeAssigned({ owner, repo, assignee: 'Mona' })).status).toBe(204);
    const added = await o.rest.issues.addAssignees({ owner, repo, issue_number, assignees: ['Mona', 'hubot'] });
    expect(logins(added.data.assignees)).toEqual(['hubot', 'mona']);
    const removed = await o.rest.issues.removeAssignees({ owner, repo, issue_number, assignees: ['MONA'] });
    expect(logins(removed.data.assignees)).toEqual(['hubot']);
  });
});

describe('the service, the caller and other users', () => {
  it('meta.get, listEmailsForAuthenticatedUser (404 without user:email), listForUser, and getAuthenticated by scope', async () => {
    expect((await rest().rest.meta.get()).data).toMatchObject({ verifiable_password_authentication: false, web: ['127.0.0.1/32'] });
    await expect(rest().rest.users.listEmailsForAuthenticatedUser()).rejects.toMatchObject({ status: 404 });
    const emails = (await rest(await tokenWith('mona', ['user:email'])).rest.users.listEmailsForAuthenticatedUser()).data;
    expect(emails.map((e) => [e.email, e.primary])).toEqual([
      ['mona@example.com', true],
      [expect.stringMatching(/^1\+mona@users\.noreply\./), false],
    ]);
    const mine = (await rest().rest.repos.listForUser({ username: 'mona', sort: 'full_name' })).data;
    expect(mine.map((r) => [r.full_name, r.private])).toEqual([['mona/hello-world', false]]);
    await expect(rest().rest.repos.listForUser({ username: 'nobody-here' })).rejects.toMatchObject({ status: 404 });
    expect((await rest().rest.users.getAuthenticated()).data).not.toHaveProperty('plan');
    expect((await rest(await tokenWith('mona', ['user'])).rest.users.getAuthenticated()).data).toMatchObject({ plan: { name: 'free' } });
  });
});

describe('milestones', () => {
  it('create, list (state, sort), read, update, delete; an issue given one on create and update, listed by it, and refusals', async () => {
    const o = rest();
    const due = '2030-01-02T03:04:05Z';
    const v1 = (await o.rest.issues.createMilestone({ owner, repo, title: 'v1', description: 'first', due_on: due })).data;
    expect(v1).toMatchObject({ number: 1, title: 'v1', state: 'open', description: 'first', due_on: due, open_issues: 0, creator: { login: 'mona' } });
    const v2 = (await o.rest.issues.createMilestone({ owner, repo, title: 'v2' })).data;
    await expect(o.rest.issues.createMilestone({ owner, repo, title: 'v1' })).rejects.toMatchObject({
      status: 422,
      response: { data: { message: 'Validation Failed', errors: [{ resource: 'Milestone', field: 'title', code: 'already_exists' }] } },
    });
    const issue = (await o.rest.issues.create({ owner, repo, title: 'for v1', milestone: v1.number })).data;
    expect(issue.milestone).toMatchObject({ number: 1, title: 'v1', open_issues: 1, closed_issues: 0 });
    await o.rest.issues.update({ owner, repo, issue_number: issue.number, state: 'closed' });
    expect((await o.rest.issues.getMilestone({ owner, repo, milestone_number: 1 })).data).toMatchObject({ open_issues: 0, closed_issues: 1 });
    const listed = async (milestone: string) =>
      (await o.rest.issues.listForRepo({ owner, repo, state: 'all', milestone })).data.map((i) => i.number).includes(issue.number);
    expect([await listed('1'), await listed('*'), await listed('none'), await listed(String(v2.number))]).toEqual([true, true, false, false]);
    await expect(o.rest.issues.update({ owner, repo, issue_number: issue.number, milestone: 99 })).rejects.toMatchObject({
      status: 422,
      response: { data: { errors: [{ value: 99, resource: 'Issue', field: 'milestone', code: 'invalid' }] } },
    });
    expect((await o.rest.issues.update({ owner, repo, issue_number: issue.number, milestone: null })).data.milestone).toBeNull();
    await o.rest.issues.update({ owner, repo, issue_number: issue.number, milestone: v2.number });
    const closed = (await o.rest.issues.updateMilestone({ owner, repo, milestone_number: v2.number, state: 'closed', title: 'v2.0' })).data;
    expect(closed).toMatchObject({ state: 'closed', title: 'v2.0', closed_at: expect.any(String) });
    const titles = async (q: { state?: 'open' | 'closed' | 'all'; sort?: 'due_on' | 'completeness'; direction?: 'asc' | 'desc' }) =>
      (await o.rest.issues.listMilestones({ owner, repo, ...q })).data.map((m) => m.title);
    expect([await titles({}), await titles({ state: 'closed' }), await titles({ state: 'all' })]).toEqual([['v1'], ['v2.0'], ['v1', 'v2.0']]);
    expect(await titles({ state: 'all', sort: 'completeness', direction: 'desc' })).toEqual(['v2.0', 'v1']);
    const hubot = rest(await tokenWith('hubot', ['repo']));
    await expect(hubot.rest.issues.createMilestone({ owner, repo, title: 'theirs' })).rejects.toMatchObject({ status: 403 });
    // From one who does not push, the milestone of a new issue is silently dropped.
    expect((await hubot.rest.issues.create({ owner, repo, title: 'mine', milestone: v1.number })).data.milestone).toBeNull();
    expect((await o.rest.issues.deleteMilestone({ owner, repo, milestone_number: v2.number })).status).toBe(204);
    expect((await o.rest.issues.get({ owner, repo, issue_number: issue.number })).data.milestone).toBeNull();
    await expect(o.rest.issues.getMilestone({ owner, repo, milestone_number: v2.number })).rejects.toMatchObject({ status: 404 });
    // A new one does not take the deleted one's number.
    expect((await o.rest.issues.createMilestone({ owner, repo, title: 'v3' })).data.number).toBe(3);
  });
});

describe('issue events', () => {
  it('listEvents, listEventsForRepo and getEvent say who did what: labels, assignees, milestone, title, lock, close and reopen', async () => {
    const o = rest();
    const hubot = rest(await tokenWith('hubot', ['repo']));
    const ms = (await o.rest.issues.createMilestone({ owner, repo, title: 'events-ms' })).data;
    const issue_number = (await o.rest.issues.create({ owner, repo, title: 'first', labels: ['bug'], assignees: ['hubot'] })).data.number;
    await o.rest.issues.update({ owner, repo, issue_number, title: 'second', milestone: ms.number });
    await o.rest.issues.removeLabel({ owner, repo, issue_number, name: 'bug' });
    await o.rest.issues.removeAssignees({ owner, repo, issue_number, assignees: ['hubot'] });
    await o.rest.issues.lock({ owner, repo, issue_number, lock_reason: 'resolved' });
    await o.rest.issues.unlock({ owner, repo, issue_number });
    await hubot.rest.issues.createComment({ owner, repo, issue_number, body: 'comments are no events' });
    await o.rest.issues.update({ owner, repo, issue_number, state: 'closed', state_reason: 'not_planned' });
    await o.rest.issues.update({ owner, repo, issue_number, state: 'open' });
    const events = (await o.rest.issues.listEvents({ owner, repo, issue_number })).data;
    expect(events.map((e) => e.event)).toEqual([
      'labeled',
      'assigned',
      'renamed',
      'milestoned',
      'unlabeled',
      'unassigned',
      'locked',
      'unlocked',
      'closed',
      'reopened',
    ]);
    expect(events.every((e) => e.actor?.login === 'mona')).toBe(true);
    expect(events[0]).toMatchObject({ label: { name: 'bug', color: 'd73a4a' }, commit_id: null });
    expect(events[1]).toMatchObject({ assignee: { login: 'hubot' }, assigner: { login: 'mona' } });
    expect(events[2]).toMatchObject({ rename: { from: 'first', to: 'second' } });
    expect(events[3]).toMatchObject({ milestone: { title: 'events-ms' } });
    expect(events[6]).toMatchObject({ lock_reason: 'resolved' });
    expect(events[8]).toMatchObject({ state_reason: 'not_planned' });
    const repoEvents = (await o.rest.issues.listEventsForRepo({ owner, repo, per_page: 2 })).data;
    expect(repoEvents.map((e) => [e.event, e.issue?.number])).toEqual([
      ['reopened', issue_number],
      ['closed', issue_number],
    ]);
    const one = (await o.rest.issues.getEvent({ owner, repo, event_id: events[2]!.id })).data;
    expect(one).toMatchObject({ event: 'renamed', issue: { number: issue_number, title: 'second' } });
    await expect(o.rest.issues.getEvent({ owner, repo, event_id: 99_999 })).rejects.toMatchObject({ status: 404 });
  });
});
