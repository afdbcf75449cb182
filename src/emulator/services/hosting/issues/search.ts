/**
 * Issue search: which issues a search's terms match, and in what order, for
 * the query API's `search(type: ISSUE)` and the REST API's
 * `GET /search/issues` alike (the terms read by ../search-query.ts).
 *
 * Qualifiers: `repo:`, `user:`/`org:`/`owner:`, `is:`/`type:` (issue, pr,
 * open, closed, public, private), `state:`, `label:` (a comma list is any of
 * them; several `label:` are all of them), `no:` (label, assignee,
 * milestone, project), `author:`, `assignee:`, `mentions:`, `commenter:`,
 * `involves:`, `milestone:` and `project:` (the emulator has none: nothing
 * matches), `reason:`, `created:`/`updated:`/`closed:` (`>=2026-01-01`,
 * `2026-01-01..2026-02-01`, a day), `in:` (title, body, comments) and
 * `sort:` (created, updated, comments, reactions, reactions-+1 and the
 * other kinds, interactions; `-asc`/`-desc`); a negated qualifier is
 * negated, an unknown qualifier is a word, and every word must be a whole
 * word (or phrase, in quotes) of the fields `in:` names (title, body and
 * comments by default), case ignored. Without a sort the issues whose
 * titles have more of the words come first, then the newest (the service
 * ranks by its own relevance).
 */
import type { RepoRecord } from '../ratelimit/fixtures.js';
import { dateMatches, type Term, wordPattern } from '../search-query.js';
import { type IssueRecord, type IssueStore, type ReactionContent, repoKey } from './store.js';

/** Where an issue's words are looked for, and who took part in it. */
interface IssueFacts {
  i: IssueRecord;
  repo: RepoRecord;
  labels: string[];
  comments: Array<{ author: string; body: string }>;
}

const mentions = (text: string, login: string) => new RegExp(`@${login.replace(/[^\w-]/g, '')}(?![\\w-])`, 'i').test(text);

/** Whether one qualifier holds for an issue (before negation). */
function issueQualifier(f: IssueFacts, key: string, v: string): boolean {
  const { i, repo } = f;
  const lv = v.toLowerCase();
  switch (key) {
    case 'repo':
      return repoKey(repo) === lv;
    case 'user':
    case 'org':
    case 'owner':
      return repo.owner.toLowerCase() === lv;
    case 'is':
    case 'type':
    case 'state':
      return lv === 'issue' || lv === 'unlocked' || lv === i.state || (lv === 'public' && !repo.private) || (lv === 'private' && repo.private);
    case 'label':
      return lv.split(',').some((n) => f.labels.includes(n.trim()));
    case 'no':
      return lv === 'label' ? !i.labels.length : lv === 'assignee' ? !i.assignees.length : lv === 'milestone' || lv === 'project';
    case 'author':
      return i.author.toLowerCase() === lv;
    case 'assignee':
      return i.assignees.some((a) => a.toLowerCase() === lv);
    case 'mentions':
      return mentions(`${i.body ?? ''} ${f.comments.map((c) => c.body).join(' ')}`, v);
    case 'commenter':
      return f.comments.some((c) => c.author.toLowerCase() === lv);
    case 'involves':
      return ['author', 'assignee', 'mentions', 'commenter'].some((k) => issueQualifier(f, k, v));
    case 'reason':
      return i.state === 'closed' && (i.stateReason ?? 'completed') === lv.replace(/[\s-]+/g, '_');
    case 'created':
      return dateMatches(i.createdAt, v);
    case 'updated':
      return dateMatches(i.updatedAt, v);
    case 'closed':
      return i.closedAt !== null && dateMatches(i.closedAt, v);
    default:
      // milestone:, project: (the emulator has none); in: and sort: are not filters.
      return key === 'in' || key === 'sort';
  }
}

/** A search's terms prepared once: clauses (any term of one holds, every clause must), word patterns, where words are looked for. */
interface Plan {
  clauses: Term[][];
  patterns: Map<Term, RegExp>;
  within: Set<string>;
  sort: string | undefined;
}

function planOf(terms: readonly Term[]): Plan {
  const clauses: Term[][] = [];
  const anyOf = new Map<string, Term[]>();
  for (const t of terms) {
    // Several `repo:` (or owners) are any of them.
    const group = !t.negated && !t.or && t.key ? (t.key === 'repo' ? 'repo' : /^(user|org|owner)$/.test(t.key) ? 'owner' : undefined) : undefined;
    const last = clauses.at(-1);
    if (t.or && last) last.push(t);
    else if (group && anyOf.has(group)) anyOf.get(group)!.push(t);
    else {
      clauses.push([t]);
      if (group) anyOf.set(group, clauses.at(-1)!);
    }
  }
  return {
    clauses,
    patterns: new Map(terms.filter((t) => !t.key).map((t) => [t, wordPattern(t.value)])),
    within: new Set(terms.filter((t) => t.key === 'in').flatMap((t) => t.value.toLowerCase().split(','))),
    sort: terms.findLast((t) => t.key === 'sort')?.value.toLowerCase(),
  };
}

/** Whether an issue matches every clause of a search. */
function issueMatches(f: IssueFacts, plan: Plan): boolean {
  const { within } = plan;
  let text: string | undefined;
  const fields = () =>
    (text ??= [
      !within.size || within.has('title') ? f.i.title : '',
      !within.size || within.has('body') ? (f.i.body ?? '') : '',
      !within.size || within.has('comments') ? f.comments.map((c) => c.body).join('\n') : '',
    ].join('\n'));
  const holds = (t: Term) => (t.key ? issueQualifier(f, t.key, t.value) : plan.patterns.get(t)!.test(fields())) !== t.negated;
  return plan.clauses.every((c) => c.some(holds));
}

/** The REST `sort` names of reaction counts, as the store names the reactions. */
const REACTION_SORTS: Readonly<Record<string, ReactionContent>> = {
  '+1': '+1',
  '-1': '-1',
  smile: 'laugh',
  thinking_face: 'confused',
  heart: 'heart',
  tada: 'hooray',
};

/** What an issue is ordered by under `sort:` (or REST's `sort`): created (the default), updated, comments, reactions (of one kind), interactions. */
function sortKey(store: IssueStore, field: string): (i: IssueRecord) => number {
  const comments = (i: IssueRecord) => store.commentsOf(i.id).length;
  const reactions = (i: IssueRecord, content?: ReactionContent) =>
    store.reactionsOf({ kind: 'issue', id: i.id }).filter((r) => !content || r.content === content).length;
  if (field === 'updated') return (i) => i.updatedAt;
  if (field === 'comments') return comments;
  if (field === 'interactions') return (i) => comments(i) + reactions(i);
  if (field === 'reactions') return (i) => reactions(i);
  const kind = /^reactions-(.+)$/.exec(field)?.[1];
  const content = kind === undefined ? undefined : REACTION_SORTS[kind];
  if (content) return (i) => reactions(i, content);
  return (i) => i.createdAt;
}

/** An issue's order by `sort:`; without one, more of the words in the title first, then the newest. */
function issueOrder(plan: Plan, store: IssueStore) {
  if (!plan.sort) {
    const words = [...plan.patterns].filter(([t]) => !t.negated).map(([, p]) => p);
    const score = (i: IssueRecord) => words.filter((p) => p.test(i.title)).length;
    return (x: IssueRecord, y: IssueRecord) => score(y) - score(x) || y.createdAt - x.createdAt || y.id - x.id;
  }
  // `reactions--1-asc`: the field, then the direction (descending unless `-asc`).
  const [, field, dir] = /^(.*?)(?:-(asc|desc))?$/.exec(plan.sort)!;
  const by = sortKey(store, field!);
  const sign = dir === 'asc' ? 1 : -1;
  return (x: IssueRecord, y: IssueRecord) => sign * (by(x) - by(y) || x.id - y.id);
}

/** Where an issue search looks: the store, and an issue's repository when the caller may see it. */
export interface IssueSearchSource {
  store: IssueStore;
  repoOfIssue(i: IssueRecord): RepoRecord | undefined;
}

/**
 * The issues a search's terms match, in order: by `sort` when given (REST's
 * `sort` and `order`: `created-asc`), else by the query's `sort:`, else
 * best match first (see issueOrder).
 */
export function searchIssues(src: IssueSearchSource, terms: readonly Term[], sort?: string): IssueRecord[] {
  const { store } = src;
  // `is:pr`/`type:pr`: the emulator has no pull requests.
  if (terms.some((t) => !t.negated && (t.key === 'is' || t.key === 'type') && /^(pr|pull-request|merged|draft)$/i.test(t.value))) return [];
  const plan = planOf(terms);
  if (sort) plan.sort = sort;
  const found: IssueRecord[] = [];
  for (const i of store.issues.values()) {
    const repo = src.repoOfIssue(i);
    if (!repo) continue;
    const labels = i.labels.flatMap((id) => store.labels.get(id)?.name.toLowerCase() ?? []);
    if (issueMatches({ i, repo, labels, comments: store.commentsOf(i.id) }, plan)) found.push(i);
  }
  return found.sort(issueOrder(plan, store));
}
