/**
 * The REST side of issues (`/repos/{owner}/{repo}/issues…`), their comments
 * and reactions (labels: labels.ts), and stars
 * (`/user/starred/{owner}/{repo}`, `/repos/{owner}/{repo}/stargazers`), over
 * the store the query API shares. Writes need a signed-in user who can see
 * the repository; labels, and another's issue, need one who triages it.
 */
import { Hosting } from '../../../../shared/constants.js';
import { HttpError, type EmuRequest, type EmuResponse, type Router } from '../../../router.js';
import { readJsonObject } from '../body.js';
import type { RepoRecord } from '../ratelimit/fixtures.js';
import { paged } from '../paging.js';
import { apiError } from '../errors.js';
import { forbidden, type IssueApi, idParam, invalid, issueOf, R, repoOf, text, writer } from './common.js';
import { commentJson, issueJson, reactionJson } from './json.js';
import { labelIds, registerLabelRoutes } from './labels.js';
import { registerPeopleRoutes } from './people.js';
import { registerEventRoutes } from './events.js';
import { milestoneOfBody, registerMilestoneRoutes } from './milestones.js';
import { canClose, canEdit, canTriage, invalidText } from './rules.js';
import { type IssueRecord, REACTIONS, type ReactionContent, repoKey, type StateReason } from './store.js';

export type { IssueApi } from './common.js';

/** `assignees` of a body (logins; `assignee` alone too): users who exist, else undefined when not given; an unknown login is refused. */
function assigneesOf(api: IssueApi, b: Record<string, unknown>): string[] | undefined | Error {
  const v = Array.isArray(b.assignees) ? b.assignees : typeof b.assignee === 'string' ? [b.assignee] : b.assignee === null ? [] : undefined;
  if (!v) return undefined;
  const logins = v.filter((x): x is string => typeof x === 'string');
  const unknown = logins.find((l) => !api.json.exists(l));
  return unknown ? new Error(unknown) : logins.map((l) => api.json.login(l)!);
}

/** The issues a listing's `milestone` keeps: a milestone's number, `*` (any), `none`; not given, all. */
function milestoneFilter(api: IssueApi, repo: string, v: string | null): (i: IssueRecord) => boolean {
  if (v === null) return () => true;
  if (v === '*') return (i) => i.milestone !== null;
  if (v === 'none') return (i) => i.milestone === null;
  const m = api.store.milestones.numbered(repo, idParam(v));
  return (i) => !!m && i.milestone === m.id;
}

export function registerIssueRoutes(router: Router, api: IssueApi): void {
  registerEventRoutes(router, api);
  registerIssueList(router, api);
  registerIssueEdits(router, api);
  registerComments(router, api);
  registerLabelRoutes(router, api);
  registerReactions(router, api);
  registerStars(router, api);
  registerPeopleRoutes(router, api);
  registerMilestoneRoutes(router, api);
}

function registerIssueList(router: Router, api: IssueApi): void {
  router.get(`${R}/issues`, (req, res) => {
    const r = repoOf(api, req);
    const state = req.query.get('state') ?? 'open';
    const labels = (req.query.get('labels') ?? '').split(',').filter(Boolean);
    const asc = req.query.get('direction') === 'asc';
    const all = api.store
      .issuesOf(repoKey(r))
      .filter((i) => state === 'all' || i.state === state)
      .filter((i) => labels.every((n) => i.labels.some((id) => api.store.labels.get(id)?.name.toLowerCase() === n.toLowerCase())))
      .filter((i) => !req.query.get('creator') || i.author === req.query.get('creator'))
      .filter(milestoneFilter(api, repoKey(r), req.query.get('milestone')))
      .sort((a, b) => (asc ? a.id - b.id : b.id - a.id));
    const { items, headers } = paged(req, api.baseUrl(), all);
    res.json(
      200,
      items.map((i) => issueJson(api.json, i)),
      headers,
    );
  });

  router.post(`${R}/issues`, async (req, res) => {
    const r = repoOf(api, req);
    const login = writer(api, req, res, r);
    if (!login) return;
    const b = await readJsonObject(req);
    const title = text(b.title);
    if (!title) return invalid(res, 'Issue', 'title', 'missing_field');
    const body = text(b.body) ?? null;
    const why = invalidText({ title, body });
    if (why) return invalid(res, 'Issue', why.startsWith('Title') ? 'title' : 'body', 'custom', why);
    // Labels from a user without push access are silently dropped (the published description says so).
    const triage = canTriage(login, r);
    const assignees = assigneesOf(api, b);
    if (assignees instanceof Error) return invalid(res, 'Issue', 'assignees', 'invalid', assignees.message);
    const labels = triage ? labelIds(api, repoKey(r), b.labels) : undefined;
    // The milestone too (from one who does not push it is silently dropped, as the description says).
    const milestone = triage ? milestoneOfBody(api, repoKey(r), b.milestone) : undefined;
    if (milestone instanceof Error) return invalid(res, 'Issue', 'milestone', 'invalid', undefined, b.milestone);
    const i = api.store.createIssue(repoKey(r), login, { title, body, labels, assignees: triage ? assignees : undefined, milestone });
    res.json(201, issueJson(api.json, i), { location: `${api.baseUrl()}${Hosting.apiPathPrefix}/repos/${r.owner}/${r.name}/issues/${i.number}` });
  });

  router.get(`${R}/issues/:number`, (req, res) => {
    const r = repoOf(api, req);
    res.json(200, issueJson(api.json, issueOf(api, req, r)));
  });
}

function registerIssueEdits(router: Router, api: IssueApi): void {
  router.route('PATCH', `${R}/issues/:number`, async (req, res) => {
    const r = repoOf(api, req);
    const i = issueOf(api, req, r);
    const login = writer(api, req, res, r);
    if (!login) return;
    if (!canEdit(login, i.author, r)) return forbidden(res);
    const b = await readJsonObject(req);
    const title = text(b.title);
    const body = text(b.body);
    const why = invalidText({ title, body });
    if (why) return invalid(res, 'Issue', why.startsWith('Title') ? 'title' : 'body', 'custom', why);
    if (b.state !== undefined && b.state !== 'open' && b.state !== 'closed') return invalid(res, 'Issue', 'state', 'invalid');
    const reason = typeof b.state_reason === 'string' ? (b.state_reason as StateReason) : null;
    if (reason && !['completed', 'not_planned', 'duplicate', 'reopened'].includes(reason)) return invalid(res, 'Issue', 'state_reason', 'invalid');
    const triage = canTriage(login, r);
    const assignees = assigneesOf(api, b);
    if (assignees instanceof Error) return invalid(res, 'Issue', 'assignees', 'invalid', assignees.message);
    const labels = triage ? labelIds(api, repoKey(r), b.labels) : undefined;
    const milestone = triage ? milestoneOfBody(api, repoKey(r), b.milestone) : undefined;
    if (milestone instanceof Error) return invalid(res, 'Issue', 'milestone', 'invalid', undefined, b.milestone);
    api.store.edit(i, login, { title: title ?? undefined, body, labels, assignees: triage ? assignees : undefined, milestone });
    if (b.state === 'closed' || b.state === 'open') {
      if (!canClose(login, i, r)) return forbidden(res);
      api.store.setState(i, b.state, login, b.state === 'closed' ? reason : null);
    }
    res.json(200, issueJson(api.json, i));
  });
}

function registerComments(router: Router, api: IssueApi): void {
  const commentOf = (req: EmuRequest, r: RepoRecord) => {
    const c = api.store.comments.get(idParam(req.params.id));
    if (!c || api.store.issues.get(c.issueId)?.repo !== repoKey(r)) throw new HttpError(404, 'Not Found');
    return c;
  };
  router.get(`${R}/issues/comments/:id`, (req, res) => res.json(200, commentJson(api.json, commentOf(req, repoOf(api, req)))));
  router.route('PATCH', `${R}/issues/comments/:id`, async (req, res) => {
    const r = repoOf(api, req);
    const c = commentOf(req, r);
    const login = writer(api, req, res, r);
    if (!login) return;
    if (!canEdit(login, c.author, r)) return forbidden(res);
    const body = text((await readJsonObject(req)).body);
    const why = invalidText({ body }, { bodyRequired: true });
    if (why || !body) return invalid(res, 'IssueComment', 'body', why ? 'custom' : 'missing_field', why);
    api.store.editComment(c, body);
    res.json(200, commentJson(api.json, c));
  });
  router.delete(`${R}/issues/comments/:id`, (req, res) => {
    const r = repoOf(api, req);
    const c = commentOf(req, r);
    const login = writer(api, req, res, r);
    if (!login) return;
    if (!canEdit(login, c.author, r)) return forbidden(res);
    api.store.deleteComment(c.id);
    res.empty(204);
  });
  router.get(`${R}/issues/:number/comments`, (req, res) => {
    const i = issueOf(api, req, repoOf(api, req));
    const { items, headers } = paged(req, api.baseUrl(), api.store.commentsOf(i.id));
    res.json(
      200,
      items.map((c) => commentJson(api.json, c)),
      headers,
    );
  });
  router.post(`${R}/issues/:number/comments`, async (req, res) => {
    const r = repoOf(api, req);
    const i = issueOf(api, req, r);
    const login = writer(api, req, res, r);
    if (!login) return;
    // A locked conversation takes comments only from those who push.
    if (i.locked && !canTriage(login, r)) return forbidden(res, 'Unable to create comment because issue is locked.');
    const body = text((await readJsonObject(req)).body);
    const why = invalidText({ body }, { bodyRequired: true });
    if (why || !body) return invalid(res, 'IssueComment', 'body', why ? 'custom' : 'missing_field', why);
    res.json(201, commentJson(api.json, api.store.addComment(i, login, body)));
  });
}

function registerReactions(router: Router, api: IssueApi): void {
  const subjectOf = (req: EmuRequest): { kind: 'issue' | 'comment'; id: number; r: RepoRecord } => {
    const r = repoOf(api, req);
    if (req.params.number !== undefined) return { kind: 'issue', id: issueOf(api, req, r).id, r };
    const c = api.store.comments.get(idParam(req.params.id));
    if (!c || api.store.issues.get(c.issueId)?.repo !== repoKey(r)) throw new HttpError(404, 'Not Found');
    return { kind: 'comment', id: c.id, r };
  };
  for (const base of [`${R}/issues/:number/reactions`, `${R}/issues/comments/:id/reactions`]) {
    router.get(base, (req, res) => {
      const content = req.query.get('content');
      const { kind, id } = subjectOf(req);
      const all = api.store.reactionsOf({ kind, id }).filter((x) => !content || x.content === content);
      const { items, headers } = paged(req, api.baseUrl(), all);
      res.json(
        200,
        items.map((x) => reactionJson(api.json, x)),
        headers,
      );
    });
    router.post(base, async (req, res) => {
      const { kind, id, r } = subjectOf(req);
      const subject = { kind, id };
      const login = writer(api, req, res, r);
      if (!login) return;
      const content = (await readJsonObject(req)).content;
      if (!REACTIONS.includes(content as ReactionContent)) return invalid(res, 'Reaction', 'content', 'invalid');
      const { reaction, created } = api.store.react(subject, login, content as ReactionContent);
      // The same reaction again is answered 200 with the existing one.
      res.json(created ? 201 : 200, reactionJson(api.json, reaction));
    });
    router.delete(`${base}/:reaction`, (req, res) => {
      const { kind, id, r } = subjectOf(req);
      const subject = { kind, id };
      const login = writer(api, req, res, r);
      if (!login) return;
      const x = api.store.reactions.get(idParam(req.params.reaction));
      if (!x || x.subject.kind !== subject.kind || x.subject.id !== subject.id) throw new HttpError(404, 'Not Found');
      if (x.user !== login) return forbidden(res, 'Resource not accessible by integration');
      api.store.unreact(x);
      res.empty(204);
    });
  }
}

function registerStars(router: Router, api: IssueApi): void {
  const S = `${Hosting.apiPathPrefix}/user/starred/:owner/:repo`;
  const star = (req: EmuRequest, res: EmuResponse, on: boolean | undefined) => {
    const r = repoOf(api, req);
    const login = on === undefined ? api.userOf(req) : writer(api, req, res, r);
    if (!login) return on === undefined ? api.refuseNonUser(req, res) : undefined;
    if (on === undefined) return api.store.starred(login, repoKey(r)) ? res.empty(204) : res.json(404, apiError(404, 'Not Found'));
    if (on) api.store.star(login, repoKey(r));
    else api.store.unstar(login, repoKey(r));
    res.empty(204);
  };
  router.get(S, (req, res) => star(req, res, undefined));
  router.put(S, (req, res) => star(req, res, true));
  router.delete(S, (req, res) => star(req, res, false));
  router.get(`${R}/stargazers`, (req, res) => {
    const r = repoOf(api, req);
    const { items, headers } = paged(req, api.baseUrl(), api.store.stargazersOf(repoKey(r)));
    res.json(
      200,
      items.map((s) => api.json.user(s.login)),
      headers,
    );
  });
}
