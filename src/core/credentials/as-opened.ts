/**
 * A store read as it was opened, for listings (`auth status`): its reads come
 * from what the store read when it was opened, where it kept that (the
 * keychain: one search over D-Bus for every entry), instead of one keychain
 * call each — which on Linux loads the native binding and makes its own
 * D-Bus connection and key exchange for every secret. A store that keeps
 * nothing is asked as usual. Writes and deletes go to the store.
 */
import type { CredentialStore } from '../deps.js';

export function readAsOpened(store: CredentialStore): CredentialStore {
  return {
    kind: store.kind,
    async get(account) {
      const opened = store.opened;
      return opened ? opened.get(account) : store.get(account);
    },
    set: (account, secret) => store.set(account, secret),
    delete: (account) => store.delete(account),
    list: () => store.list(),
    get opened() {
      return store.opened;
    },
  };
}

/**
 * The kind of the first of `stores` holding `account`, each read as opened:
 * where a lookup through them (the credential port's lookup(), each entry
 * found first in the store whose copy is used) finds it; undefined when none does.
 */
export async function holderKind(stores: readonly CredentialStore[], account: string): Promise<string | undefined> {
  for (const s of stores) if ((await readAsOpened(s).get(account)) !== undefined) return s.kind;
  return undefined;
}
