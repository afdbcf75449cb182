/**
 * Issues, comments, labels and reactions as the REST API shows them, after
 * the published description (`issue`, `issue-comment`, `label`, `reaction`,
 * `reaction-rollup`) and the fields its examples carry.
 */
import { Hosting } from '../../../../shared/constants.js';
import { apiTime, nodeIdOf } from '../repository.js';
import { type CommentRecord, type IssueRecord, type IssueStore, type LabelRecord, REACTIONS, type ReactionRecord } from './store.js';
import { associationOf } from './rules.js';
import type { MilestoneRecord } from './milestone-store.js';

/** What the JSON needs besides the records: the base URL, a user's `simple-user`, the repository's owner. */
export interface IssueJsonContext {
  base: string;
  store: IssueStore;
  user(login: string): Record<string, unknown>;
  /** Whether a user of that login exists (logins match whatever their case, as the service's do). */
  exists(login: string): boolean;
  /** The login as the user has it (`MONA` → `mona`), or undefined when no user has it. */
  login(name: string): string | undefined;
  /** Every user's login. */
  logins(): string[];
  /** The repository's `owner/name` as written (the store keys are lower case). */
  fullName(repoKey: string): string;
  ownerOf(repoKey: string): string;
}

const api = (c: IssueJsonContext, repoKey: string) => `${c.base}${Hosting.apiPathPrefix}/repos/${c.fullName(repoKey)}`;

/** How the author relates to the repository: its owner, or none. */
const association = (c: IssueJsonContext, repoKey: string, login: string) => associationOf({ owner: c.ownerOf(repoKey) }, login);

export function labelJson(c: IssueJsonContext, l: LabelRecord): Record<string, unknown> {
  return {
    id: l.id,
    node_id: nodeIdOf('Label', l.id),
    url: `${api(c, l.repo)}/labels/${encodeURIComponent(l.name)}`,
    name: l.name,
    color: l.color,
    default: l.isDefault,
    description: l.description,
  };
}

/** The counts of each reaction to a subject (`reaction-rollup`). */
function rollup(c: IssueJsonContext, url: string, subject: ReactionRecord['subject']): Record<string, unknown> {
  const all = c.store.reactionsOf(subject);
  const counts = Object.fromEntries(REACTIONS.map((r) => [r, all.filter((x) => x.content === r).length]));
  return { url: `${url}/reactions`, total_count: all.length, ...counts };
}

export function issueJson(c: IssueJsonContext, i: IssueRecord): Record<string, unknown> {
  const repo = api(c, i.repo);
  const url = `${repo}/issues/${i.number}`;
  return {
    url,
    repository_url: repo,
    labels_url: `${url}/labels{/name}`,
    comments_url: `${url}/comments`,
    events_url: `${url}/events`,
    html_url: `${c.base}/${c.fullName(i.repo)}/issues/${i.number}`,
    id: i.id,
    node_id: nodeIdOf('Issue', i.id),
    number: i.number,
    title: i.title,
    user: c.user(i.author),
    labels: i.labels.map((id) => c.store.labels.get(id)).flatMap((l) => (l ? [labelJson(c, l)] : [])),
    state: i.state,
    locked: i.locked,
    assignee: i.assignees.length ? c.user(i.assignees[0]!) : null,
    assignees: i.assignees.map((a) => c.user(a)),
    milestone: i.milestone === null ? null : milestoneJson(c, c.store.milestones.byId.get(i.milestone)),
    comments: c.store.commentsOf(i.id).length,
    created_at: apiTime(i.createdAt),
    updated_at: apiTime(i.updatedAt),
    closed_at: i.closedAt === null ? null : apiTime(i.closedAt),
    author_association: association(c, i.repo, i.author),
    active_lock_reason: i.lockReason,
    body: i.body,
    closed_by: i.closedBy ? c.user(i.closedBy) : null,
    reactions: rollup(c, url, { kind: 'issue', id: i.id }),
    timeline_url: `${url}/timeline`,
    performed_via_github_app: null,
    state_reason: i.stateReason,
  };
}

export function commentJson(c: IssueJsonContext, m: CommentRecord): Record<string, unknown> {
  const issue = c.store.issues.get(m.issueId)!;
  const repo = api(c, issue.repo);
  const url = `${repo}/issues/comments/${m.id}`;
  return {
    url,
    html_url: `${c.base}/${c.fullName(issue.repo)}/issues/${issue.number}#issuecomment-${m.id}`,
    issue_url: `${repo}/issues/${issue.number}`,
    id: m.id,
    node_id: nodeIdOf('IssueComment', m.id),
    user: c.user(m.author),
    created_at: apiTime(m.createdAt),
    updated_at: apiTime(m.updatedAt),
    author_association: association(c, issue.repo, m.author),
    body: m.body,
    reactions: rollup(c, url, { kind: 'comment', id: m.id }),
    performed_via_github_app: null,
  };
}

export function reactionJson(c: IssueJsonContext, r: ReactionRecord): Record<string, unknown> {
  return { id: r.id, node_id: nodeIdOf('Reaction', r.id), user: c.user(r.user), content: r.content, created_at: apiTime(r.createdAt) };
}

/** `milestone`: its URLs, counts of its open and closed issues, and times (undefined: none, null). */
export function milestoneJson(c: IssueJsonContext, m: MilestoneRecord | undefined): Record<string, unknown> | null {
  if (!m) return null;
  const url = `${api(c, m.repo)}/milestones/${m.number}`;
  const { open, closed } = c.store.milestones.counts(m.id);
  const time = (ms: number | null) => (ms === null ? null : apiTime(ms));
  return {
    url,
    html_url: `${c.base}/${c.fullName(m.repo)}/milestone/${m.number}`,
    labels_url: `${url}/labels`,
    id: m.id,
    node_id: nodeIdOf('Milestone', m.id),
    number: m.number,
    title: m.title,
    description: m.description,
    creator: c.user(m.creator),
    open_issues: open,
    closed_issues: closed,
    state: m.state,
    created_at: apiTime(m.createdAt),
    updated_at: apiTime(m.updatedAt),
    due_on: time(m.dueOn),
    closed_at: time(m.closedAt),
  };
}
