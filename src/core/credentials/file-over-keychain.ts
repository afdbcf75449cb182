/**
 * The 0600 file read over the keychain: where both hold an entry, the
 * keychain's copy is used, unless the file took that entry in the keychain's
 * stead — written while the keychain could not be used (its binding would
 * not load, the Secret Service did not answer: the file fallback), which
 * marks it in the file (file-store.ts). Such a copy is the newer one, and
 * wins: every write that reaches the keychain removes a marked copy (here,
 * and `HostingAccounts.save` for the stores behind), so a marked copy is in
 * both only when it was written later. Read the other way round, a token
 * refreshed during a fallback would stay hidden behind the keychain's older
 * copy once the keychain works again (its refresh token already spent, the
 * sign-in lost).
 *
 * An entry without the mark — written by a file store chosen on purpose
 * (insecure storage asked for, the keychain disabled), or by a release before
 * the mark — tells nothing of its age: releases before the mark wrote the
 * keychain without removing the file's copy. There the keychain's copy wins,
 * as it always did; the file's is read only where the keychain holds none.
 * The one rule is {@link fileCopyWins}; late-fallback.ts reads by it too.
 *
 * Marked copies move into the keychain once it works again: at the next
 * write that reaches it (of any entry: a sign-in, a refresh, an `echo key
 * set`), and when `lanyard doctor` finds it usable ({@link FileOverKeychain}
 * `moveMarked`) — never on a read, so commands that only read pay nothing (one
 * read of the small file, as before). Each copy is written to the keychain and
 * read back; only then is the file's copy taken out, with its mark, and only
 * if the file still holds that same value (a newer copy written meanwhile
 * stays, and wins). A crash at any step leaves a copy that reads the same:
 * the file's (marked, winning) until it is taken out, the keychain's after. A
 * write of a marked entry, and every move, hold the lock `keychain-move`, so
 * a move never writes an older copy over another process's newer write; with
 * nothing marked (the usual case) a write takes no lock of the file's.
 *
 * A marked copy can be older than the keychain's after all: a release before
 * the mark, run between (a downgrade, then an upgrade), wrote the keychain and
 * left the file as it was. Where both copies are records that say when they
 * were made ({@link madeAt}: a hosting account's `createdAt`, a protocol
 * server's `obtainedAt`) a move compares them: a marked copy made before the
 * keychain's is not moved but taken out of the file (`stale`), so the
 * keychain's newer one is read from then on. Reads still go by the mark alone
 * until then (no keychain read on the read path); copies that say nothing of
 * their time (an echo key) move as marked.
 *
 * Views over the keychain store as opened (which may itself turn to the
 * file when its binding cannot load, mid-command: late-fallback.ts):
 * - `beneath`: the keychain without the entries whose file copy wins — the
 *   first of a list of stores whose next is the file (hosting accounts,
 *   health tokens), so each entry is found first in the store whose copy is
 *   used, and `auth status` names that store truthfully. It stays so after
 *   the keychain has turned to the file (what it still shows is what the
 *   opening read over D-Bus), so a listing begun before that turn and ended
 *   after it sees every entry once;
 * - `behind`: the file, next after `beneath`; a write of an entry found
 *   there (a refresh) goes to the keychain as any write does, and once the
 *   keychain has turned to this same file it deletes nothing (a write through
 *   `beneath`, which deletes the entry's copy from the stores behind, would
 *   delete what it had just written);
 * - `first`: one store of both, by the rule — for commands that read one
 *   store (echo keys, protocol tokens); once the keychain has turned to the
 *   file, that store alone (it reads by the rule itself). Where a value came
 *   from is where a lookup through `beneath`, `behind` finds it.
 */
import type { CredentialStore } from '../deps.js';
import type { FileContents, FileCredentialStore } from './file-store.js';

/** The lock of a write of a marked entry and of a move (see the module's comment); taken before the keychain's and the file's. */
const MOVE_LOCK = 'keychain-move';

/** What a move of the file's marked copies into the keychain did. */
export interface MarkedMove {
  /** Entries the keychain took (read back the same), now out of the file. */
  moved: string[];
  /** Marked entries still in the file: the keychain did not take them (an error, a copy that read back otherwise). */
  left: string[];
  /** Marked copies made before the keychain's (see {@link madeAt}): taken out of the file, the keychain's kept. */
  stale: string[];
}

/** When a stored record says it was made (epoch ms): a hosting account's `createdAt`, a protocol server's `obtainedAt`; else undefined. */
export function madeAt(secret: string | undefined): number | undefined {
  if (!secret?.startsWith('{')) return undefined;
  try {
    const r = JSON.parse(secret) as { createdAt?: unknown; obtainedAt?: unknown };
    const t = typeof r.createdAt === 'string' ? Date.parse(r.createdAt) : typeof r.obtainedAt === 'number' ? r.obtainedAt : Number.NaN;
    return Number.isFinite(t) ? t : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the keychain's copy says it was made after the file's (both say when). */
const keychainNewer = (file: string, keychain: string | undefined): boolean => {
  const [f, k] = [madeAt(file), madeAt(keychain)];
  return f !== undefined && k !== undefined && k > f;
};

/** Whether the file's copy of `account` is read over the keychain's: only one the file took in the keychain's stead. */
export function fileCopyWins(file: FileContents, account: string): boolean {
  return file.fallback.has(account) && Object.hasOwn(file.entries, account);
}

/** The value of `account` by the rule: the file's copy that wins, else the keychain's (`fromKeychain`), else the file's. */
export async function byTheRule(
  file: FileContents,
  account: string,
  fromKeychain: () => Promise<string | undefined> | string | undefined,
): Promise<string | undefined> {
  if (fileCopyWins(file, account)) return file.entries[account];
  return (await fromKeychain()) ?? file.entries[account];
}

/** The entries `file` holds, as {@link byTheRule} reads them over `keychain`'s. */
export function overlaid(file: FileContents, keychain: ReadonlyMap<string, string>): Map<string, string> {
  const winning = Object.entries(file.entries).filter(([a]) => fileCopyWins(file, a));
  return new Map([...Object.entries(file.entries), ...keychain, ...winning]);
}

/** The views of {@link fileOverKeychain}. */
export interface FileOverKeychain {
  beneath: CredentialStore;
  behind: CredentialStore;
  first: CredentialStore;
  /** Moves the file's marked copies into the keychain, now (`lanyard doctor`); nothing once the keychain has turned to the file. */
  moveMarked(): Promise<MarkedMove>;
}

/** What the views share: the two stores, whether the keychain has turned to the file, what the file holds, the write. */
interface Layers {
  keychain: CredentialStore;
  file: FileCredentialStore;
  /** The keychain has turned to the file (late-fallback.ts): it reads and writes the file itself. */
  fellBack(): boolean;
  /** What the file holds now; a file that cannot be read holds nothing here (its error comes where the file itself is read). */
  held(): FileContents;
  /** A write: to the keychain, then (when it reached the keychain) without the file's copy that won over it. */
  set(account: string, secret: string): Promise<void>;
}

export function fileOverKeychain(keychain: CredentialStore, file: FileCredentialStore): FileOverKeychain {
  const fellBack = () => keychain.kind === 'file';
  const held = (): FileContents => {
    try {
      return file.contents();
    } catch {
      return { entries: {}, fallback: new Set() };
    }
  };
  const set = async (account: string, secret: string) => {
    // Nothing marked, the usual case: the keychain alone, no lock of the file's. A copy that does not win is left as it is.
    if (fellBack() || !held().fallback.size) return keychain.set(account, secret);
    await file.lock.withLock(MOVE_LOCK, async () => {
      const seen = held();
      await keychain.set(account, secret);
      if (fellBack()) return;
      // This entry's marked copy is older than what the keychain has just taken; the others move with it.
      await moveLocked({ keychain, file, fellBack }, seen, fileCopyWins(seen, account) ? new Map([[account, seen.entries[account]!]]) : new Map());
    });
  };
  const moveMarked = async (): Promise<MarkedMove> => {
    const none = { moved: [], left: [], stale: [] };
    if (fellBack() || !held().fallback.size) return none;
    return file.lock.withLock(MOVE_LOCK, async () => (fellBack() ? none : moveLocked({ keychain, file, fellBack }, held(), new Map())));
  };
  const l: Layers = { keychain, file, fellBack, held, set };
  return { beneath: beneathView(l), behind: behindView(l), first: firstView(l), moveMarked };
}

/**
 * Under {@link MOVE_LOCK}: each marked copy of `seen` (but those of `done`,
 * already superseded in the keychain) written to the keychain and read back;
 * then every one the keychain holds the same, and those of `done`, taken out
 * of the file where unchanged. The first failure ends the moves: what is left
 * stays marked in the file, read first as before, for the next write.
 */
async function moveLocked(l: Pick<Layers, 'keychain' | 'file' | 'fellBack'>, seen: FileContents, done: Map<string, string>): Promise<MarkedMove> {
  const waiting = [...seen.fallback].filter((a) => !done.has(a));
  const taken: string[] = [];
  const stale: string[] = [];
  for (const account of waiting) {
    const secret = seen.entries[account]!;
    try {
      if (madeAt(secret) !== undefined && keychainNewer(secret, await l.keychain.get(account))) {
        stale.push(account);
        done.set(account, secret);
        continue;
      }
      await l.keychain.set(account, secret);
      // Turned to the file (its binding would not load): the copy was written back to where it was.
      if (l.fellBack() || (await l.keychain.get(account)) !== secret) break;
    } catch {
      break;
    }
    done.set(account, secret);
    taken.push(account);
  }
  // A file that cannot be written now keeps copies that read the same as the keychain's: moved at the next try.
  const out = new Set(await l.file.takeOut(done).catch(() => [] as string[]));
  return { moved: taken.filter((a) => out.has(a)), left: [...seen.fallback].filter((a) => !out.has(a)), stale: stale.filter((a) => out.has(a)) };
}

function beneathView({ keychain, held, set }: Layers): CredentialStore {
  const hiding = (m: ReadonlyMap<string, string>) => {
    const hidden = held();
    return new Map([...m].filter(([a]) => !fileCopyWins(hidden, a)));
  };
  return {
    get kind() {
      return keychain.kind;
    },
    // Whether or not the keychain has turned to the file: the file itself is the next store of the list, always.
    get: async (account) => (fileCopyWins(held(), account) ? undefined : keychain.get(account)),
    set,
    delete: (account) => keychain.delete(account),
    list: async () => {
      const hidden = held();
      return (await keychain.list()).filter((a) => !fileCopyWins(hidden, a));
    },
    get opened() {
      const m = keychain.opened;
      return m && hiding(m);
    },
  };
}

function behindView({ file, fellBack, set }: Layers): CredentialStore {
  return {
    kind: file.kind,
    get: (account) => file.get(account),
    set,
    delete: async (account) => !fellBack() && file.delete(account),
    list: () => file.list(),
  };
}

function firstView({ keychain, file, fellBack, held, set }: Layers): CredentialStore {
  return {
    get kind() {
      return keychain.kind;
    },
    get: (account) => (fellBack() ? keychain.get(account) : byTheRule(held(), account, () => keychain.get(account))),
    set,
    // The keychain's copy first: one that cannot be deleted (no answer) leaves both, and says so.
    delete: async (account) => {
      const fromKeychain = await keychain.delete(account);
      return (!fellBack() && (await file.delete(account))) || fromKeychain;
    },
    list: async () => [...new Set([...(await keychain.list()), ...(fellBack() ? [] : await file.list())])],
    get opened() {
      const m = keychain.opened;
      return m && (fellBack() ? m : overlaid(held(), m));
    },
  };
}
