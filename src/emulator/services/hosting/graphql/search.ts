/**
 * `search(query, type)`: the service's search syntax over what the emulator
 * holds, as the code host's CLI uses it (`gh issue list --label bug` sends
 * `label:bug repo:mona/hello-world state:open type:issue`).
 *
 * Issues: `repo:`, `user:`/`org:`/`owner:`, `is:`/`type:` (issue, pr, open,
 * closed, public, private), `state:`, `label:` (a comma list is any of them;
 * several `label:` are all of them), `no:` (label, assignee, milestone,
 * project), `author:`, `assignee:`, `mentions:`, `commenter:`, `involves:`,
 * `milestone:` and `project:` (the emulator has none: nothing matches),
 * `reason:`, `created:`/`updated:`/`closed:` (`>=2026-01-01`,
 * `2026-01-01..2026-02-01`, a day), `in:` (title, body, comments) and
 * `sort:` (created, updated, comments; `-asc`/`-desc`); a qualifier with `-`
 * before it is negated, an unknown one is a word, and every word must be in
 * the fields `in:` names (title, body and comments by default), case
 * ignored. Without `sort:` the newest come first. Repositories and users
 * match words in their names; the emulator has no discussions.
 *
 * Only the first 1,000 results can be reached (the count says how many
 * matched). A page is `first`, or `last` after `after` (gh pages this way;
 * the service reads `last` without `before` as the page size).
 */
import type { HostingUser } from '../state.js';
import type { RepoRecord } from '../ratelimit/fixtures.js';
import { type IssueRecord, repoKey } from '../issues/store.js';
import { connection } from './connections.js';
import type { QueryObjects } from './objects.js';

/** The most results a search reaches (the published limit). */
export const SEARCH_MAX = 1000;

interface Term {
  key: string | undefined;
  value: string;
  negated: boolean;
}

const QUALIFIERS = new Set(
  'repo user org owner is type state label no author assignee mentions commenter involves milestone project reason created updated closed in sort'.split(' '),
);

/** A query's terms: `key:value` qualifiers (values may be quoted, `-` negates) and words. */
export function parseSearch(query: string): Term[] {
  const terms: Term[] = [];
  for (const m of query.matchAll(/(-)?(?:([A-Za-z][\w-]*):)?(?:"([^"]*)"?|(\S+))/g)) {
    const key = m[2]?.toLowerCase();
    const value = m[3] ?? m[4] ?? '';
    if (key && QUALIFIERS.has(key)) terms.push({ key, value, negated: !!m[1] });
    else if (key || value) terms.push({ key: undefined, value: (m[2] ? `${m[2]}:` : '') + value, negated: !!m[1] });
  }
  return terms;
}

/** Whether a time (ms) passes a date qualifier: `>=d`, `>d`, `<=d`, `<d`, `a..b` (`*` open), or the day `d`. */
export function dateMatches(at: number, spec: string): boolean {
  const day = (s: string, end: boolean) => {
    const t = Date.parse(s.length <= 10 ? `${s}T00:00:00Z` : s);
    return s.length <= 10 && end ? t + 86_400_000 - 1 : t;
  };
  const range = /^(.+?)\.\.(.+)$/.exec(spec);
  if (range) return (range[1] === '*' || at >= day(range[1]!, false)) && (range[2] === '*' || at <= day(range[2]!, true));
  const cmp = /^(>=|<=|>|<)(.+)$/.exec(spec);
  if (!cmp) return at >= day(spec, false) && at <= day(spec, true);
  const [, op, d] = cmp;
  if (op === '>=') return at >= day(d!, false);
  if (op === '>') return at > day(d!, true);
  if (op === '<=') return at <= day(d!, true);
  return at < day(d!, false);
}

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

/** Whether an issue matches every term. */
function issueMatches(f: IssueFacts, terms: Term[]): boolean {
  const words = terms.filter((t) => !t.key);
  const within = new Set(terms.filter((t) => t.key === 'in').flatMap((t) => t.value.toLowerCase().split(',')));
  const fields = [
    !within.size || within.has('title') ? f.i.title : '',
    !within.size || within.has('body') ? (f.i.body ?? '') : '',
    !within.size || within.has('comments') ? f.comments.map((c) => c.body).join('\n') : '',
  ]
    .join('\n')
    .toLowerCase();
  if (!words.every((w) => fields.includes(w.value.toLowerCase()) !== w.negated)) return false;
  // Several `repo:` (or owners) are any of them; every other qualifier must hold.
  for (const group of ['repo', 'user|org|owner']) {
    const of = terms.filter((t) => t.key && group.split('|').includes(t.key) && !t.negated);
    if (of.length && !of.some((t) => issueQualifier(f, t.key!, t.value))) return false;
  }
  return terms.every((t) => !t.key || (!t.negated && /^(repo|user|org|owner)$/.test(t.key)) || issueQualifier(f, t.key, t.value) !== t.negated);
}

/** An issue's order by `sort:` (newest created first without one). */
function issueOrder(terms: Term[], comments: (i: IssueRecord) => number) {
  const sort =
    [...terms]
      .reverse()
      .find((t) => t.key === 'sort')
      ?.value.toLowerCase() ?? 'created-desc';
  const [field, dir] = sort.split('-');
  const by = (i: IssueRecord) => (field === 'updated' ? i.updatedAt : field === 'comments' ? comments(i) : i.createdAt);
  const sign = dir === 'asc' ? 1 : -1;
  return (x: IssueRecord, y: IssueRecord) => sign * (by(x) - by(y) || x.id - y.id);
}

function searchIssues(o: QueryObjects, terms: Term[]): IssueRecord[] {
  const store = o.ctx.issues;
  // `is:pr`/`type:pr`: the emulator has no pull requests.
  if (terms.some((t) => !t.negated && (t.key === 'is' || t.key === 'type') && /^(pr|pull-request|merged|draft)$/i.test(t.value))) return [];
  const found: IssueRecord[] = [];
  for (const i of store.issues.values()) {
    const repo = o.repoOfIssue(i);
    if (!repo) continue;
    const labels = i.labels.flatMap((id) => store.labels.get(id)?.name.toLowerCase() ?? []);
    if (issueMatches({ i, repo, labels, comments: store.commentsOf(i.id) }, terms)) found.push(i);
  }
  return found.sort(issueOrder(terms, (i) => store.commentsOf(i.id).length));
}

function searchRepositories(o: QueryObjects, terms: Term[]): RepoRecord[] {
  const words = terms.filter((t) => !t.key).map((t) => t.value.toLowerCase());
  return [...o.ctx.repos.repos.values()].filter((r) => {
    if (!o.ctx.visible(o.req, r)) return false;
    const text = `${r.owner}/${r.name} ${r.description}`.toLowerCase();
    if (!words.every((w) => text.includes(w))) return false;
    return terms.every((t) => {
      if (!t.key) return true;
      const v = t.value.toLowerCase();
      const holds =
        t.key === 'repo'
          ? repoKey(r) === v
          : t.key === 'user' || t.key === 'org' || t.key === 'owner'
            ? r.owner.toLowerCase() === v
            : t.key === 'is'
              ? (v === 'public') !== r.private
              : t.key === 'in' || t.key === 'sort';
      return holds !== t.negated;
    });
  });
}

function searchUsers(o: QueryObjects, terms: Term[]): HostingUser[] {
  const words = terms.filter((t) => !t.key).map((t) => t.value.toLowerCase());
  if (terms.some((t) => t.key === 'type' && t.value.toLowerCase() === 'org')) return [];
  return [...o.ctx.state.users.values()].filter((u) => words.every((w) => `${u.login} ${u.name ?? ''}`.toLowerCase().includes(w)));
}

type SearchArgs = { query: string; type: string; first?: number | null; last?: number | null; after?: string | null; before?: string | null };

/** `Query.search`: one page of what matched, and how many did. */
export function search(o: QueryObjects, a: SearchArgs) {
  const terms = parseSearch(a.query);
  const counts = { codeCount: 0, discussionCount: 0, issueCount: 0, repositoryCount: 0, userCount: 0, wikiCount: 0 };
  let found: unknown[] = [];
  let node: (x: never) => unknown = () => null;
  if (a.type === 'ISSUE') {
    found = searchIssues(o, terms);
    counts.issueCount = found.length;
    node = (i: IssueRecord) => o.issue(i);
  } else if (a.type === 'REPOSITORY') {
    found = searchRepositories(o, terms);
    counts.repositoryCount = found.length;
    node = (r: RepoRecord) => o.repo(r);
  } else if (a.type === 'USER') {
    found = searchUsers(o, terms);
    counts.userCount = found.length;
    node = (u: HostingUser) => o.user(u);
  }
  const page = a.last != null && a.first == null && a.before == null ? { first: a.last, after: a.after } : a;
  const { totalCount: _, ...conn } = connection(found.slice(0, SEARCH_MAX), page, node as (x: unknown) => unknown);
  return { ...counts, ...conn };
}
