/**
 * A repository's milestones: numbered from 1 in each repository (apart from
 * its issues' numbers), with a title unique in it, open or closed, and a due
 * date. Issues name one by id (`IssueRecord.milestone`); its open and closed
 * issue counts come from them.
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

export type MilestoneFields = Partial<Pick<MilestoneRecord, 'title' | 'description' | 'state' | 'dueOn'>>;

export class MilestoneStore {
  readonly byId = new Map<number, MilestoneRecord>();
  readonly #byRepo = new Map<string, MilestoneRecord[]>();
  /** The last number given in each repository (a deleted milestone's number is not given again). */
  readonly #last = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    private readonly nextId: () => number,
  ) {}

  reset(): void {
    this.byId.clear();
    this.#byRepo.clear();
    this.#last.clear();
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
    const list = this.of(m.repo);
    if (list.includes(m)) list.splice(list.indexOf(m), 1);
  }
}
