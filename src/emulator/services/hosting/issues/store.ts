/**
 * Issues, their comments, labels and reactions, and stars: one store per
 * hosting state that the REST API and the query API both read and write, so
 * an issue opened through one is seen by the other (same ids, numbers and
 * node ids). Time comes from the injected `now()` (the emulator clock).
 */
import type { RepoRecord } from '../ratelimit/fixtures.js';
import { MilestoneStore } from './milestone-store.js';
import { changeEvents, IssueEventStore } from './event-store.js';

export type IssueState = 'open' | 'closed';
/** Why an issue was closed or reopened (REST spelling; the query API's enum is its upper case). */
export type StateReason = 'completed' | 'not_planned' | 'duplicate' | 'reopened' | null;
/** A reaction's content (REST spelling: `+1`, `-1`, `laugh`, …). */
export type ReactionContent = '+1' | '-1' | 'laugh' | 'confused' | 'heart' | 'hooray' | 'rocket' | 'eyes';
export const REACTIONS: readonly ReactionContent[] = ['+1', '-1', 'laugh', 'confused', 'heart', 'hooray', 'rocket', 'eyes'];

export interface IssueRecord {
  id: number;
  /** The repository's key (`owner/name`, lower case) and number in it. */
  repo: string;
  number: number;
  title: string;
  body: string | null;
  author: string;
  state: IssueState;
  stateReason: StateReason;
  /** Label ids, in the order they were added. */
  labels: number[];
  /** Logins of the users it is assigned to (at most 10, as the service allows). */
  assignees: string[];
  createdAt: number;
  updatedAt: number;
  closedAt: number | null;
  closedBy: string | null;
  /** Locked conversation (only those who push may comment), and why (`off-topic`, `too heated`, `resolved`, `spam`) if said. */
  locked: boolean;
  lockReason: string | null;
  /** The id of its milestone, if it has one. */
  milestone: number | null;
}

export interface CommentRecord {
  id: number;
  issueId: number;
  body: string;
  author: string;
  createdAt: number;
  updatedAt: number;
}

export interface LabelRecord {
  id: number;
  repo: string;
  name: string;
  color: string;
  description: string | null;
  isDefault: boolean;
  createdAt: number;
}

export interface ReactionRecord {
  id: number;
  subject: { kind: 'issue' | 'comment'; id: number };
  content: ReactionContent;
  user: string;
  createdAt: number;
}

/** The labels a new repository starts with (the service's defaults). */
const DEFAULT_LABELS: ReadonlyArray<[name: string, color: string, description: string]> = [
  ['bug', 'd73a4a', "Something isn't working"],
  ['documentation', '0075ca', 'Improvements or additions to documentation'],
  ['duplicate', 'cfd3d7', 'This issue or pull request already exists'],
  ['enhancement', 'a2eeef', 'New feature or request'],
  ['good first issue', '7057ff', 'Good for newcomers'],
  ['help wanted', '008672', 'Extra attention is needed'],
  ['invalid', 'e4e669', "This doesn't seem right"],
  ['question', 'd876e3', 'Further information is requested'],
  ['wontfix', 'ffffff', 'This will not be worked on'],
];

/** The most users an issue is assigned to. */
export const ASSIGNEES_MAX = 10;

export const repoKey = (r: Pick<RepoRecord, 'owner' | 'name'>) => `${r.owner}/${r.name}`.toLowerCase();

export class IssueStore {
  readonly issues = new Map<number, IssueRecord>();
  readonly comments = new Map<number, CommentRecord>();
  readonly labels = new Map<number, LabelRecord>();
  readonly reactions = new Map<number, ReactionRecord>();
  #nextId = 1;
  /** Milestones (their ids from the same sequence). */
  readonly milestones: MilestoneStore;
  /** What happened to issues (their ids from the same sequence). */
  readonly events: IssueEventStore;
  // Indexes, so that reads stay cheap after a bulk import: issues by repository and number,
  // labels and stars by repository, comments by issue, reactions by subject.
  readonly #byRepo = new Map<string, Map<number, IssueRecord>>();
  readonly #labelsOf = new Map<string, LabelRecord[]>();
  readonly #commentsOf = new Map<number, CommentRecord[]>();
  readonly #reactionsOf = new Map<string, ReactionRecord[]>();
  /** Per repository, who starred it and when. */
  readonly #stars = new Map<string, Map<string, number>>();
  /** Per repository, how many of its issues are open (kept by createIssue and setState: a listing reads it for each). */
  readonly #open = new Map<string, number>();

  constructor(private readonly now: () => number) {
    this.milestones = new MilestoneStore(now, () => this.#id());
    this.events = new IssueEventStore(now, () => this.#id());
  }

  reset(): void {
    for (const m of [
      this.issues,
      this.comments,
      this.labels,
      this.reactions,
      this.#byRepo,
      this.#labelsOf,
      this.#commentsOf,
      this.#reactionsOf,
      this.#stars,
      this.#open,
    ])
      m.clear();
    this.milestones.reset();
    this.events.reset();
    this.#nextId = 1;
  }

  #id(): number {
    return this.#nextId++;
  }

  /** A repository's labels (its defaults on first use), in the order they were made. */
  labelsOf(repo: string): LabelRecord[] {
    let own = this.#labelsOf.get(repo);
    if (!own) {
      const at = this.now();
      own = DEFAULT_LABELS.map(([name, color, description]) => ({ id: this.#id(), repo, name, color, description, isDefault: true, createdAt: at }));
      for (const l of own) this.labels.set(l.id, l);
      this.#labelsOf.set(repo, own);
    }
    return own;
  }

  /** A label of a repository by name (case-insensitive, as the service matches them). */
  labelNamed(repo: string, name: string): LabelRecord | undefined {
    return this.labelsOf(repo).find((l) => l.name.toLowerCase() === name.toLowerCase());
  }

  createLabel(repo: string, name: string, color: string, description: string | null): LabelRecord {
    const own = this.labelsOf(repo);
    const l = { id: this.#id(), repo, name, color, description, isDefault: false, createdAt: this.now() };
    this.labels.set(l.id, l);
    own.push(l);
    return l;
  }

  /** Renames, recolours or redescribes a label (the fields given). */
  editLabel(l: LabelRecord, f: { name?: string; color?: string; description?: string | null }): void {
    if (f.name !== undefined) l.name = f.name;
    if (f.color !== undefined) l.color = f.color;
    if (f.description !== undefined) l.description = f.description;
  }

  /** Deletes a milestone: gone from its repository and from every issue of it. */
  deleteMilestone(id: number): void {
    const m = this.milestones.byId.get(id);
    if (!m) return;
    this.milestones.delete(m); // and its counts
    for (const i of this.#byRepo.get(m.repo)?.values() ?? []) if (i.milestone === id) i.milestone = null;
  }

  /** Deletes a label: gone from its repository and from every issue of it. */
  deleteLabel(l: LabelRecord): void {
    this.labels.delete(l.id);
    const own = this.#labelsOf.get(l.repo) ?? [];
    if (own.includes(l)) own.splice(own.indexOf(l), 1);
    for (const i of this.#byRepo.get(l.repo)?.values() ?? []) if (i.labels.includes(l.id)) i.labels = i.labels.filter((id) => id !== l.id);
  }

  createIssue(
    repo: string,
    author: string,
    f: { title: string; body: string | null; labels?: number[]; assignees?: string[]; milestone?: number | null },
  ): IssueRecord {
    let numbered = this.#byRepo.get(repo);
    if (!numbered) this.#byRepo.set(repo, (numbered = new Map()));
    const number = numbered.size + 1;
    const at = this.now();
    const i: IssueRecord = {
      id: this.#id(),
      repo,
      number,
      title: f.title,
      body: f.body,
      author,
      state: 'open',
      stateReason: null,
      labels: [...new Set(f.labels ?? [])],
      assignees: [...new Set(f.assignees ?? [])].slice(0, ASSIGNEES_MAX),
      createdAt: at,
      updatedAt: at,
      closedAt: null,
      closedBy: null,
      locked: false,
      lockReason: null,
      milestone: f.milestone ?? null,
    };
    this.issues.set(i.id, i);
    numbered.set(number, i);
    const names = { label: (id: number) => this.labels.get(id), milestone: (id: number) => this.milestones.byId.get(id) };
    for (const e of changeEvents({ title: i.title, labels: [], assignees: [], milestone: null }, i, names)) this.events.record(i, author, e);
    this.#open.set(repo, this.openIssues(repo) + 1);
    this.milestones.tally(i.milestone, 'open', 1);
    return i;
  }

  issueOf(repo: string, number: number): IssueRecord | undefined {
    return this.#byRepo.get(repo)?.get(number);
  }

  issuesOf(repo: string): IssueRecord[] {
    return [...(this.#byRepo.get(repo)?.values() ?? [])];
  }

  /** How many of a repository's issues are open (its `open_issues_count`). */
  openIssues(repo: string): number {
    return this.#open.get(repo) ?? 0;
  }

  /** Closes or reopens an issue (a no-op when it is already so, as the service's is). */
  setState(i: IssueRecord, state: IssueState, by: string, reason: StateReason = null): void {
    if (i.state === state && (state === 'open' || reason === null || reason === i.stateReason)) return;
    const at = this.now();
    const reopening = i.state === 'closed' && state === 'open';
    if (i.state !== state) {
      this.#open.set(i.repo, this.openIssues(i.repo) + (state === 'open' ? 1 : -1));
      this.milestones.tally(i.milestone, i.state, -1);
      this.milestones.tally(i.milestone, state, 1);
    }
    i.state = state;
    i.updatedAt = at;
    if (state === 'closed') {
      i.stateReason = reason ?? 'completed';
      i.closedAt = at;
      i.closedBy = by;
    } else {
      i.stateReason = reopening ? 'reopened' : i.stateReason;
      i.closedAt = null;
      i.closedBy = null;
    }
    this.events.record(i, by, { event: state === 'closed' ? 'closed' : 'reopened', stateReason: i.stateReason });
  }

  /** Locks an issue's conversation (with a reason, or none), or unlocks it. */
  setLock(i: IssueRecord, by: string, locked: boolean, reason: string | null = null): void {
    if (locked || i.locked) this.events.record(i, by, locked ? { event: 'locked', lockReason: reason } : { event: 'unlocked' });
    i.locked = locked;
    i.lockReason = locked ? reason : null;
    i.updatedAt = this.now();
  }

  /** Changes an issue's fields (those given), recording what happened (as `by` did it). */
  edit(i: IssueRecord, by: string, f: { title?: string; body?: string | null; labels?: number[]; assignees?: string[]; milestone?: number | null }): void {
    const before = { title: i.title, labels: i.labels, assignees: i.assignees, milestone: i.milestone };
    this.#apply(i, f);
    const names = { label: (id: number) => this.labels.get(id), milestone: (id: number) => this.milestones.byId.get(id) };
    for (const e of changeEvents(before, i, names)) this.events.record(i, by, e);
  }

  #apply(i: IssueRecord, f: { title?: string; body?: string | null; labels?: number[]; assignees?: string[]; milestone?: number | null }): void {
    if (f.title !== undefined) i.title = f.title;
    if (f.milestone !== undefined && f.milestone !== i.milestone) {
      this.milestones.tally(i.milestone, i.state, -1);
      this.milestones.tally(f.milestone, i.state, 1);
      i.milestone = f.milestone;
    }
    if (f.assignees !== undefined) i.assignees = [...new Set(f.assignees)].slice(0, ASSIGNEES_MAX);
    if (f.body !== undefined) i.body = f.body;
    if (f.labels !== undefined) i.labels = [...new Set(f.labels)];
    i.updatedAt = this.now();
  }

  addComment(issue: IssueRecord, author: string, body: string): CommentRecord {
    const at = this.now();
    const c = { id: this.#id(), issueId: issue.id, body, author, createdAt: at, updatedAt: at };
    this.comments.set(c.id, c);
    const list = this.#commentsOf.get(issue.id);
    if (list) list.push(c);
    else this.#commentsOf.set(issue.id, [c]);
    issue.updatedAt = at;
    return c;
  }

  editComment(c: CommentRecord, body: string): void {
    c.body = body;
    c.updatedAt = this.now();
  }

  /** Deletes a comment and the reactions to it. */
  deleteComment(id: number): void {
    const c = this.comments.get(id);
    if (!c) return;
    this.comments.delete(id);
    const list = this.#commentsOf.get(c.issueId) ?? [];
    list.splice(list.indexOf(c), 1);
    for (const r of this.reactionsOf({ kind: 'comment', id })) this.reactions.delete(r.id);
    this.#reactionsOf.delete(`comment:${id}`);
  }

  commentsOf(issueId: number): CommentRecord[] {
    return this.#commentsOf.get(issueId) ?? [];
  }

  /** A user's reaction of one content to a subject: the existing one (and `created` false), or a new one. */
  react(subject: ReactionRecord['subject'], user: string, content: ReactionContent): { reaction: ReactionRecord; created: boolean } {
    const had = this.reactionsOf(subject).find((r) => r.user === user && r.content === content);
    if (had) return { reaction: had, created: false };
    const r = { id: this.#id(), subject, content, user, createdAt: this.now() };
    this.reactions.set(r.id, r);
    const key = `${subject.kind}:${subject.id}`;
    const list = this.#reactionsOf.get(key);
    if (list) list.push(r);
    else this.#reactionsOf.set(key, [r]);
    return { reaction: r, created: true };
  }

  /** Removes a reaction. */
  unreact(r: ReactionRecord): void {
    this.reactions.delete(r.id);
    const list = this.#reactionsOf.get(`${r.subject.kind}:${r.subject.id}`) ?? [];
    if (list.includes(r)) list.splice(list.indexOf(r), 1);
  }

  reactionsOf(subject: ReactionRecord['subject']): ReactionRecord[] {
    return this.#reactionsOf.get(`${subject.kind}:${subject.id}`) ?? [];
  }

  /** Stars a repository (idempotent). */
  star(login: string, repo: string): void {
    let of = this.#stars.get(repo);
    if (!of) this.#stars.set(repo, (of = new Map()));
    if (!of.has(login)) of.set(login, this.now());
  }

  unstar(login: string, repo: string): void {
    this.#stars.get(repo)?.delete(login);
  }

  starred(login: string | undefined, repo: string): boolean {
    return !!login && !!this.#stars.get(repo)?.has(login);
  }

  /** How many have starred a repository. */
  stargazerCount(repo: string): number {
    return this.#stars.get(repo)?.size ?? 0;
  }

  stargazersOf(repo: string): Array<{ login: string; at: number }> {
    return [...(this.#stars.get(repo) ?? [])].map(([login, at]) => ({ login, at }));
  }
}

const stores = new WeakMap<object, IssueStore>();

/** The issue store of one hosting state (created on first use). */
export function issuesOf(state: object, now: () => number): IssueStore {
  let s = stores.get(state);
  if (!s) stores.set(state, (s = new IssueStore(now)));
  return s;
}
