/**
 * `search(query, type)` of the query API: the service's search syntax
 * (../search-query.ts) over what the emulator holds, as the code host's CLI
 * uses it (`gh issue list --label bug` sends `label:bug
 * repo:mona/hello-world state:open type:issue`). Issues as
 * ../issues/search.ts matches them; repositories and users match words in
 * their names; the emulator has no discussions. A refused query is the
 * field null and an error of `type: INVALID`.
 *
 * Only the first 1,000 results can be reached (the count says how many
 * matched). A page is `first`, or `last` after `after` (gh pages this way;
 * the service reads `last` without `before` as the page size).
 */
import { GraphQLError } from 'graphql';
import type { HostingUser } from '../state.js';
import type { RepoRecord } from '../ratelimit/fixtures.js';
import { type IssueRecord, repoKey } from '../issues/store.js';
import { searchIssues } from '../issues/search.js';
import { accountExists, readSearch, SEARCH_MAX, SearchRefused, type Term, wordPattern } from '../search-query.js';
import { connection } from './connections.js';
import type { QueryObjects } from './objects.js';

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

type SearchArgs = { query: string; type: string; first?: number | null; last?: number | null; after?: string | null; before?: string | null };

/** `Query.search`: one page of what matched, and how many did. */
export function search(o: QueryObjects, a: SearchArgs) {
  let terms: Term[];
  try {
    terms = readSearch(a.query, o.viewer, {
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
    found = searchIssues({ store: o.ctx.issues, repoOfIssue: (i) => o.repoOfIssue(i) }, terms);
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
