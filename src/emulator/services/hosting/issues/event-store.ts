/**
 * What happened to issues (the REST API's issue events): closed, reopened,
 * labeled, unlabeled, assigned, unassigned, milestoned, demilestoned,
 * renamed, locked, unlocked, each with who did it and when, and what it
 * named as it was then (a label's name and colour, a milestone's title).
 * Recorded by the issue store as the changes are made, through either API.
 */
export interface IssueEventRecord {
  id: number;
  issueId: number;
  repo: string;
  event: string;
  actor: string;
  createdAt: number;
  label?: { name: string; color: string };
  assignee?: string;
  milestone?: { title: string };
  rename?: { from: string; to: string };
  lockReason?: string | null;
  stateReason?: string | null;
}

export type IssueEventFields = Omit<IssueEventRecord, 'id' | 'issueId' | 'repo' | 'createdAt' | 'actor'>;

export class IssueEventStore {
  readonly byId = new Map<number, IssueEventRecord>();
  readonly #ofIssue = new Map<number, IssueEventRecord[]>();
  readonly #ofRepo = new Map<string, IssueEventRecord[]>();

  constructor(
    private readonly now: () => number,
    private readonly nextId: () => number,
  ) {}

  reset(): void {
    for (const m of [this.byId, this.#ofIssue, this.#ofRepo]) m.clear();
  }

  record(issue: { id: number; repo: string }, actor: string, f: IssueEventFields): void {
    const e: IssueEventRecord = { id: this.nextId(), issueId: issue.id, repo: issue.repo, actor, createdAt: this.now(), ...f };
    this.byId.set(e.id, e);
    for (const [m, k] of [
      [this.#ofIssue, issue.id],
      [this.#ofRepo, issue.repo],
    ] as const) {
      const list = (m as Map<typeof k, IssueEventRecord[]>).get(k);
      if (list) list.push(e);
      else (m as Map<typeof k, IssueEventRecord[]>).set(k, [e]);
    }
  }

  ofIssue(issueId: number): IssueEventRecord[] {
    return this.#ofIssue.get(issueId) ?? [];
  }

  ofRepo(repo: string): IssueEventRecord[] {
    return this.#ofRepo.get(repo) ?? [];
  }
}

/** The events of a change from `before` to `after` (labels by id, assignees by login, milestone by id, title). */
export function changeEvents(
  before: { title: string; labels: number[]; assignees: string[]; milestone: number | null },
  after: { title: string; labels: number[]; assignees: string[]; milestone: number | null },
  names: { label(id: number): { name: string; color: string } | undefined; milestone(id: number): { title: string } | undefined },
): IssueEventFields[] {
  const out: IssueEventFields[] = [];
  if (before.title !== after.title) out.push({ event: 'renamed', rename: { from: before.title, to: after.title } });
  const labelled = (event: string, ids: number[]) =>
    ids.flatMap((id) => {
      const l = names.label(id);
      return l ? [{ event, label: { name: l.name, color: l.color } }] : [];
    });
  out.push(
    ...labelled(
      'unlabeled',
      before.labels.filter((id) => !after.labels.includes(id)),
    ),
  );
  out.push(
    ...labelled(
      'labeled',
      after.labels.filter((id) => !before.labels.includes(id)),
    ),
  );
  for (const a of before.assignees.filter((x) => !after.assignees.includes(x))) out.push({ event: 'unassigned', assignee: a });
  for (const a of after.assignees.filter((x) => !before.assignees.includes(x))) out.push({ event: 'assigned', assignee: a });
  if (before.milestone !== after.milestone) {
    const was = before.milestone === null ? undefined : names.milestone(before.milestone);
    const now = after.milestone === null ? undefined : names.milestone(after.milestone);
    if (was) out.push({ event: 'demilestoned', milestone: { title: was.title } });
    if (now) out.push({ event: 'milestoned', milestone: { title: now.title } });
  }
  return out;
}
