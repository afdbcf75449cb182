/**
 * REST endpoints of the hosting service under /api/v3 (plus the query API at
 * /api/graphql and the LFS batch API), enough to exercise every rate-limit
 * bucket: core reads and content-creating writes, search, code search, the
 * query API, LFS and the enterprise audit log.
 */
import { Hosting } from '../../../shared/constants.js';
import type { EmulatorEnv } from '../../service.js';
import type { EmuRequest, EmuResponse, Router } from '../../router.js';
import { readJsonObject } from './body.js';
import type { HostingState, HostingUser } from './state.js';
import type { Caller } from './ratelimit/callers.js';
import { reposOf, type RepoRecord, type RepoStore } from './ratelimit/fixtures.js';
import { registerQueryApi } from './graphql.js';
import { registerSearchRoutes } from './search-rest.js';
import { paged } from './paging.js';
import { issuesOf, type IssueStore, repoKey } from './issues/store.js';
import { registerIssueRoutes } from './issues/rest.js';
import type { IssueJsonContext } from './issues/json.js';
import { JOINED, nodeIdOf, organizationIdOf, type RepoAccess, repositoryJson } from './repository.js';
import { scopesWrite, tokenOfRequest } from './scopes.js';
import { apiError } from './errors.js';
import { registerUsersRest } from './users-rest.js';

const LFS_MAX_OBJECTS = 100;

/** The user a request acts for (set by the rate limiter's middleware), if any. */
function userOf(req: EmuRequest): string | undefined {
  const c = req.locals.rateLimitCaller as Caller | undefined;
  return c?.kind === 'user' ? c.login : undefined;
}

/** What the caller may do with a repository it sees: its owner administers it, any other signed-in caller reads it. */
function accessOf(req: EmuRequest, r: RepoRecord): RepoAccess {
  if (!isAuthenticated(req)) return undefined;
  return userOf(req) === r.owner ? 'admin' : 'read';
}

function isAuthenticated(req: EmuRequest): boolean {
  const c = req.locals.rateLimitCaller as Caller | undefined;
  return !!c && c.kind !== 'anonymous';
}

const requiresAuth = (res: EmuResponse) => res.json(401, apiError(401, 'Requires authentication'));

/**
 * The answer of a user-only endpoint (`/user`, `/user/repos`) to a caller that
 * is no user: 401 when anonymous; 403 "Resource not accessible by
 * integration" for an installation's or a workflow's token, which the real
 * service accepts elsewhere in the API (`/rate_limit`, repositories).
 */
function refuseNonUser(req: EmuRequest, res: EmuResponse): void {
  const c = req.locals.rateLimitCaller as Caller | undefined;
  if (c?.kind === 'installation' || c?.kind === 'workflow') {
    return res.json(403, apiError(403, 'Resource not accessible by integration'));
  }
  requiresAuth(res);
}
const notFound = (res: EmuResponse) => res.json(404, apiError(404, 'Not Found'));

type UserFields = { login: string; id: number; name: string; email: string };

/**
 * `simple-user` of the published description: the URL templates and the 22
 * fields every user object has (the `user` of token answers, owners).
 */
export function simpleUserJson(base: string, u: UserFields): Record<string, unknown> {
  const api = `${base}${Hosting.apiPathPrefix}`;
  const me = `${api}/users/${u.login}`;
  return {
    login: u.login,
    id: u.id,
    node_id: nodeIdOf('User', u.id),
    avatar_url: `${base}/avatars/${u.login}`,
    gravatar_id: '',
    url: me,
    html_url: `${base}/${u.login}`,
    followers_url: `${me}/followers`,
    following_url: `${me}/following{/other_user}`,
    gists_url: `${me}/gists{/gist_id}`,
    starred_url: `${me}/starred{/owner}{/repo}`,
    subscriptions_url: `${me}/subscriptions`,
    organizations_url: `${me}/orgs`,
    repos_url: `${me}/repos`,
    events_url: `${me}/events{/privacy}`,
    received_events_url: `${me}/received_events`,
    type: 'User',
    user_view_type: 'public',
    site_admin: false,
  };
}

/** A repository's owner: a user, or (the seeded `ent-corp`, which the users do not hold) an organization with a stable id from its name. */
function ownerJson(base: string, login: string, user: HostingUser | undefined): Record<string, unknown> {
  if (user) return simpleUserJson(base, user);
  const id = organizationIdOf(login);
  return {
    ...simpleUserJson(base, { login, id, name: login, email: '' }),
    node_id: nodeIdOf('Organization', id),
    type: 'Organization',
  };
}

/** `public-user` (`GET /users/{username}`); with `own`, `private-user` (`GET /user`: the caller itself). */
export function userJson(base: string, u: UserFields, o: { own?: boolean; publicRepos?: number; privateRepos?: number } = {}): Record<string, unknown> {
  const pub: Record<string, unknown> = {
    ...simpleUserJson(base, u),
    user_view_type: o.own ? 'private' : 'public',
    name: u.name,
    company: null,
    blog: '',
    location: null,
    email: u.email,
    hireable: null,
    bio: null,
    twitter_username: null,
    public_repos: o.publicRepos ?? 0,
    public_gists: 0,
    followers: 0,
    following: 0,
    created_at: JOINED,
    updated_at: JOINED,
  };
  if (!o.own) return pub;
  return {
    ...pub,
    notification_email: u.email,
    private_gists: 0,
    total_private_repos: o.privateRepos ?? 0,
    owned_private_repos: o.privateRepos ?? 0,
    disk_usage: 0,
    collaborators: 0,
    two_factor_authentication: false,
    plan: { name: 'free', space: 976562499, collaborators: 0, private_repos: 10000 },
  };
}

/** `GET /api/v3/`: the real service's map of the API's URL templates. */
function apiRoot(api: string): Record<string, string> {
  return {
    current_user_url: `${api}/user`,
    authorizations_url: `${api}/authorizations`,
    code_search_url: `${api}/search/code?q={query}{&page,per_page,sort,order}`,
    rate_limit_url: `${api}/rate_limit`,
    repository_url: `${api}/repos/{owner}/{repo}`,
    repository_search_url: `${api}/search/repositories?q={query}{&page,per_page,sort,order}`,
    current_user_repositories_url: `${api}/user/repos{?type,page,per_page,sort}`,
    user_url: `${api}/users/{user}`,
  };
}

/**
 * How many public and private repositories a user owns (their user object says); the private ones only those
 * `sees` lets the caller see (a classic token without `repo` sees none: the service counts 0 for it).
 */
function repoCounts(repos: RepoStore, login: string, sees: (r: RepoRecord) => boolean = () => true): { publicRepos: number; privateRepos: number } {
  const own = [...repos.repos.values()].filter((r) => r.owner === login);
  return { publicRepos: own.filter((r) => !r.private).length, privateRepos: own.filter((r) => r.private && sees(r)).length };
}

/** What the REST routes share: the state, the repositories, the issues and their JSON. */
interface Rest {
  state: HostingState;
  env: EmulatorEnv;
  repos: RepoStore;
  issues: IssueStore;
  /** A repository as the caller of `req` sees it. */
  repoJson(req: EmuRequest, r: RepoRecord, o?: { full?: boolean }): Record<string, unknown>;
  /** A repository the request may see: public, or its own. */
  visible(req: EmuRequest, r: RepoRecord | undefined): boolean;
  /** A classic token's scopes (undefined for other credentials: an installable app's token carries permissions). */
  scopesOf(req: EmuRequest): readonly string[] | undefined;
}

/** What the issues' JSON needs: the base URL, users as `simple-user`, a repository's name as written and its owner. */
function issueJsonContext(state: HostingState, env: EmulatorEnv, repos: RepoStore, store: IssueStore): IssueJsonContext {
  const user = (login: string) => {
    const u = state.users.get(login);
    return simpleUserJson(env.baseUrl(), u ?? { login, id: organizationIdOf(login), name: login, email: '' });
  };
  const repo = (key: string) => repos.repos.get(key);
  return {
    get base() {
      return env.baseUrl();
    },
    store,
    user,
    exists: (name) => state.login(name) !== undefined,
    login: (name) => state.login(name),
    logins: () => [...state.users.keys()],
    fullName: (key) => (repo(key) ? `${repo(key)!.owner}/${repo(key)!.name}` : key),
    ownerOf: (key) => repo(key)?.owner ?? '',
  };
}

/** The REST API's route groups, in the order the router matches them. */
export function registerRestApi(router: Router, state: HostingState, env: EmulatorEnv): void {
  const repos = reposOf(state, () => env.clock.now());
  const issues = issuesOf(state, () => env.clock.now());
  const repoJson = (req: EmuRequest, r: RepoRecord, o: { full?: boolean } = {}) =>
    repositoryJson(env.baseUrl(), r, ownerJson(env.baseUrl(), r.owner, state.users.get(r.owner)), {
      ...o,
      access: accessOf(req, r),
      stars: issues.stargazerCount(repoKey(r)),
      openIssues: issues.openIssues(repoKey(r)),
    });
  const scopesOf = (req: EmuRequest) => {
    const t = tokenOfRequest(state, req.header('authorization'));
    return t && (t.kind === 'personal' || t.kind === 'oauth') ? t.scopes : undefined;
  };
  // A private repository: its owner's, and through a classic token only with the `repo` scope (public_repo is for public ones).
  const seesPrivate = (req: EmuRequest, r: RepoRecord) => userOf(req) === r.owner && (scopesOf(req)?.includes('repo') ?? true);
  const visible = (req: EmuRequest, r: RepoRecord | undefined) => !!r && (!r.private || seesPrivate(req, r));
  const rest: Rest = { state, env, repos, issues, repoJson, visible, scopesOf };
  registerUserRoutes(router, rest);
  registerRepoRoutes(router, rest);
  const json = issueJsonContext(state, env, repos, issues);
  registerIssueRoutes(router, { baseUrl: () => env.baseUrl(), repos, store: issues, visible, userOf, refuseNonUser, scopesOf, json });
  registerSearchRoutes(router, {
    baseUrl: () => env.baseUrl(),
    state,
    repos,
    issues,
    issueJson: json,
    repoJson,
    visible,
    userOf,
    authenticated: isAuthenticated,
  });
  registerUsersRest(router, { baseUrl: () => env.baseUrl(), state, repos, userOf, refuseNonUser, scopesOf, repoJson });
  registerAuditLog(router, rest);
  registerQueryApi(router, rest);
  registerLfsBatch(router, rest);
}

/** The API root, the caller (`/user`) and any user (`/users/{login}`). */
function registerUserRoutes(router: Router, rest: Rest): void {
  const { state, env, repos, visible } = rest;
  const api = Hosting.apiPathPrefix;
  // The API root: a map of URL templates (clients such as the code host's own CLI call it to check a token and read its scopes).
  router.get(api, (_req, res) => res.json(200, apiRoot(env.baseUrl() + api)));

  // The caller's private profile needs, from a classic token, the `user` scope (or `read:user`, which it
  // includes); without it the service answers the public profile only (`public-user`), as its description says.
  router.get(`${api}/user`, (req, res) => {
    const login = userOf(req);
    if (!login) return refuseNonUser(req, res);
    const u = state.users.get(login)!;
    const scopes = rest.scopesOf(req);
    const own = !scopes || scopes.includes('user') || scopes.includes('read:user');
    res.json(200, userJson(env.baseUrl(), u, { own, ...repoCounts(repos, login, (r) => visible(req, r)) }));
  });

  router.get(`${api}/users/:login`, (req, res) => {
    const u = state.users.get(req.params.login!);
    if (!u) return notFound(res);
    res.json(200, userJson(env.baseUrl(), u, repoCounts(repos, u.login)));
  });
}

/** A repository; the caller's repositories, created and listed (paged like the real API). */
function registerRepoRoutes(router: Router, { env, repos, repoJson, visible, scopesOf }: Rest): void {
  const api = Hosting.apiPathPrefix;
  router.get(`${api}/repos/:owner/:repo`, (req, res) => {
    const r = repos.get(req.params.owner!, req.params.repo!);
    if (!visible(req, r)) return notFound(res);
    res.json(200, repoJson(req, r!, { full: true }));
  });

  router.post(`${api}/user/repos`, async (req, res) => {
    const login = userOf(req);
    if (!login) return refuseNonUser(req, res);
    // The API takes JSON (a form body, as the real service does, is not understood: no name).
    const b = /json/i.test(req.header('content-type') ?? 'application/json') ? await readJsonObject(req) : {};
    const p = {
      name: typeof b.name === 'string' ? b.name : '',
      private: String(b.private === true),
      description: typeof b.description === 'string' ? b.description : '',
    };
    const name = p.name;
    // A classic token creates a public repository with `public_repo` or `repo`, a private one with `repo` only
    // (the service's scope rules); without it the answer is 404 Not Found, as for the issue writes.
    if (!scopesWrite(scopesOf(req), p.private === 'true')) return notFound(res);
    const invalid = (message: string) =>
      res.json(422, apiError(422, 'Repository creation failed.', { errors: [{ resource: 'Repository', code: 'custom', field: 'name', message }] }));
    if (!/^[A-Za-z0-9._-]{1,100}$/.test(name) || name === '.' || name === '..') return invalid('name is invalid');
    if (repos.get(login, name)) return invalid('name already exists on this account');
    const r = repos.create(login, name, p.private === 'true', p.description ?? '');
    res.json(201, repoJson(req, r, { full: true }), { location: `${env.baseUrl()}${api}/repos/${login}/${name}` });
  });

  // The signed-in user's repositories, paged like the real API: per_page (default 30, max 100), page, and a Link header.
  router.get(`${api}/user/repos`, (req, res) => {
    const login = userOf(req);
    if (!login) return refuseNonUser(req, res);
    const mine = [...repos.repos.values()].filter((r) => r.owner === login && visible(req, r)).sort((a, b) => a.id - b.id);
    const { items, headers } = paged(req, env.baseUrl(), mine);
    res.json(
      200,
      items.map((r) => repoJson(req, r)),
      headers,
    );
  });
}

/** The enterprise audit log: repositories created by ent-corp and its enterprise members. */
function registerAuditLog(router: Router, { state, repos }: Rest): void {
  const api = Hosting.apiPathPrefix;
  router.get(`${api}/enterprises/:enterprise/audit-log`, (req, res) => {
    const login = userOf(req);
    if (!isAuthenticated(req)) return requiresAuth(res);
    const member = login ? state.users.get(login)?.enterpriseCloud : false;
    if (!member || req.params.enterprise !== 'ent-corp') return notFound(res);
    const events = [...repos.repos.values()]
      .filter((r) => r.owner === 'ent-corp' || state.users.get(r.owner)?.enterpriseCloud)
      .map((r) => ({ '@timestamp': r.createdAt, action: 'repo.create', actor: r.owner, repo: `${r.owner}/${r.name}` }));
    res.json(200, events);
  });
}

/** The LFS batch API of a repository (`<repo>.git/info/lfs/objects/batch`). */
function registerLfsBatch(router: Router, { env, repos, visible }: Rest): void {
  router.post('/:owner/:repo/info/lfs/objects/batch', async (req, res) => {
    const lfs = { 'content-type': 'application/vnd.git-lfs+json' };
    const repoName = req.params.repo!.replace(/\.git$/, '');
    const r = repos.get(req.params.owner!, repoName);
    if (!req.params.repo!.endsWith('.git') || !visible(req, r)) return res.json(404, { message: 'Repository or object not found' }, lfs);
    let body: { operation?: unknown; objects?: unknown };
    try {
      body = JSON.parse(await req.text()) as typeof body;
    } catch {
      return res.json(422, { message: 'Unable to parse the batch request' }, lfs);
    }
    if (body.operation !== 'download' && body.operation !== 'upload') return res.json(422, { message: 'operation must be download or upload' }, lfs);
    if (!Array.isArray(body.objects)) return res.json(422, { message: 'objects must be an array' }, lfs);
    if (body.objects.length > LFS_MAX_OBJECTS) return res.json(413, { message: `Too many objects in one batch request (at most ${LFS_MAX_OBJECTS})` }, lfs);
    const base = `${env.baseUrl()}/${r!.owner}/${r!.name}.git/info/lfs/objects`;
    const objects = (body.objects as Array<{ oid?: unknown; size?: unknown }>).map((o) => {
      const oid = String(o.oid ?? '');
      if (!/^[0-9a-f]{64}$/.test(oid)) return { oid, size: o.size, error: { code: 422, message: 'invalid object id' } };
      return { oid, size: o.size, authenticated: true, actions: { [body.operation as string]: { href: `${base}/${oid}`, expires_in: 3600 } } };
    });
    res.json(200, { transfer: 'basic', objects, hash_algo: 'sha256' }, lfs);
  });
}
