/**
 * A repository as the code host's REST API shows it, after the published
 * description (`repository` in lists and search, `full-repository` for one
 * repository and a new one): the owner (a `simple-user`) as given, the URL
 * templates, the counts and flags, and when it was created, updated and
 * pushed to (`updated_at` also gives a read its `Last-Modified`).
 */
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

/** A time as the REST API writes it: ISO 8601 in UTC, to the second (`2011-01-25T18:44:36Z`). */
export const apiTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * One repository. `full` adds what only `GET /repos/{owner}/{repo}` and the
 * create answer carry (`network_count`, `subscribers_count`).
 */
export function repositoryJson(base: string, r: RepoRecord, owner: Record<string, unknown>, o: { full?: boolean } = {}): Record<string, unknown> {
  const host = new URL(base).host;
  const url = `${base}${Hosting.apiPathPrefix}/repos/${r.owner}/${r.name}`;
  const html = `${base}/${r.owner}/${r.name}`;
  const templates = Object.fromEntries(Object.entries(TEMPLATES).map(([k, v]) => [k, url + v]));
  return {
    id: r.id,
    node_id: Buffer.from(`010:Repository${r.id}`).toString('base64'),
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
    stargazers_count: 0,
    watchers_count: 0,
    watchers: 0,
    open_issues_count: 0,
    open_issues: 0,
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
    ...(o.full ? { network_count: 0, subscribers_count: 0 } : {}),
  };
}
