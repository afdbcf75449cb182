/** Repositories behind the REST endpoints that exercise the rate-limit buckets. */
export interface RepoRecord {
  id: number;
  owner: string;
  name: string;
  private: boolean;
  description: string;
  createdAt: number;
  /** When it last changed (`updated_at`, the reads' `Last-Modified`) and was last pushed to. */
  updatedAt: number;
  pushedAt: number;
}

const SEEDED: Array<Omit<RepoRecord, 'createdAt' | 'updatedAt' | 'pushedAt'>> = [
  { id: 5001, owner: 'mona', name: 'hello-world', private: false, description: 'My first repository' },
  { id: 5002, owner: 'mona', name: 'lanyard-notes', private: true, description: 'Private notes' },
  { id: 5003, owner: 'ent-corp', name: 'platform', private: false, description: 'Enterprise platform' },
];

export class RepoStore {
  readonly repos = new Map<string, RepoRecord>();
  #nextId = 6000;
  constructor(private readonly now: () => number) {
    this.reset();
  }

  reset(): void {
    this.repos.clear();
    this.#nextId = 6000;
    for (const r of SEEDED) {
      const at = this.now();
      this.repos.set(`${r.owner}/${r.name}`.toLowerCase(), { ...r, createdAt: at, updatedAt: at, pushedAt: at });
    }
  }

  get(owner: string, name: string): RepoRecord | undefined {
    return this.repos.get(`${owner}/${name}`.toLowerCase());
  }

  create(owner: string, name: string, isPrivate: boolean, description: string): RepoRecord {
    const at = this.now();
    const r = { id: this.#nextId++, owner, name, private: isPrivate, description, createdAt: at, updatedAt: at, pushedAt: at };
    this.repos.set(`${owner}/${name}`.toLowerCase(), r);
    return r;
  }
}

const repoStores = new WeakMap<object, RepoStore>();

/** The repository store of one hosting state (created on first use). */
export function reposOf(state: object, now: () => number): RepoStore {
  let s = repoStores.get(state);
  if (!s) repoStores.set(state, (s = new RepoStore(now)));
  return s;
}
