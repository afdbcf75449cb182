/**
 * A repository as the code host's REST API shows it, after the published
 * description (`repository` in lists and search, `full-repository` for one
 * repository and a new one): the owner (a `simple-user`) as given, the URL
 * templates, the counts and flags, and when it was created, updated and
 * pushed to (`updated_at` also gives a read its `Last-Modified`); for a
 * signed-in caller its `permissions`, and for one who administers it the
 * fields only they are shown (the merge settings, `temp_clone_token`), as
 * the published examples carry them.
 */
import { createHash } from 'node:crypto';
import { Hosting } from '../../../shared/constants.js';
import type { RepoRecord } from './ratelimit/fixtures.js';

/** The URL templates of a repository, by field name (`{/sha}`-style holes as the service sends them). */
const TEMPLATES: Readonly<Record<string, string>> = {
  forks_url: '/forks',
  keys_url: '/keys{/key_id}',
  collaborators_url: '/collaborators{/collaborator}',
  teams_url: '/teams',
  hooks_url: '/hooks',
  issue_events_url: '/issues/events{/number}',
  events_url: '/events',
  assignees_url: '/assignees{/user}',
  branches_url: '/branches{/branch}',
  tags_url: '/tags',
  blobs_url: '/git/blobs{/sha}',
  git_tags_url: '/git/tags{/sha}',
  git_refs_url: '/git/refs{/sha}',
  trees_url: '/git/trees{/sha}',
  statuses_url: '/statuses/{sha}',
  languages_url: '/languages',
  stargazers_url: '/stargazers',
  contributors_url: '/contributors',
  subscribers_url: '/subscribers',
  subscription_url: '/subscription',
  commits_url: '/commits{/sha}',
  git_commits_url: '/git/commits{/sha}',
  comments_url: '/comments{/number}',
  issue_comment_url: '/issues/comments{/number}',
  contents_url: '/contents/{+path}',
  compare_url: '/compare/{base}...{head}',
  merges_url: '/merges',
  archive_url: '/{archive_format}{/ref}',
  downloads_url: '/downloads',
  issues_url: '/issues{/number}',
  pulls_url: '/pulls{/number}',
  milestones_url: '/milestones{/number}',
  notifications_url: '/notifications{?since,all,participating}',
  labels_url: '/labels{/name}',
  releases_url: '/releases{/id}',
  deployments_url: '/deployments',
};

/** When the seeded users joined (fixed: the answers stay the same across runs). */
export const JOINED = '2011-01-25T18:44:36Z';

/** The kinds of object that have a global node id. */
export type NodeType = 'User' | 'Organization' | 'Repository' | 'Issue' | 'IssueComment' | 'Label' | 'Reaction' | 'Milestone' | 'IssueEvent';

/**
 * The global node id of an object (the legacy form the REST API's `node_id`
 * and the query API's `id` share): `0`, the length of the type's name, `:`,
 * the type and the database id (`04:User1`), base64.
 */
export function nodeIdOf(type: NodeType, id: number): string {
  return Buffer.from(`0${type.length}:${type}${id}`).toString('base64');
}

/** The type and database id a global node id names, if it is one. */
export function parseNodeId(id: string): { type: NodeType; id: number } | undefined {
  const m = /^0(\d+):([A-Za-z]+)(\d+)$/.exec(Buffer.from(id, 'base64').toString('latin1'));
  if (!m || Number(m[1]) !== m[2]!.length || nodeIdOf(m[2] as NodeType, Number(m[3])) !== id) return undefined;
  return { type: m[2] as NodeType, id: Number(m[3]) };
}

/** The seeded organization (`ent-corp`, which the users do not hold): a stable id from its name. */
export function organizationIdOf(login: string): number {
  let id = 7000;
  for (const c of login) id = (id * 31 + c.charCodeAt(0)) % 9_000_000;
  return id;
}

/** A time as the REST API writes it: ISO 8601 in UTC, to the second (`2011-01-25T18:44:36Z`). */
export const apiTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * What the caller may do with a repository it sees: `admin` (its owner),
 * `read` (any other signed-in caller), or nothing said (an anonymous caller:
 * the service sends no `permissions` then).
 */
export type RepoAccess = 'admin' | 'read' | undefined;

/** `permissions` of a repository for a caller with `access`. */
function permissionsOf(access: 'admin' | 'read'): Record<string, boolean> {
  const all = access === 'admin';
  return { admin: all, maintain: all, push: all, triage: all, pull: true };
}

/** What only a caller who administers the repository is shown: its merge settings and, for a private one, a token to clone it with. */
function adminFields(r: RepoRecord): Record<string, unknown> {
  const token = createHash('sha256')
    .update(`temp-clone:${r.id}:${r.createdAt}`)
    .digest('base64url')
    .replace(/[^A-Za-z0-9]/g, '')
    .slice(0, 29)
    .toUpperCase();
  return {
    allow_rebase_merge: true,
    allow_squash_merge: true,
    allow_merge_commit: true,
    allow_auto_merge: false,
    allow_update_branch: false,
    delete_branch_on_merge: false,
    use_squash_pr_title_as_default: false,
    squash_merge_commit_title: 'COMMIT_OR_PR_TITLE',
    squash_merge_commit_message: 'COMMIT_MESSAGES',
    merge_commit_title: 'MERGE_MESSAGE',
    merge_commit_message: 'PR_TITLE',
    temp_clone_token: r.private ? token : '',
  };
}

/**
 * One repository as a caller with `access` sees it. `full` adds what only
 * `GET /repos/{owner}/{repo}` and the create answer carry (`network_count`,
 * `subscribers_count`).
 */
export function repositoryJson(
  base: string,
  r: RepoRecord,
  owner: Record<string, unknown>,
  o: { full?: boolean; access?: RepoAccess; stars?: number; openIssues?: number } = {},
): Record<string, unknown> {
  const stars = o.stars ?? 0;
  const open = o.openIssues ?? 0;
  const host = new URL(base).host;
  const url = `${base}${Hosting.apiPathPrefix}/repos/${r.owner}/${r.name}`;
  const html = `${base}/${r.owner}/${r.name}`;
  const templates = Object.fromEntries(Object.entries(TEMPLATES).map(([k, v]) => [k, url + v]));
  return {
    id: r.id,
    node_id: nodeIdOf('Repository', r.id),
    name: r.name,
    full_name: `${r.owner}/${r.name}`,
    private: r.private,
    owner,
    html_url: html,
    description: r.description || null,
    fork: false,
    url,
    ...templates,
    git_url: `git://${host}/${r.owner}/${r.name}.git`,
    ssh_url: `git@${host}:${r.owner}/${r.name}.git`,
    clone_url: `${html}.git`,
    svn_url: html,
    mirror_url: null,
    homepage: null,
    language: null,
    size: 0,
    forks_count: 0,
    forks: 0,
    stargazers_count: stars,
    watchers_count: stars,
    watchers: stars,
    open_issues_count: open,
    open_issues: open,
    default_branch: 'main',
    visibility: r.private ? 'private' : 'public',
    topics: [],
    is_template: false,
    has_issues: true,
    has_projects: true,
    has_wiki: true,
    has_pages: false,
    has_downloads: true,
    has_discussions: false,
    archived: false,
    disabled: false,
    allow_forking: true,
    web_commit_signoff_required: false,
    license: null,
    created_at: apiTime(r.createdAt),
    updated_at: apiTime(r.updatedAt),
    pushed_at: apiTime(r.pushedAt),
    ...(o.access ? { permissions: permissionsOf(o.access) } : {}),
    ...(o.access === 'admin' ? adminFields(r) : {}),
    ...(o.full ? { network_count: 0, subscribers_count: 0 } : {}),
  };
}
