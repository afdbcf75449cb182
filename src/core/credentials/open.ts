/**
 * Chooses the credential store: the OS keychain when it works, else (or with
 * insecure storage chosen up front) the 0600 file, reporting why. Over a
 * keychain, the 0600 file's entries (written while the keychain could not be
 * used) are read first: their copies are the newer (file-over-keychain.ts).
 */
import { stringOption } from '../options.js';
import type { CredentialStore } from '../deps.js';
import { CredentialStoreError } from '../errors.js';
import { type FileOverKeychain, fileOverKeychain } from './file-over-keychain.js';
import { FileCredentialStore } from './file-store.js';
import { type KeychainOpening, startKeychainOpen } from './keychain-open.js';
import { KeychainCredentialStore } from './keychain-store.js';
import { lateFileFallback } from './late-fallback.js';
import { type CredentialLock, FileLock } from './lock.js';

export interface OpenCredentialStoreOptions {
  /** Where the file fallback lives: the config directory. */
  configDir: string;
  /** Use the file store up front (--insecure-storage). */
  insecure?: boolean;
  /** Never try the keychain. */
  disableKeychain?: boolean;
  /**
   * The keychain must be used (LANYARD_KEYCHAIN=required): never fall back to
   * the file; when the keychain cannot be used, a CredentialStoreError with the reason.
   */
  requireKeychain?: boolean;
  /** What requires it, in the caller's words, named in that error (`LANYARD_KEYCHAIN=required`, a profile's setting). */
  requiredBy?: string;
  timeoutMs?: number;
  /**
   * The session bus address (DBUS_SESSION_BUS_ADDRESS) on Linux: the entries
   * are read from the Secret Service there, and a service that does not
   * answer is treated as unavailable without calling the native binding (see
   * secret-service.ts and dbus-connection.ts for why).
   */
  sessionBus?: string;
  /**
   * An opening of the keychain already under way (`startKeychainOpen`), to use
   * instead of starting one; ignored when the keychain is not to be used.
   */
  keychain?: KeychainOpening;
  /** The config directory's lock, shared by every writer of the process (default: one of its own). */
  lock?: CredentialLock;
  /**
   * Told why the keychain was not used (the CLI prints a visible warning):
   * while opening, or later, at most once, when a keychain read over D-Bus
   * finds at its first write that its binding cannot load (the store then
   * keeps credentials in the file).
   */
  onFallback?: (why: string) => void;
  /**
   * Called once nothing is left for this process to do until the store is
   * open: the keychain's opening search has been sent (it runs on the
   * binding's own thread), or the file store was chosen. Work that only
   * needs CPU can start then without delaying the search.
   */
  onWaiting?: () => void;
}

/**
 * Opens the credential store: the OS keychain, else the 0600 file. Over the
 * keychain (unless it is required, when the file is never read) one store of
 * both: an entry the file holds is read from the file (a copy written there
 * during a fallback is newer than the keychain's), a write goes to the
 * keychain and removes the file's copy, a listing holds both.
 */
export async function openCredentialStore(o: OpenCredentialStoreOptions): Promise<CredentialStore> {
  const opened = await openCredentialStores(o);
  return opened.layered?.first ?? opened.primary;
}

/** The stores {@link openCredentialStore} opens, for callers that read them apart (the CLI's lookup). */
export interface OpenedCredentialStores {
  /** The OS keychain as opened (it may turn to the file later: late-fallback.ts), else the 0600 file. */
  primary: CredentialStore;
  /** The 0600 file (`primary` itself when that is the file). */
  file: FileCredentialStore;
  /** Over a keychain that is not required: the file's newer copies over it (file-over-keychain.ts). */
  layered?: FileOverKeychain;
}

export async function openCredentialStores(o: OpenCredentialStoreOptions): Promise<OpenedCredentialStores> {
  stringOption(o.configDir, 'configDir');
  const lock = o.lock ?? new FileLock(o.configDir);
  const file = FileCredentialStore.inDir(o.configDir, lock);
  const primary = await openPrimary(o, lock, file);
  // A required keychain never reads the file; a primary that is the file has nothing beneath it.
  if (primary.kind === 'file' || o.requireKeychain) return { primary, file };
  return { primary, file, layered: fileOverKeychain(primary, file) };
}

async function openPrimary(o: OpenCredentialStoreOptions, lock: CredentialLock, file: FileCredentialStore): Promise<CredentialStore> {
  // One lock for the file and the keychain (`lock`): every writer of the process shares it.
  if (o.requireKeychain && (o.insecure || o.disableKeychain)) {
    throw keychainRequired(o.insecure ? 'insecure storage (a 0600 file) was asked for' : 'the keychain is also disabled', o.requiredBy);
  }
  if (o.insecure) {
    o.onFallback?.('insecure storage chosen');
    o.onWaiting?.();
    return file;
  }
  if (o.disableKeychain) {
    o.onFallback?.('the keychain is disabled');
    o.onWaiting?.();
    return file;
  }
  const opening = o.keychain ?? startKeychainOpen({ sessionBus: o.sessionBus, timeoutMs: o.timeoutMs });
  if (o.onWaiting) opening.sent.then(o.onWaiting);
  const r = await opening.result;
  // The file in the keychain's stead: its writes are marked so, and win over the keychain's older copies (file-over-keychain.ts).
  const fallback = FileCredentialStore.inDir(o.configDir, lock, { fallback: true });
  if (!r.ok) {
    if (o.requireKeychain) throw keychainRequired(`the OS keychain is unavailable (${r.reason})`, o.requiredBy);
    o.onFallback?.(`the OS keychain is unavailable (${r.reason})`);
    return fallback;
  }
  const keychain = KeychainCredentialStore.fromOpening(r.binding, r.entries, { timeoutMs: o.timeoutMs, lock });
  // Entries read over D-Bus: the binding may load only now, at the first write; one that cannot turns to the file then.
  if (r.via !== 'secret-service') return keychain;
  return lateFileFallback(keychain, {
    file: fallback,
    entries: r.entries,
    onFallback: o.onFallback,
    required: o.requireKeychain ? (why) => keychainRequired(why, o.requiredBy) : undefined,
  });
}

/** The keychain is required (by `by`, when the caller says) and cannot be used: nothing is read from or written to the file. */
function keychainRequired(why: string, by: string | undefined): CredentialStoreError {
  return new CredentialStoreError(`the OS keychain is required${by ? ` (${by})` : ''}, and ${why}: not falling back to the file`, {
    hint: 'the keychain must be reachable and unlocked',
    remedy: { kind: 'keychain-required' },
  });
}
