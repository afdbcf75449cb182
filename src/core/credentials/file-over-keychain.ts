/**
 * The 0600 file read over the keychain: where both hold an entry, the
 * file's copy is the newer one, and wins.
 *
 * Why that is so: every write that reaches the keychain removes the file's
 * copy of that entry (here, and `HostingAccounts.save` for the stores behind),
 * so a copy can be in both only when the file's was written later — while
 * the keychain could not be used (its binding would not load, the Secret
 * Service did not answer: the file fallback) or with `--insecure-storage`.
 * Read the other way round, a token refreshed during a fallback would stay
 * hidden behind the keychain's older copy once the keychain works again
 * (its refresh token already spent, the sign-in lost).
 *
 * The file's copy moves into the keychain at the next write of that entry
 * (a sign-in, a refresh, an `echo key set`): the keychain takes it, then the
 * file's copy is removed. As gh does, the last write decides where a secret
 * lives; an entry the keychain does not hold stays in the file until then.
 *
 * Two views, over the keychain store as opened (which may itself turn to the
 * file when its binding cannot load, mid-command: late-fallback.ts):
 * - `beneath`: the keychain without the entries the file holds — the first
 *   of a list of stores whose next is the file (hosting accounts, health
 *   tokens), so each entry is found once, in the store that holds the newest
 *   copy, and `auth status` names that store truthfully. It stays so after
 *   the keychain has turned to the file (what it still shows is what the
 *   opening read over D-Bus), so a listing begun before that turn and ended
 *   after it sees every entry once;
 * - `behind`: the file, next after `beneath`; a write of an entry found
 *   there (a refresh) goes to the keychain as any write does, and once the
 *   keychain has turned to this same file it deletes nothing (a write through
 *   `beneath`, which deletes the entry's copy from the stores behind, would
 *   delete what it had just written);
 * - `first`: one store of both, the file's copy first — for commands that
 *   read one store (echo keys, protocol tokens); once the keychain has
 *   turned to the file, that store alone (it reads the file first itself).
 */
import type { CredentialStore } from '../deps.js';
import type { FileCredentialStore } from './file-store.js';

/** The views of {@link fileOverKeychain}. */
export interface FileOverKeychain {
  beneath: CredentialStore;
  behind: CredentialStore;
  first: CredentialStore;
}

/** What the views share: the two stores, whether the keychain has turned to the file, what the file holds, the write. */
interface Layers {
  keychain: CredentialStore;
  file: FileCredentialStore;
  /** The keychain has turned to the file (late-fallback.ts): it reads and writes the file itself. */
  fellBack(): boolean;
  /** What the file holds now; a file that cannot be read hides nothing (its error comes where the file itself is read). */
  held(): Record<string, string>;
  /** A write: to the keychain, then (when it reached the keychain) without the file's older copy. */
  set(account: string, secret: string): Promise<void>;
}

export function fileOverKeychain(keychain: CredentialStore, file: FileCredentialStore): FileOverKeychain {
  const fellBack = () => keychain.kind === 'file';
  const held = (): Record<string, string> => {
    try {
      return file.snapshot();
    } catch {
      return {};
    }
  };
  const set = async (account: string, secret: string) => {
    await keychain.set(account, secret);
    // None in the file: no lock taken.
    if (!fellBack() && Object.hasOwn(held(), account)) await file.delete(account);
  };
  const l: Layers = { keychain, file, fellBack, held, set };
  return { beneath: beneathView(l), behind: behindView(l), first: firstView(l) };
}

function beneathView({ keychain, held, set }: Layers): CredentialStore {
  const hiding = (m: ReadonlyMap<string, string>) => {
    const hidden = held();
    return new Map([...m].filter(([a]) => !Object.hasOwn(hidden, a)));
  };
  return {
    get kind() {
      return keychain.kind;
    },
    // Whether or not the keychain has turned to the file: the file itself is the next store of the list, always.
    get: async (account) => (Object.hasOwn(held(), account) ? undefined : keychain.get(account)),
    set,
    delete: (account) => keychain.delete(account),
    list: async () => {
      const hidden = held();
      return (await keychain.list()).filter((a) => !Object.hasOwn(hidden, a));
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
    get: async (account) => (fellBack() ? keychain.get(account) : ((await file.get(account)) ?? keychain.get(account))),
    set,
    // The keychain's copy first: one that cannot be deleted (no answer) leaves both, and says so.
    delete: async (account) => {
      const fromKeychain = await keychain.delete(account);
      return (!fellBack() && (await file.delete(account))) || fromKeychain;
    },
    list: async () => [...new Set([...(await keychain.list()), ...(fellBack() ? [] : await file.list())])],
    get opened() {
      const m = keychain.opened;
      return m && (fellBack() ? m : new Map([...m, ...Object.entries(held())]));
    },
  };
}
