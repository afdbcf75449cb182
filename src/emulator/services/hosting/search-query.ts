/**
 * The service's search syntax, read once for every search the emulator
 * answers: the query API's `search(query, type)` (graphql/search.ts) and the
 * REST API's `GET /search/issues` and `GET /search/repositories`
 * (search-rest.ts). A query is its terms: `key:value` qualifiers (values may
 * be quoted; `-` or `NOT` negates) and words; `AND` is what terms are
 * without it, `a OR b` is either.
 *
 * As the service does, a query longer than 256 characters, one of more than
 * five AND/OR/NOT operators, or one naming (`repo:`, `user:`/`org:`/
 * `owner:`, `author:`) a repository or account that does not exist or that
 * the caller cannot see is refused: {@link SearchRefused}. Only the first
 * 1,000 results can be reached.
 */
import type { RepoRecord } from './ratelimit/fixtures.js';

/** The most results a search reaches (the published limit). */
export const SEARCH_MAX = 1000;

export interface Term {
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

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A word (or a quoted phrase) as a whole word, case ignored: `bug` is not in "debug". */
export const wordPattern = (w: string) => new RegExp(`(?<![\\p{L}\\p{N}_])${w.trim().split(/\s+/).map(escaped).join('\\s+')}(?![\\p{L}\\p{N}_])`, 'iu');

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

/** A user of that login, or an owner of repositories (an organisation), case ignored. */
export function accountExists(users: Iterable<string>, repos: Iterable<RepoRecord>, login: string): boolean {
  const l = login.toLowerCase();
  return [...users].some((u) => u.toLowerCase() === l) || [...repos].some((r) => r.owner.toLowerCase() === l);
}

/**
 * A query as the caller means it: its terms ({@link parseSearch}), `@me` as
 * the caller's login (when signed in), and what it names checked
 * ({@link checkNamed}). Throws {@link SearchRefused}.
 */
export function readSearch(query: string, viewer: string | undefined, can: Nameable): Term[] {
  const terms = parseSearch(query).map((t) => (t.value === '@me' && viewer ? { ...t, value: viewer } : t));
  checkNamed(terms, can);
  return terms;
}
