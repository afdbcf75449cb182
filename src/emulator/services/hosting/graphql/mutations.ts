/**
 * The common mutations of the query API on issues, comments, labels,
 * reactions and stars, over the store the REST API shares. Each takes its
 * published `input` and answers its published payload (echoing
 * `clientMutationId`); the errors keep the service's `type`s: `NOT_FOUND`
 * for an id that resolves to nothing the caller may see (or to the wrong
 * kind of object), `FORBIDDEN` for a caller without the permission,
 * `UNPROCESSABLE` for a title or body the service refuses.
 */
import { GraphQLError } from 'graphql';
import { parseNodeId, type NodeType } from '../repository.js';
import type { RepoRecord } from '../ratelimit/fixtures.js';
import { canClose, canEdit, canTriage, invalidText } from '../issues/rules.js';
import { type IssueRecord, type ReactionRecord, repoKey, type StateReason } from '../issues/store.js';
import { type QueryObjects, reactionOf } from './objects.js';

type Input = Record<string, unknown> & { clientMutationId?: string | null };
type Mutation = (args: { input: Input }) => Record<string, unknown>;

const typed = (type: string, message: string) => new GraphQLError(message, { extensions: { type } });
const unresolved = (id: unknown) => typed('NOT_FOUND', `Could not resolve to a node with the global id of '${String(id)}'.`);

/** The mutations, as root fields, for one request's caller. */
export function mutationsFor(o: QueryObjects): Record<string, Mutation> {
  const h = helpersFor(o);
  return { ...issueMutations(h), ...labelMutations(h), ...commentMutations(h), ...reactionMutations(h) };
}

/** What the mutations share: the caller, the refusals, and the records global ids name. */
function helpersFor(o: QueryObjects): Helpers {
  const { issues: store, repos } = o.ctx;
  const login = (): string => {
    if (!o.viewer) throw typed('FORBIDDEN', 'Resource not accessible by integration');
    return o.viewer;
  };
  const refuse = (name: string) => typed('FORBIDDEN', `${login()} does not have the correct permissions to execute \`${name}\``);
  const check = (f: { title?: string | null; body?: string | null }, required: { titleRequired?: boolean; bodyRequired?: boolean } = {}) => {
    const why = invalidText(f, required);
    if (why) throw typed('UNPROCESSABLE', why);
  };
  /** The record a global id names, if it is of one of `types` and the caller may see it. */
  const resolve = (id: unknown, ...types: NodeType[]) => {
    const n = typeof id === 'string' ? parseNodeId(id) : undefined;
    const found = n && types.includes(n.type) ? o.node(id as string) : null;
    if (!found) throw unresolved(id);
    return n!;
  };
  const repoById = (id: unknown): RepoRecord => {
    const n = resolve(id, 'Repository');
    return [...repos.repos.values()].find((r) => r.id === n.id)!;
  };
  const issueById = (id: unknown): { i: IssueRecord; r: RepoRecord } => {
    const i = store.issues.get(resolve(id, 'Issue').id)!;
    return { i, r: o.repoOfIssue(i)! };
  };
  /** Labels of the repository by global id (one of another repository resolves to nothing). */
  const labelsById = (ids: unknown, r: RepoRecord): number[] =>
    ((ids as string[] | null | undefined) ?? []).map((id) => {
      const l = store.labels.get(resolve(id, 'Label').id)!;
      if (l.repo !== repoKey(r)) throw unresolved(id);
      return l.id;
    });
  /** Ids of objects the emulator has none of (milestones, projects): given, they resolve to nothing, as an unknown id does. */
  const none = (input: Input, ...fields: string[]) => {
    for (const f of fields) for (const id of [input[f]].flat()) if (id != null) throw unresolved(id);
  };
  const usersById = (ids: unknown): string[] =>
    ((ids as string[] | null | undefined) ?? []).map((id) => {
      const n = resolve(id, 'User');
      return [...o.ctx.state.users.values()].find((u) => u.id === n.id)!.login;
    });
  const subjectOf = (id: unknown): ReactionRecord['subject'] => {
    const n = resolve(id, 'Issue', 'IssueComment');
    return { kind: n.type === 'Issue' ? 'issue' : 'comment', id: n.id };
  };
  const echo = (input: Input) => ({ clientMutationId: input.clientMutationId ?? null });
  return { o, login, refuse, check, resolve, repoById, issueById, labelsById, usersById, none, subjectOf, echo };
}

/** Comments: add, update, delete. */
function commentMutations(h: Helpers): Record<string, Mutation> {
  const { o, login, refuse, check, resolve, issueById, echo } = h;
  const store = o.ctx.issues;
  return {
    addComment: ({ input }) => {
      const { i, r } = issueById(input.subjectId);
      // A locked conversation takes comments only from those who push (REST: 403 with the same words).
      if (i.locked && !canTriage(login(), r)) throw typed('FORBIDDEN', 'Unable to create comment because issue is locked.');
      const body = input.body as string;
      check({ body }, { bodyRequired: true });
      const c = store.addComment(i, login(), body);
      const cursor = Buffer.from(`cursor:v2:${store.commentsOf(i.id).length - 1}`).toString('base64');
      return { ...echo(input), commentEdge: { cursor, node: o.comment(c) }, subject: o.issue(i) };
    },
    updateIssueComment: ({ input }) => {
      const c = store.comments.get(resolve(input.id, 'IssueComment').id)!;
      const r = o.repoOfIssue(store.issues.get(c.issueId)!)!;
      if (!canEdit(login(), c.author, r)) throw refuse('UpdateIssueComment');
      check({ body: input.body as string }, { bodyRequired: true });
      store.editComment(c, input.body as string);
      return { ...echo(input), issueComment: o.comment(c) };
    },
    deleteIssueComment: ({ input }) => {
      const c = store.comments.get(resolve(input.id, 'IssueComment').id)!;
      if (!canEdit(login(), c.author, o.repoOfIssue(store.issues.get(c.issueId)!)!)) throw refuse('DeleteIssueComment');
      store.deleteComment(c.id);
      return echo(input);
    },
  };
}

/** Reactions on issues and comments, and stars on repositories. */
function reactionMutations(h: Helpers): Record<string, Mutation> {
  const { o, login, repoById, subjectOf, echo } = h;
  const store = o.ctx.issues;
  const answer = (input: Input, subject: ReactionRecord['subject'], x: ReactionRecord | undefined) => ({
    ...echo(input),
    reaction: x ? o.reaction(x) : null,
    reactionGroups: o.reactionGroups(subject),
    subject: o.subject(subject),
  });
  return {
    addReaction: ({ input }) => {
      const subject = subjectOf(input.subjectId);
      return answer(input, subject, store.react(subject, login(), reactionOf(input.content as string)).reaction);
    },
    removeReaction: ({ input }) => {
      const subject = subjectOf(input.subjectId);
      const had = store.reactionsOf(subject).find((x) => x.user === login() && x.content === reactionOf(input.content as string));
      if (had) store.unreact(had);
      return answer(input, subject, had);
    },
    addStar: ({ input }) => {
      const r = repoById(input.starrableId);
      store.star(login(), repoKey(r));
      return { ...echo(input), starrable: o.repo(r) };
    },
    removeStar: ({ input }) => {
      const r = repoById(input.starrableId);
      store.unstar(login(), repoKey(r));
      return { ...echo(input), starrable: o.repo(r) };
    },
  };
}

interface Helpers {
  o: QueryObjects;
  login(): string;
  refuse(name: string): GraphQLError;
  check(f: { title?: string | null; body?: string | null }, required?: { titleRequired?: boolean; bodyRequired?: boolean }): void;
  repoById(id: unknown): RepoRecord;
  issueById(id: unknown): { i: IssueRecord; r: RepoRecord };
  resolve(id: unknown, ...types: NodeType[]): { type: NodeType; id: number };
  subjectOf(id: unknown): ReactionRecord['subject'];
  labelsById(ids: unknown, r: RepoRecord): number[];
  usersById(ids: unknown): string[];
  none(input: Input, ...fields: string[]): void;
  echo(input: Input): { clientMutationId: string | null };
}

/** The mutations of an issue itself: create, update, close, reopen. */
function issueMutations(h: Helpers): Record<string, Mutation> {
  const { o, login, refuse, check, repoById, issueById, labelsById, usersById, none, echo } = h;
  const store = o.ctx.issues;
  return {
    createIssue: ({ input }) => {
      const r = repoById(input.repositoryId);
      const author = login();
      check({ title: input.title as string, body: input.body as string | null }, { titleRequired: true });
      none(input, 'milestoneId', 'projectIds');
      // A parent issue must exist (sub-issues themselves are not modelled); assignees must be users.
      if (input.parentIssueId != null) issueById(input.parentIssueId);
      // As in REST, labels and assignees from a user who cannot triage are dropped.
      const triage = canTriage(author, r);
      const labels = triage ? labelsById(input.labelIds, r) : [];
      const assignees = triage ? usersById(input.assigneeIds) : [];
      const i = store.createIssue(repoKey(r), author, { title: input.title as string, body: (input.body as string | null) ?? null, labels, assignees });
      return { ...echo(input), issue: o.issue(i) };
    },
    updateIssue: ({ input }) => {
      const { i, r } = issueById(input.id);
      if (!canEdit(login(), i.author, r)) throw refuse('UpdateIssue');
      check({ title: input.title as string | undefined, body: input.body as string | null | undefined });
      if (input.title !== undefined && !String(input.title ?? '').trim()) throw typed('UNPROCESSABLE', "Title can't be blank");
      none(input, 'milestoneId', 'projectIds');
      const triage = canTriage(login(), r);
      const labels = input.labelIds != null && triage ? labelsById(input.labelIds, r) : undefined;
      const assignees = input.assigneeIds != null && triage ? usersById(input.assigneeIds) : undefined;
      store.edit(i, login(), { title: (input.title as string | undefined) ?? undefined, body: input.body as string | null | undefined, labels, assignees });
      if (input.state === 'OPEN' || input.state === 'CLOSED') store.setState(i, input.state === 'OPEN' ? 'open' : 'closed', login());
      return { ...echo(input), actor: o.owner(login()), issue: o.issue(i) };
    },
    closeIssue: ({ input }) => {
      const { i, r } = issueById(input.issueId);
      if (!canClose(login(), i, r)) throw refuse('CloseIssue');
      if (input.duplicateIssueId != null) issueById(input.duplicateIssueId);
      const reason = input.duplicateIssueId != null ? 'duplicate' : ((input.stateReason as string | null)?.toLowerCase() ?? 'completed');
      store.setState(i, 'closed', login(), reason as StateReason);
      return { ...echo(input), issue: o.issue(i) };
    },
    reopenIssue: ({ input }) => {
      const { i, r } = issueById(input.issueId);
      if (!canClose(login(), i, r)) throw refuse('ReopenIssue');
      store.setState(i, 'open', login());
      return { ...echo(input), issue: o.issue(i) };
    },
  };
}

/** An issue's labels, and a repository's new label. */
function labelMutations(h: Helpers): Record<string, Mutation> {
  const { o, login, refuse, repoById, issueById, labelsById, echo } = h;
  const store = o.ctx.issues;
  const labelable = (name: string, input: Input) => {
    const { i, r } = issueById(input.labelableId);
    if (!canTriage(login(), r)) throw refuse(name);
    return { i, ids: labelsById(input.labelIds, r) };
  };
  return {
    addLabelsToLabelable: ({ input }) => {
      const { i, ids } = labelable('AddLabelsToLabelable', input);
      store.edit(i, login(), { labels: [...i.labels, ...ids] });
      return { ...echo(input), labelable: o.issue(i) };
    },
    removeLabelsFromLabelable: ({ input }) => {
      const { i, ids } = labelable('RemoveLabelsFromLabelable', input);
      store.edit(i, login(), { labels: i.labels.filter((id) => !ids.includes(id)) });
      return { ...echo(input), labelable: o.issue(i) };
    },
    createLabel: ({ input }) => {
      const r = repoById(input.repositoryId);
      if (!canTriage(login(), r)) throw refuse('CreateLabel');
      const name = String(input.name ?? '');
      if (!name.trim()) throw typed('UNPROCESSABLE', "Name can't be blank");
      if (store.labelNamed(repoKey(r), name)) throw typed('UNPROCESSABLE', 'Name has already been taken');
      const color = String(input.color ?? '').replace(/^#/, '');
      if (!/^[0-9a-f]{6}$/i.test(color)) throw typed('UNPROCESSABLE', 'Color is invalid');
      const l = store.createLabel(repoKey(r), name, color.toLowerCase(), (input.description as string | null) ?? null);
      return { ...echo(input), label: o.label(l) };
    },
  };
}
