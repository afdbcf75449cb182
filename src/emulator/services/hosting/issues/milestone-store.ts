/**
 * A repository's milestones: numbered from 1 in each repository (apart from
 * its issues' numbers), with a title unique in it, open or closed, and a due
 * date. Issues name one by id (`IssueRecord.milestone`); the store keeps each
 * milestone's open and closed issue counts, which the issue store updates as
 * an issue is opened in one, moved, closed or reopened (so that rendering a
 * page of issues costs no scan of the repository per issue).
 */
export interface MilestoneRecord {
  id: number;
  repo: string;
  number: number;
  title: string;
  description: string | null;
  state: 'open' | 'closed';
  dueOn: number | null;
  creator: string;
  createdAt: number;
  updatedAt: number;
  closedAt: number | null;
}

/** How many issues of a milestone are open and closed. */
export interface MilestoneCounts {
  open: number;
  closed: number;
}

export type MilestoneFields = Partial<Pick<MilestoneRecord, 'title' | 'description' | 'state' | 'dueOn'>>;

export class MilestoneStore {
  readonly byId = new Map<number, MilestoneRecord>();
  readonly #byRepo = new Map<string, MilestoneRecord[]>();
  /** The last number given in each repository (a deleted milestone's number is not given again). */
  readonly #last = new Map<string, number>();
  /** Open and closed issue counts by milestone id (absent: none). */
  readonly #counts = new Map<number, MilestoneCounts>();

  constructor(
    private readonly now: () => number,
    private readonly nextId: () => number,
  ) {}

  reset(): void {
    this.byId.clear();
    this.#byRepo.clear();
    this.#last.clear();
    this.#counts.clear();
  }

  /** A milestone's open and closed issue counts. */
  counts(id: number): MilestoneCounts {
    return this.#counts.get(id) ?? { open: 0, closed: 0 };
  }

  /** Counts an issue (in `state`) in milestone `id` (`delta` 1) or no longer (-1); none (null) counts nothing. */
  tally(id: number | null, state: 'open' | 'closed', delta: 1 | -1): void {
    if (id === null) return;
    let c = this.#counts.get(id);
    if (!c) this.#counts.set(id, (c = { open: 0, closed: 0 }));
    c[state] += delta;
  }

  of(repo: string): MilestoneRecord[] {
    return this.#byRepo.get(repo) ?? [];
  }

  numbered(repo: string, number: number): MilestoneRecord | undefined {
    return this.of(repo).find((m) => m.number === number);
  }

  titled(repo: string, title: string): MilestoneRecord | undefined {
    return this.of(repo).find((m) => m.title === title);
  }

  create(repo: string, creator: string, f: MilestoneFields & { title: string }): MilestoneRecord {
    const at = this.now();
    const number = (this.#last.get(repo) ?? 0) + 1;
    this.#last.set(repo, number);
    const m: MilestoneRecord = {
      id: this.nextId(),
      repo,
      number,
      title: f.title,
      description: f.description ?? null,
      state: 'open',
      dueOn: f.dueOn ?? null,
      creator,
      createdAt: at,
      updatedAt: at,
      closedAt: null,
    };
    this.byId.set(m.id, m);
    const list = this.#byRepo.get(repo);
    if (list) list.push(m);
    else this.#byRepo.set(repo, [m]);
    this.edit(m, { state: f.state });
    return m;
  }

  edit(m: MilestoneRecord, f: MilestoneFields): void {
    const at = this.now();
    if (f.title !== undefined) m.title = f.title;
    if (f.description !== undefined) m.description = f.description;
    if (f.dueOn !== undefined) m.dueOn = f.dueOn;
    if (f.state !== undefined && f.state !== m.state) {
      m.state = f.state;
      m.closedAt = f.state === 'closed' ? at : null;
    }
    m.updatedAt = at;
  }

  delete(m: MilestoneRecord): void {
    this.byId.delete(m.id);
    this.#counts.delete(m.id);
    const list = this.of(m.repo);
    if (list.includes(m)) list.splice(list.indexOf(m), 1);
  }
}
