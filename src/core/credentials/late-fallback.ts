/**
 * The keychain whose entries were read over D-Bus while its native binding
 * was left unloaded (keychain-open.ts): the binding loads at the first call
 * that needs it (a write, a delete, a read of one entry). One that cannot
 * load then (an addon that will not map: older glibc, a noexec mount,
 * another arch's copy) turns the store into the 0600 file, as a binding
 * that failed to load while opening always did: said once through
 * `onFallback` with the same reason, the write kept in the file, never lost;
 * with the keychain required, the same CredentialStoreError instead and
 * nothing written.
 *
 * What the opening read over D-Bus stays readable behind the file, read by
 * the rule of file-over-keychain.ts: the file's entry wins where the file took
 * it in the keychain's stead (a token refreshed after the fallback is the
 * file's, and marked so), else the Secret Service's copy, else the file's. A delete takes
 * the file's copy (the keychain's, if any, stays, as a fallback while opening
 * left it); an entry only the keychain holds cannot be deleted without the
 * binding: that delete fails with nothing deleted, rather than say "logged
 * out" while the next command reads it again.
 */
import type { CredentialStore } from '../deps.js';
import { CredentialStoreError } from '../errors.js';
import { byTheRule } from './file-over-keychain.js';
import type { FileCredentialStore } from './file-store.js';
import { bindingLoadFailure, type KeychainEntry } from './keychain-binding.js';

/** What {@link lateFileFallback} needs of openCredentialStore. */
export interface LateFallbackOptions {
  /** The 0600 file store, opened as the keychain's fallback (its writes are marked so). */
  file: FileCredentialStore;
  /** What the opening read over D-Bus. */
  entries: readonly KeychainEntry[];
  /** Told why, once, at the fallback. */
  onFallback?: (why: string) => void;
  /** The keychain is required: the error to throw instead of falling back. */
  required?: (why: string) => CredentialStoreError;
}

/** The keychain store, turning to the file when its binding cannot load (see the module's comment). */
export function lateFileFallback(keychain: CredentialStore, o: LateFallbackOptions): CredentialStore {
  const read = new Map(o.entries.map((e) => [e.account, e.password]));
  let fellBack = false;
  /** Runs `viaKeychain` until the binding fails to load; then, and from then on, `viaFile`. */
  const either = async <T>(viaKeychain: () => Promise<T>, viaFile: () => Promise<T>): Promise<T> => {
    if (!fellBack) {
      try {
        return await viaKeychain();
      } catch (err) {
        const unloadable = bindingLoadFailure(err);
        if (!unloadable) throw err;
        const why = `the OS keychain is unavailable (${unloadable.message})`;
        if (o.required) throw o.required(why);
        if (!fellBack) o.onFallback?.(why);
        fellBack = true;
      }
    }
    return viaFile();
  };
  const { file } = o;
  return {
    get kind() {
      return fellBack ? file.kind : keychain.kind;
    },
    get opened() {
      return fellBack ? undefined : keychain.opened;
    },
    get: (account) =>
      either(
        () => keychain.get(account),
        () => byTheRule(file.contents(), account, () => read.get(account)),
      ),
    set: (account, secret) =>
      either(
        () => keychain.set(account, secret),
        () => file.set(account, secret),
      ),
    delete: (account) =>
      either(
        () => keychain.delete(account),
        async () => {
          if (await file.delete(account)) return true;
          if (read.has(account))
            throw new CredentialStoreError(`the OS keychain holds ${account} and its binding could not be loaded to delete it: nothing was deleted`, {
              remedy: { kind: 'keychain-binding' },
            });
          return false;
        },
      ),
    list: () =>
      either(
        () => keychain.list(),
        async () => [...new Set([...(await file.list()), ...read.keys()])],
      ),
  };
}
