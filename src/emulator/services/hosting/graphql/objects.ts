/**
 * The objects a query leads to (users, organizations, repositories, issues,
 * comments, labels, reactions), as one request's caller sees them: plain
 * values and functions of the field's arguments, resolved by the executor.
 * Issues and the rest come from the store the REST API shares.
 */
import { GraphQLError } from 'graphql';
import type { EmulatorEnv } from '../../../service.js';
import type { EmuRequest } from '../../../router.js';
import type { Caller } from '../ratelimit/callers.js';
import type { RepoRecord, RepoStore } from '../ratelimit/fixtures.js';
import { apiTime, JOINED, nodeIdOf, organizationIdOf, parseNodeId } from '../repository.js';
import type { HostingState, HostingUser } from '../state.js';
import { associationOf, canClose, canEdit, canTriage } from '../issues/rules.js';
import {
  type CommentRecord,
  type IssueRecord,
  type IssueStore,
  type LabelRecord,
  REACTIONS,
  type ReactionContent,
  type ReactionRecord,
  repoKey,
} from '../issues/store.js';
import { connection } from './connections.js';

/** What the query API reads: the users, the repositories, who may see one, the issues. */
export interface QueryApiContext {
  state: HostingState;
  env: EmulatorEnv;
  repos: RepoStore;
  issues: IssueStore;
  visible(req: EmuRequest, r: RepoRecord | undefined): boolean;
}

type Page = { first?: number; last?: number; after?: string; before?: string };
type IssueFilters = {
  assignee?: string | null;
  createdBy?: string | null;
  labels?: string[] | null;
  mentioned?: string | null;
  milestone?: string | null;
  milestoneNumber?: string | null;
  since?: string | null;
  states?: string[] | null;
  viewerSubscribed?: boolean | null;
};
type IssueArgs = Page & { states?: string[]; labels?: string[]; orderBy?: { field: string; direction: string }; filterBy?: IssueFilters | null };

/** A value, or the service's NOT_FOUND error (the field null, the message in `errors`). */
export function found<T>(v: T | null | undefined, message: string): T {
  if (v === null || v === undefined) throw new GraphQLError(message, { extensions: { type: 'NOT_FOUND' } });
  return v;
}

/** A reaction's content as the query API spells it (`THUMBS_UP`), and back. */
export const reactionEnum = (c: ReactionContent) => (c === '+1' ? 'THUMBS_UP' : c === '-1' ? 'THUMBS_DOWN' : c.toUpperCase());
export const reactionOf = (e: string) => REACTIONS.find((c) => reactionEnum(c) === e)!;

export class QueryObjects {
  readonly base: string;
  /** The signed-in user's login, if the caller is one. */
  readonly viewer: string | undefined;

  constructor(
    readonly req: EmuRequest,
    readonly ctx: QueryApiContext,
  ) {
    this.base = ctx.env.baseUrl();
    const caller = req.locals.rateLimitCaller as Caller | undefined;
    this.viewer = caller?.kind === 'user' ? caller.login : undefined;
  }

  /** What an owner (a user or an organization) shares: its avatar, its pages, its repositories. */
  #owner(login: string) {
    return {
      login,
      avatarUrl: ({ size }: { size?: number }) => `${this.base}/avatars/${login}${size ? `?s=${size}` : ''}`,
      createdAt: JOINED,
      updatedAt: JOINED,
      url: `${this.base}/${login}`,
      resourcePath: `/${login}`,
      repository: ({ name }: { name: string }) => this.repo(this.ctx.repos.get(login, name)),
    };
  }

  user(u: HostingUser) {
    return {
      ...this.#owner(u.login),
      __typename: 'User',
      id: nodeIdOf('User', u.id),
      databaseId: u.id,
      name: u.name,
      email: u.email,
      bio: null,
      company: null,
      location: null,
      websiteUrl: null,
      isViewer: u.login === this.viewer,
    };
  }

  owner(login: string) {
    const u = this.ctx.state.users.get(login);
    if (u) return this.user(u);
    const id = organizationIdOf(login);
    return { ...this.#owner(login), __typename: 'Organization', id: nodeIdOf('Organization', id), databaseId: id, name: login };
  }

  /** A repository the caller may see, else null. */
  repo(r: RepoRecord | undefined) {
    if (!r || !this.ctx.visible(this.req, r)) return null;
    const key = repoKey(r);
    const store = this.ctx.issues;
    return {
      __typename: 'Repository',
      id: nodeIdOf('Repository', r.id),
      databaseId: r.id,
      name: r.name,
      nameWithOwner: `${r.owner}/${r.name}`,
      description: r.description || null,
      isPrivate: r.private,
      isFork: false,
      isArchived: false,
      isTemplate: false,
      hasIssuesEnabled: true,
      hasWikiEnabled: true,
      mergeCommitAllowed: true,
      rebaseMergeAllowed: true,
      squashMergeAllowed: true,
      parent: null,
      defaultBranchRef: () => ({
        __typename: 'Ref',
        id: Buffer.from(`03:Ref${r.id}:refs/heads/main`).toString('base64'),
        name: 'main',
        prefix: 'refs/heads/',
        repository: () => this.repo(r),
      }),
      forkCount: 0,
      stargazerCount: () => store.stargazerCount(key),
      viewerHasStarred: () => store.starred(this.viewer, key),
      stargazers: (a: Page) =>
        connection(
          store.stargazersOf(key),
          a,
          (s) => this.owner(s.login),
          (s) => ({ starredAt: apiTime(s.at) }),
        ),
      visibility: r.private ? 'PRIVATE' : 'PUBLIC',
      createdAt: apiTime(r.createdAt),
      updatedAt: apiTime(r.updatedAt),
      pushedAt: apiTime(r.pushedAt),
      url: `${this.base}/${r.owner}/${r.name}`,
      resourcePath: `/${r.owner}/${r.name}`,
      owner: () => this.owner(r.owner),
      viewerPermission: this.viewer === r.owner ? 'ADMIN' : 'READ',
      issue: ({ number }: { number: number }) => found(this.issue(store.issueOf(key, number)), `Could not resolve to an Issue with the number of ${number}.`),
      // The emulator has no pull requests: a number is an issue or nothing.
      issueOrPullRequest: ({ number }: { number: number }) =>
        found(this.issue(store.issueOf(key, number)), `Could not resolve to an issue or pull request with the number of ${number}.`),
      issues: (a: IssueArgs) => this.#issues(key, a),
      assignableUsers: (a: Page & { query?: string | null }) => this.#assignable(a),
      label: ({ name }: { name: string }) => this.label(store.labelNamed(key, name)),
      labels: (a: Page & { query?: string; orderBy?: { field: string; direction: string } }) => this.#labels(store.labelsOf(key), a),
    };
  }

  /** Anyone signed up, as REST's `assignees` accepts any user (the emulator has no collaborators); `query` matches the login or name. */
  #assignable(a: Page & { query?: string | null }) {
    const q = a.query?.toLowerCase() ?? '';
    const users = [...this.ctx.state.users.values()].filter((u) => `${u.login} ${u.name ?? ''}`.toLowerCase().includes(q));
    return connection(users, a, (u) => this.user(u));
  }

  #issues(key: string, a: IssueArgs) {
    const store = this.ctx.issues;
    const field = a.orderBy?.field ?? 'CREATED_AT';
    const by = (i: IssueRecord) => (field === 'UPDATED_AT' ? i.updatedAt : field === 'COMMENTS' ? store.commentsOf(i.id).length : i.createdAt);
    const sign = a.orderBy?.direction === 'DESC' ? -1 : 1;
    const all = store
      .issuesOf(key)
      .filter((i) => this.#matches(i, a))
      .sort((x, y) => sign * (by(x) - by(y) || x.id - y.id));
    return connection(all, a, (i) => this.issue(i));
  }

  /** Whether an issue passes `states`, `labels` (any of them) and `filterBy` (the emulator has no milestones: a milestone filter passes none). */
  #matches(i: IssueRecord, a: IssueArgs): boolean {
    const store = this.ctx.issues;
    const named = (n: string) => i.labels.some((id) => store.labels.get(id)?.name === n);
    const f = a.filterBy ?? {};
    const states = [...(a.states ?? []), ...(f.states ?? [])];
    if (states.length && !states.includes(i.state.toUpperCase())) return false;
    if (a.labels?.length && !a.labels.some(named)) return false;
    if (f.labels?.length && !f.labels.some(named)) return false;
    if (f.assignee != null && !(f.assignee === '*' ? i.assignees.length > 0 : i.assignees.includes(f.assignee))) return false;
    if (f.createdBy != null && i.author !== f.createdBy) return false;
    if (
      f.mentioned != null &&
      !new RegExp(`@${f.mentioned.replace(/[^\w-]/g, '')}\\b`, 'i').test(
        `${i.body ?? ''} ${store
          .commentsOf(i.id)
          .map((c) => c.body)
          .join(' ')}`,
      )
    )
      return false;
    if (f.milestone != null || f.milestoneNumber != null) return false;
    if (f.since != null && i.updatedAt < Date.parse(f.since)) return false;
    if (
      f.viewerSubscribed &&
      !(i.author === this.viewer || i.assignees.includes(this.viewer ?? '') || store.commentsOf(i.id).some((c) => c.author === this.viewer))
    )
      return false;
    return true;
  }

  #labels(all: LabelRecord[], a: Page & { query?: string; orderBy?: { field: string; direction: string } }) {
    const q = a.query?.toLowerCase();
    const sign = a.orderBy?.direction === 'DESC' ? -1 : 1;
    const list = all
      .filter((l) => !q || l.name.toLowerCase().includes(q) || !!l.description?.toLowerCase().includes(q))
      .sort((x, y) => sign * (a.orderBy?.field === 'NAME' ? x.name.localeCompare(y.name) : x.createdAt - y.createdAt || x.id - y.id));
    return connection(list, a, (l) => this.label(l));
  }

  /** What issues and comments share: their author, body, times and reactions. */
  #reactable(kind: 'issue' | 'comment', r: { id: number; author: string; createdAt: number; updatedAt: number }, repo: RepoRecord) {
    const subject = { kind, id: r.id };
    const store = this.ctx.issues;
    return {
      databaseId: r.id,
      author: () => this.owner(r.author),
      authorAssociation: associationOf(repo, r.author),
      createdAt: apiTime(r.createdAt),
      updatedAt: apiTime(r.updatedAt),
      viewerDidAuthor: r.author === this.viewer,
      viewerCanReact: !!this.viewer,
      viewerCanUpdate: canEdit(this.viewer, r.author, repo),
      reactions: (a: Page & { content?: string }) => {
        const all = store.reactionsOf(subject).filter((x) => !a.content || reactionEnum(x.content) === a.content);
        return { ...connection(all, a, (x) => this.reaction(x)), viewerHasReacted: all.some((x) => x.user === this.viewer) };
      },
      reactionGroups: () => this.reactionGroups(subject),
    };
  }

  reactionGroups(subject: ReactionRecord['subject']) {
    const all = this.ctx.issues.reactionsOf(subject);
    return REACTIONS.map((c) => {
      const of = all.filter((x) => x.content === c);
      return {
        content: reactionEnum(c),
        createdAt: of.length ? apiTime(of[0]!.createdAt) : null,
        subject: () => this.subject(subject),
        viewerHasReacted: of.some((x) => x.user === this.viewer),
        users: (a: Page) => this.#reactors(of, a, (u) => this.user(u)),
        reactors: (a: Page) => this.#reactors(of, a, (u) => this.owner(u.login)),
      };
    });
  }

  /** Who reacted with one emoji, oldest first, with when (`ReactionGroup.users` and `.reactors`). */
  #reactors<N>(of: ReactionRecord[], a: Page, node: (u: HostingUser) => N) {
    const by = of.flatMap((x) => {
      const u = this.ctx.state.users.get(x.user);
      return u ? [{ u, at: x.createdAt }] : [];
    });
    return connection(
      by,
      a,
      ({ u }) => node(u),
      ({ at }) => ({ reactedAt: apiTime(at) }),
    );
  }

  /** The issue or comment a reaction is on. */
  subject(s: ReactionRecord['subject']) {
    return s.kind === 'issue' ? this.issue(this.ctx.issues.issues.get(s.id)) : this.comment(this.ctx.issues.comments.get(s.id));
  }

  repoOfIssue(i: IssueRecord): RepoRecord | undefined {
    const r = this.ctx.repos.repos.get(i.repo);
    return r && this.ctx.visible(this.req, r) ? r : undefined;
  }

  issue(i: IssueRecord | undefined) {
    const r = i && this.repoOfIssue(i);
    if (!i || !r) return null;
    const store = this.ctx.issues;
    const url = `${this.base}/${r.owner}/${r.name}/issues/${i.number}`;
    return {
      ...this.#reactable('issue', i, r),
      __typename: 'Issue',
      id: nodeIdOf('Issue', i.id),
      number: i.number,
      title: i.title,
      body: i.body ?? '',
      state: i.state.toUpperCase(),
      stateReason: ({ enableDuplicate }: { enableDuplicate?: boolean }) =>
        i.stateReason === 'duplicate' && !enableDuplicate ? 'COMPLETED' : (i.stateReason?.toUpperCase() ?? null),
      closed: i.state === 'closed',
      closedAt: i.closedAt === null ? null : apiTime(i.closedAt),
      url,
      resourcePath: new URL(url).pathname,
      repository: () => this.repo(r),
      comments: (a: Page) => connection(store.commentsOf(i.id), a, (c) => this.comment(c)),
      assignees: (a: Page) => connection(i.assignees, a, (login) => this.owner(login)),
      labels: (a: Page & { orderBy?: { field: string; direction: string } }) =>
        this.#labels(
          i.labels.flatMap((id) => store.labels.get(id) ?? []),
          a,
        ),
      viewerCanClose: canClose(this.viewer, i, r),
      viewerCanReopen: canClose(this.viewer, i, r),
      viewerCanLabel: canTriage(this.viewer, r),
      // No milestones nor classic projects in the emulator.
      milestone: null,
      projectCards: (a: Page) => connection([], a, () => null),
    };
  }

  comment(c: CommentRecord | undefined) {
    const i = c && this.ctx.issues.issues.get(c.issueId);
    const r = i && this.repoOfIssue(i);
    if (!c || !i || !r) return null;
    const url = `${this.base}/${r.owner}/${r.name}/issues/${i.number}#issuecomment-${c.id}`;
    return {
      ...this.#reactable('comment', c, r),
      __typename: 'IssueComment',
      id: nodeIdOf('IssueComment', c.id),
      body: c.body,
      issue: () => this.issue(i),
      url,
      resourcePath: `/${r.owner}/${r.name}/issues/${i.number}#issuecomment-${c.id}`,
      viewerCanDelete: canEdit(this.viewer, c.author, r),
      includesCreatedEdit: c.updatedAt !== c.createdAt,
      isMinimized: false,
      minimizedReason: null,
    };
  }

  label(l: LabelRecord | undefined) {
    const r = l && this.ctx.repos.repos.get(l.repo);
    if (!l || !r || !this.ctx.visible(this.req, r)) return null;
    const path = `/${r.owner}/${r.name}/labels/${encodeURIComponent(l.name)}`;
    return {
      __typename: 'Label',
      id: nodeIdOf('Label', l.id),
      name: l.name,
      color: l.color,
      description: l.description,
      isDefault: l.isDefault,
      createdAt: apiTime(l.createdAt),
      updatedAt: apiTime(l.createdAt),
      url: `${this.base}${path}`,
      resourcePath: path,
    };
  }

  reaction(x: ReactionRecord) {
    const u = this.ctx.state.users.get(x.user);
    return {
      __typename: 'Reaction',
      id: nodeIdOf('Reaction', x.id),
      databaseId: x.id,
      content: reactionEnum(x.content),
      createdAt: apiTime(x.createdAt),
      user: u ? this.user(u) : null,
      reactable: () => this.subject(x.subject),
    };
  }

  /** `node(id)`: any object with a global id the caller may see. */
  node(id: string) {
    const n = parseNodeId(id);
    const store = this.ctx.issues;
    switch (n?.type) {
      case 'User': {
        const u = [...this.ctx.state.users.values()].find((x) => x.id === n.id);
        return u ? this.user(u) : null;
      }
      case 'Repository':
        return this.repo([...this.ctx.repos.repos.values()].find((x) => x.id === n.id));
      case 'Issue':
        return this.issue(store.issues.get(n.id));
      case 'IssueComment':
        return this.comment(store.comments.get(n.id));
      case 'Label':
        return this.label(store.labels.get(n.id));
      case 'Reaction': {
        const x = store.reactions.get(n.id);
        return x && this.subject(x.subject) ? this.reaction(x) : null;
      }
      default:
        return null;
    }
  }
}
