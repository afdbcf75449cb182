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
 * - `first`: one store of both, the file's copy first — for commands that
 *   read one store (echo keys, protocol tokens); once the keychain has
 *   turned to the file, that store alone (it reads the file first itself).
 */
import type { CredentialStore } from '../deps.js';
import type { FileCredentialStore } from './file-store.js';

/** The views of {@link fileOverKeychain}. */
export interface FileOverKeychain {
  beneath: CredentialStore;
  first: CredentialStore;
}

export function fileOverKeychain(keychain: CredentialStore, file: FileCredentialStore): FileOverKeychain {
  /** The keychain has turned to the file (late-fallback.ts): it reads and writes the file itself. */
  const fellBack = () => keychain.kind === 'file';
  /** What the file holds now; a file that cannot be read hides nothing (its error comes where the file itself is read). */
  const held = (): Record<string, string> => {
    try {
      return file.snapshot();
    } catch {
      return {};
    }
  };
  const inFile = (account: string) => Object.hasOwn(held(), account);
  /** After a write that reached the keychain, the file's older copy goes (none: no lock taken). */
  const setInKeychain = async (account: string, secret: string) => {
    await keychain.set(account, secret);
    if (!fellBack() && inFile(account)) await file.delete(account);
  };
  const without = (m: ReadonlyMap<string, string>, hidden: Record<string, string>) => new Map([...m].filter(([a]) => !Object.hasOwn(hidden, a)));
  const beneath: CredentialStore = {
    get kind() {
      return keychain.kind;
    },
    // Whether or not the keychain has turned to the file: the file itself is the next store of the list, always.
    get: async (account) => (inFile(account) ? undefined : keychain.get(account)),
    set: setInKeychain,
    delete: (account) => keychain.delete(account),
    list: async () => {
      const names = await keychain.list();
      const hidden = held();
      return names.filter((a) => !Object.hasOwn(hidden, a));
    },
    get opened() {
      const m = keychain.opened;
      return m && without(m, held());
    },
  };
  const first: CredentialStore = {
    get kind() {
      return keychain.kind;
    },
    get: async (account) => (fellBack() ? keychain.get(account) : ((await file.get(account)) ?? keychain.get(account))),
    set: setInKeychain,
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
  return { beneath, first };
}
