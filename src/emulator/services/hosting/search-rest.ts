/**
 * The REST API's searches under /api/v3/search: issues (`GET /search/issues`,
 * which Octokit's `search.issuesAndPullRequests`, PyGithub's `search_issues`
 * and `gh search issues` call), repositories, and code (always empty). Each
 * reads its query as the query API's `search` does (search-query.ts: the
 * same grammar, limits and refusals) and answers the service's shape,
 * `{total_count, incomplete_results, items}`, paged by `per_page` and `page`
 * with a `Link` header; only the first 1,000 results can be reached, a page
 * beyond them is refused as the service refuses it. They count against the
 * `search` bucket (30 a minute signed in, 10 anonymous: ratelimit/classify.ts).
 */
import { Hosting } from '../../../shared/constants.js';
import type { EmuRequest, EmuResponse, Router } from '../../router.js';
import type { RepoRecord, RepoStore } from './ratelimit/fixtures.js';
import type { HostingState } from './state.js';
import type { IssueStore } from './issues/store.js';
import { issueJson, type IssueJsonContext } from './issues/json.js';
import { searchIssues } from './issues/search.js';
import { pageOf, paged } from './paging.js';
import { accountExists, readSearch, SEARCH_MAX, SearchRefused, type Term, wordPattern } from './search-query.js';
import { apiError } from './errors.js';

/** What the searches need of the REST API. */
export interface SearchApi {
  baseUrl(): string;
  state: HostingState;
  repos: RepoStore;
  issues: IssueStore;
  issueJson: IssueJsonContext;
  /** A repository as the caller of `req` sees it. */
  repoJson(req: EmuRequest, r: RepoRecord): Record<string, unknown>;
  /** Whether the caller of `req` may see the repository. */
  visible(req: EmuRequest, r: RepoRecord | undefined): boolean;
  /** The signed-in user of a request (`@me`), if any. */
  userOf(req: EmuRequest): string | undefined;
  /** Whether the request carries a credential the service accepts. */
  authenticated(req: EmuRequest): boolean;
}

const validationFailed = (res: EmuResponse, error: Record<string, string>) =>
  res.json(422, apiError(422, 'Validation Failed', { errors: [{ ...error, resource: 'Search', field: 'q' }] }));

/** The request's query as terms; undefined once a refusal (422) is sent: no `q`, or one the service refuses. */
function termsOf(api: SearchApi, req: EmuRequest, res: EmuResponse): Term[] | undefined {
  const q = req.query.get('q')?.trim();
  if (!q) {
    validationFailed(res, { code: 'missing' });
    return undefined;
  }
  try {
    return readSearch(q, api.userOf(req), {
      repoVisible: (owner, name) => api.visible(req, api.repos.get(owner, name)),
      accountExists: (login) => accountExists(api.state.users.keys(), api.repos.repos.values(), login),
    });
  } catch (e) {
    if (!(e instanceof SearchRefused)) throw e;
    validationFailed(res, { message: e.message, code: 'invalid' });
    return undefined;
  }
}

/** One page of what matched, as the service answers a search; a page past the first 1,000 results is refused (422). */
function answer<T>(
  api: SearchApi,
  req: EmuRequest,
  res: EmuResponse,
  found: readonly T[],
  item: (x: T) => Record<string, unknown>,
  extra: Record<string, unknown> = {},
): void {
  const { perPage, page } = pageOf(req);
  if ((page - 1) * perPage >= SEARCH_MAX) return res.json(422, apiError(422, `Only the first ${SEARCH_MAX} search results are available`));
  const { items, headers } = paged(req, api.baseUrl(), found.slice(0, SEARCH_MAX));
  res.json(200, { total_count: found.length, incomplete_results: false, items: items.map((x) => ({ ...item(x), score: 1 })), ...extra }, headers);
}

/** REST's `sort` of an issue search (the published enum), with `order` (desc unless asc); anything else is best match. */
const ISSUE_SORTS = new Set(
  'comments reactions reactions-+1 reactions--1 reactions-smile reactions-thinking_face reactions-heart reactions-tada interactions created updated'.split(' '),
);

function issueSort(req: EmuRequest): string | undefined {
  const sort = req.query.get('sort');
  return sort && ISSUE_SORTS.has(sort) ? `${sort}-${req.query.get('order') === 'asc' ? 'asc' : 'desc'}` : undefined;
}

export function registerSearchRoutes(router: Router, api: SearchApi): void {
  const base = `${Hosting.apiPathPrefix}/search`;
  router.get(`${base}/issues`, (req, res) => {
    const terms = termsOf(api, req, res);
    if (!terms) return;
    const repoOfIssue = (i: { repo: string }) => {
      const r = api.repos.repos.get(i.repo);
      return r && api.visible(req, r) ? r : undefined;
    };
    const found = searchIssues({ store: api.issues, repoOfIssue }, terms, issueSort(req));
    // The published description's `search_type`: the emulator's search is the lexical one.
    // An item's `body` is a string in the published `issue-search-result-item` (not nullable, as an issue's is).
    answer(api, req, res, found, (i) => ({ ...issueJson(api.issueJson, i), body: i.body ?? '' }), { search_type: 'lexical' });
  });

  // Repositories whose name or description has every word (whole words); qualifiers are not applied.
  router.get(`${base}/repositories`, (req, res) => {
    const terms = termsOf(api, req, res);
    if (!terms) return;
    const words = terms.filter((t) => !t.key && !t.negated && !t.value.includes(':')).map((t) => wordPattern(t.value));
    const found = [...api.repos.repos.values()].filter((r) => api.visible(req, r) && words.every((w) => w.test(`${r.owner}/${r.name} ${r.description}`)));
    answer(api, req, res, found, (r) => api.repoJson(req, r));
  });

  router.get(`${base}/code`, (req, res) => {
    if (!api.authenticated(req)) {
      const errors = [{ message: 'Must be authenticated to access the code search API', resource: 'Search', field: 'q', code: 'invalid' }];
      return res.json(401, apiError(401, 'Requires authentication', { errors }));
    }
    if (!req.query.get('q')?.trim()) return validationFailed(res, { code: 'missing' });
    res.json(200, { total_count: 0, incomplete_results: false, items: [] });
  });
}
