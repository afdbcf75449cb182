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
 * or `NOT` before it is negated, `a OR b` is either, `AND` is what terms
 * are without it, an unknown qualifier is a word, and every word must be a
 * whole word (or phrase, in quotes) of the fields `in:` names (title, body
 * and comments by default), case ignored. Without `sort:` the issues whose
 * titles have more of the words come first, then the newest (the service
 * ranks by its own relevance). Repositories and users match words in their
 * names; the emulator has no discussions.
 *
 * As the service does, a query longer than 256 characters, one of more than
 * five AND/OR/NOT operators, or one naming (`repo:`, `user:`/`org:`/
 * `owner:`, `author:`) a repository or account that does not exist or that
 * the caller cannot see is refused: {@link SearchRefused}.
 *
 * Only the first 1,000 results can be reached (the count says how many
 * matched). A page is `first`, or `last` after `after` (gh pages this way;
 * the service reads `last` without `before` as the page size).
 */
import { GraphQLError } from 'graphql';
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
  /** `x OR this`: either of the two holds. */
  or?: true;
}

/** The service's limits on a search query (docs: "Troubleshooting search queries"). */
export const SEARCH_MAX_LENGTH = 256;
export const SEARCH_MAX_OPERATORS = 5;

/** A query the service refuses: REST answers 422 Validation Failed with this message, the query API an `INVALID` error. */
export class SearchRefused extends Error {}

export const UNSEARCHABLE =
  'The listed users and repositories cannot be searched either because the resources do not exist or you do not have permission to view them.';

const QUALIFIERS = new Set(
  'repo user org owner is type state label no author assignee mentions commenter involves milestone project reason created updated closed in sort'.split(' '),
);

/**
 * A query's terms: `key:value` qualifiers (values may be quoted, `-` or `NOT`
 * negates) and words; `AND` is dropped and `OR` joins a term to the one
 * before it. Throws {@link SearchRefused} for a query over the service's limits.
 */
export function parseSearch(query: string): Term[] {
  if (query.length > SEARCH_MAX_LENGTH) throw new SearchRefused(`The search is longer than ${SEARCH_MAX_LENGTH} characters.`);
  const terms: Term[] = [];
  let operators = 0;
  let not = false;
  let or = false;
  for (const m of query.matchAll(/(-)?(?:([A-Za-z][\w-]*):)?(?:"([^"]*)"?|(\S+))/g)) {
    const key = m[2]?.toLowerCase();
    const value = m[3] ?? m[4] ?? '';
    if (!m[1] && !key && m[4] && /^(AND|OR|NOT)$/.test(value)) {
      if (++operators > SEARCH_MAX_OPERATORS) throw new SearchRefused('More than five AND / OR / NOT operators were used.');
      if (value === 'NOT') not = true;
      else if (value === 'OR') or = terms.length > 0;
      continue;
    }
    let term: Term;
    if (key && QUALIFIERS.has(key)) term = { key, value, negated: !!m[1] !== not };
    else if (key || value) term = { key: undefined, value: (m[2] ? `${m[2]}:` : '') + value, negated: !!m[1] !== not };
    else continue;
    if (or) term.or = true;
    terms.push(term);
    not = or = false;
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

/** A search's terms prepared once: clauses (any term of one holds, every clause must), word patterns, where words are looked for. */
interface Plan {
  clauses: Term[][];
  patterns: Map<Term, RegExp>;
  within: Set<string>;
  sort: string | undefined;
}

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A word (or a quoted phrase) as a whole word, case ignored: `bug` is not in "debug". */
export const wordPattern = (w: string) => new RegExp(`(?<![\\p{L}\\p{N}_])${w.trim().split(/\s+/).map(escaped).join('\\s+')}(?![\\p{L}\\p{N}_])`, 'iu');

function planOf(terms: Term[]): Plan {
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

/** An issue's order by `sort:`; without one, more of the words in the title first, then the newest. */
function issueOrder(plan: Plan, comments: (i: IssueRecord) => number) {
  if (!plan.sort) {
    const words = [...plan.patterns].filter(([t]) => !t.negated).map(([, p]) => p);
    const score = (i: IssueRecord) => words.filter((p) => p.test(i.title)).length;
    return (x: IssueRecord, y: IssueRecord) => score(y) - score(x) || y.createdAt - x.createdAt || y.id - x.id;
  }
  const [field, dir] = plan.sort.split('-');
  const by = (i: IssueRecord) => (field === 'updated' ? i.updatedAt : field === 'comments' ? comments(i) : i.createdAt);
  const sign = dir === 'asc' ? 1 : -1;
  return (x: IssueRecord, y: IssueRecord) => sign * (by(x) - by(y) || x.id - y.id);
}

function searchIssues(o: QueryObjects, terms: Term[]): IssueRecord[] {
  const store = o.ctx.issues;
  // `is:pr`/`type:pr`: the emulator has no pull requests.
  if (terms.some((t) => !t.negated && (t.key === 'is' || t.key === 'type') && /^(pr|pull-request|merged|draft)$/i.test(t.value))) return [];
  const plan = planOf(terms);
  const found: IssueRecord[] = [];
  for (const i of store.issues.values()) {
    const repo = o.repoOfIssue(i);
    if (!repo) continue;
    const labels = i.labels.flatMap((id) => store.labels.get(id)?.name.toLowerCase() ?? []);
    if (issueMatches({ i, repo, labels, comments: store.commentsOf(i.id) }, plan)) found.push(i);
  }
  return found.sort(issueOrder(plan, (i) => store.commentsOf(i.id).length));
}

/** What a search may name: a repository the caller can see, an account (a user, or an owner of repositories). */
export interface Nameable {
  repoVisible(owner: string, name: string): boolean;
  accountExists(login: string): boolean;
}

/** Refuses, as the service does, a search naming a repository or account that does not exist or that the caller cannot see. */
export function checkNamed(terms: Term[], can: Nameable): void {
  for (const t of terms) {
    const [owner, name, more] = t.value.split('/');
    const ok =
      t.key === 'repo'
        ? !!owner && !!name && more === undefined && can.repoVisible(owner, name)
        : t.key && /^(user|org|owner|author)$/.test(t.key)
          ? t.value === '@me' || /^app\//i.test(t.value) || can.accountExists(t.value)
          : true;
    if (!ok) throw new SearchRefused(UNSEARCHABLE);
  }
}

function searchRepositories(o: QueryObjects, terms: Term[]): RepoRecord[] {
  const words = terms.filter((t) => !t.key).map((t) => wordPattern(t.value));
  return [...o.ctx.repos.repos.values()].filter((r) => {
    if (!o.ctx.visible(o.req, r)) return false;
    const text = `${r.owner}/${r.name} ${r.description}`;
    if (!words.every((w) => w.test(text))) return false;
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
  const words = terms.filter((t) => !t.key).map((t) => wordPattern(t.value));
  if (terms.some((t) => t.key === 'type' && t.value.toLowerCase() === 'org')) return [];
  return [...o.ctx.state.users.values()].filter((u) => words.every((w) => w.test(`${u.login} ${u.name ?? ''}`)));
}

/** A user of that login, or an owner of repositories (an organisation), case ignored. */
export function accountExists(users: Iterable<string>, repos: Iterable<RepoRecord>, login: string): boolean {
  const l = login.toLowerCase();
  return [...users].some((u) => u.toLowerCase() === l) || [...repos].some((r) => r.owner.toLowerCase() === l);
}

type SearchArgs = { query: string; type: string; first?: number | null; last?: number | null; after?: string | null; before?: string | null };

/** `Query.search`: one page of what matched, and how many did. */
export function search(o: QueryObjects, a: SearchArgs) {
  let terms: Term[];
  try {
    terms = parseSearch(a.query).map((t) => (t.value === '@me' && o.viewer ? { ...t, value: o.viewer } : t));
    checkNamed(terms, {
      repoVisible: (owner, name) => {
        const r = o.ctx.repos.get(owner, name);
        return !!r && o.ctx.visible(o.req, r);
      },
      accountExists: (login) => accountExists(o.ctx.state.users.keys(), o.ctx.repos.repos.values(), login),
    });
  } catch (e) {
    throw e instanceof SearchRefused ? new GraphQLError(e.message, { extensions: { type: 'INVALID' } }) : e;
  }
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
