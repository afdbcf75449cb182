/**
 * Issue events over REST, as the published description has them: an issue's
 * (`GET …/issues/{number}/events`, oldest first), a repository's
 * (`GET …/issues/events`, newest first, each with its issue) and one
 * (`GET …/issues/events/{id}`), paged. Each says who did what and when, and
 * what it named as it was then (`label`, `assignee` and `assigner`,
 * `milestone`, `rename`, `lock_reason`, `state_reason`).
 */
import { Hosting } from '../../../../shared/constants.js';
import { HttpError, type Router } from '../../../router.js';
import { paged } from '../paging.js';
import { apiTime, nodeIdOf } from '../repository.js';
import { type IssueApi, idParam, issueOf, R, repoOf } from './common.js';
import type { IssueEventRecord } from './event-store.js';
import { type IssueJsonContext, issueJson } from './json.js';
import { repoKey } from './store.js';

export function issueEventJson(c: IssueJsonContext, e: IssueEventRecord, o: { withIssue?: boolean } = {}): Record<string, unknown> {
  const issue = c.store.issues.get(e.issueId);
  const j: Record<string, unknown> = {
    id: e.id,
    node_id: nodeIdOf('IssueEvent', e.id),
    url: `${c.base}${Hosting.apiPathPrefix}/repos/${c.fullName(e.repo)}/issues/events/${e.id}`,
    actor: c.user(e.actor),
    event: e.event,
    commit_id: null,
    commit_url: null,
    created_at: apiTime(e.createdAt),
    performed_via_github_app: null,
  };
  if (e.label) j.label = e.label;
  if (e.assignee !== undefined) Object.assign(j, { assignee: c.user(e.assignee), assigner: c.user(e.actor) });
  if (e.milestone) j.milestone = e.milestone;
  if (e.rename) j.rename = e.rename;
  if (e.lockReason !== undefined) j.lock_reason = e.lockReason;
  if (e.stateReason !== undefined) j.state_reason = e.stateReason;
  if (o.withIssue && issue) j.issue = issueJson(c, issue);
  return j;
}

/** Registered before `…/issues/{number}`, which would take `events` for a number. */
export function registerEventRoutes(router: Router, api: IssueApi): void {
  router.get(`${R}/issues/events`, (req, res) => {
    const all = [...api.store.events.ofRepo(repoKey(repoOf(api, req)))].reverse();
    const { items, headers } = paged(req, api.baseUrl(), all);
    res.json(
      200,
      items.map((e) => issueEventJson(api.json, e, { withIssue: true })),
      headers,
    );
  });
  router.get(`${R}/issues/events/:id`, (req, res) => {
    const r = repoOf(api, req);
    const e = api.store.events.byId.get(idParam(req.params.id));
    if (!e || e.repo !== repoKey(r)) throw new HttpError(404, 'Not Found');
    res.json(200, issueEventJson(api.json, e, { withIssue: true }));
  });
  router.get(`${R}/issues/:number/events`, (req, res) => {
    const i = issueOf(api, req, repoOf(api, req));
    const { items, headers } = paged(req, api.baseUrl(), api.store.events.ofIssue(i.id));
    res.json(
      200,
      items.map((e) => issueEventJson(api.json, e)),
      headers,
    );
  });
}
