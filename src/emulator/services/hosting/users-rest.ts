/**
 * What scripts read about the service and its users besides `/user`:
 * `GET /meta` (the service's addresses: the emulator's own, since it serves
 * the web, the API and Git over HTTP from one loopback address, and no SSH),
 * `GET /user/emails` (the caller's addresses; a classic token needs the
 * `user:email` or `user` scope, else `404`, as the service answers), and
 * `GET /users/{username}/repos` (a user's public repositories: `type`,
 * `sort`, `direction`, paged), after the published description.
 */
import { Hosting } from '../../../shared/constants.js';
import type { EmuRequest, EmuResponse, Router } from '../../router.js';
import type { RepoRecord, RepoStore } from './ratelimit/fixtures.js';
import type { HostingState } from './state.js';
import { apiError } from './errors.js';
import { paged } from './paging.js';

export interface UsersApi {
  baseUrl(): string;
  state: HostingState;
  repos: RepoStore;
  userOf(req: EmuRequest): string | undefined;
  refuseNonUser(req: EmuRequest, res: EmuResponse): void;
  scopesOf(req: EmuRequest): readonly string[] | undefined;
  repoJson(req: EmuRequest, r: RepoRecord): Record<string, unknown>;
}

const notFound = (res: EmuResponse) => res.json(404, apiError(404, 'Not Found'));

export function registerUsersRest(router: Router, api: UsersApi): void {
  const P = Hosting.apiPathPrefix;
  router.get(`${P}/meta`, (_req, res) => res.json(200, meta(api.baseUrl())));
  router.get(`${P}/user/emails`, (req, res) => {
    const login = api.userOf(req);
    if (!login) return api.refuseNonUser(req, res);
    const scopes = api.scopesOf(req);
    if (scopes && !scopes.some((s) => s === 'user' || s === 'user:email')) return notFound(res);
    const u = api.state.users.get(login)!;
    const host = new URL(api.baseUrl()).hostname;
    const all = [
      { email: u.email, primary: true, verified: true, visibility: 'public' },
      { email: `${u.id}+${u.login}@users.noreply.${host}`, primary: false, verified: true, visibility: null },
    ];
    const { items, headers } = paged(req, api.baseUrl(), all);
    res.json(200, items, headers);
  });
  router.get(`${P}/users/:login/repos`, (req, res) => {
    const login = req.params.login!.toLowerCase();
    const own = [...api.repos.repos.values()].filter((r) => r.owner.toLowerCase() === login);
    if (!own.length && api.state.login(login) === undefined) return notFound(res);
    // `type`: owner (the default) or all list the user's own; member, none (the emulator has no collaborators).
    const listed = req.query.get('type') === 'member' ? [] : own.filter((r) => !r.private);
    const { items, headers } = paged(req, api.baseUrl(), sortRepos(listed, req.query.get('sort'), req.query.get('direction')));
    res.json(
      200,
      items.map((r) => api.repoJson(req, r)),
      headers,
    );
  });
}

/** Repositories in the order `sort` (`full_name`, the default; `created`, `updated`, `pushed`) and `direction` ask (asc for names, else desc by default). */
export function sortRepos(list: RepoRecord[], sort: string | null, direction: string | null): RepoRecord[] {
  const by = sort ?? 'full_name';
  const key = (r: RepoRecord): number | string =>
    by === 'created' ? r.createdAt : by === 'updated' ? r.updatedAt : by === 'pushed' ? r.pushedAt : `${r.owner}/${r.name}`.toLowerCase();
  const asc = (direction ?? (by === 'full_name' ? 'asc' : 'desc')) === 'asc';
  return [...list].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    const c = x < y ? -1 : x > y ? 1 : a.id - b.id;
    return asc ? c : -c;
  });
}

/** `api-overview`: the emulator's one loopback address for the web, the API, Git over HTTP and (were it to send them) hooks; no SSH keys. */
function meta(base: string): Record<string, unknown> {
  const host = new URL(base).hostname;
  const here = /^[\d.]+$/.test(host) ? [`${host}/32`] : ['127.0.0.1/32'];
  return {
    verifiable_password_authentication: false,
    ssh_key_fingerprints: {},
    ssh_keys: [],
    hooks: here,
    web: here,
    api: here,
    git: here,
    packages: [],
    pages: [],
    importer: [],
    actions: [],
    dependabot: [],
    domains: { website: [host] },
  };
}
