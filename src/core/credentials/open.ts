/**
 * Chooses the credential store: the OS keychain when it works, else (or with
 * insecure storage chosen up front) the 0600 file, reporting why.
 */
import type { CredentialStore } from '../deps.js';
import { FileCredentialStore } from './file-store.js';
import { DEFAULT_KEYCHAIN_TIMEOUT_MS, KeychainCredentialStore } from './keychain-store.js';
import { type CredentialLock, FileLock } from './lock.js';

export interface OpenCredentialStoreOptions {
  /** Where the file fallback lives: the config directory. */
  configDir: string;
  /** Use the file store up front (--insecure-storage). */
  insecure?: boolean;
  /** Never try the keychain. */
  disableKeychain?: boolean;
  timeoutMs?: number;
  /**
   * The session bus address (DBUS_SESSION_BUS_ADDRESS) on Linux: the Secret
   * Service is pinged there first, and a service that does not answer is
   * treated as unavailable without calling the native binding (see
   * secret-service-ping.ts for why).
   */
  sessionBus?: string;
  /** The config directory's lock, shared by every writer of the process (default: one of its own). */
  lock?: CredentialLock;
  /** Told why the keychain was not used (the CLI prints a visible warning). */
  onFallback?: (why: string) => void;
  /**
   * Called once nothing is left for this process to do until the store is
   * open: the keychain's opening search has been sent (it runs on the
   * binding's own thread), or the file store was chosen. Work that only
   * needs CPU can start then without delaying the search.
   */
  onWaiting?: () => void;
}

export async function openCredentialStore(o: OpenCredentialStoreOptions): Promise<CredentialStore> {
  // One lock for the file and the keychain: every writer of the process shares it.
  const lock = o.lock ?? new FileLock(o.configDir);
  const file = FileCredentialStore.inDir(o.configDir, lock);
  if (o.insecure) {
    o.onFallback?.('insecure storage chosen');
    o.onWaiting?.();
    return file;
  }
  if (o.disableKeychain) {
    o.onFallback?.('the keychain is disabled (LANYARD_KEYCHAIN=off)');
    o.onWaiting?.();
    return file;
  }
  let loading: Promise<KeychainCredentialStore> | undefined;
  if (process.platform === 'linux' && o.sessionBus) {
    const { pingSecretService } = await import('./secret-service-ping.js');
    const pinging = pingSecretService(o.sessionBus, process.getuid?.() ?? 0, o.timeoutMs ?? DEFAULT_KEYCHAIN_TIMEOUT_MS);
    // The binding loads (dlopen and its set-up, ≈ 10 ms) while the bus
    // answers the ping: on the next turn of the event loop, once the ping's
    // connection is under way. Loading it calls nothing; the first call is
    // made only after the ping succeeded.
    loading = new Promise((resolve) => setImmediate(resolve)).then(() => KeychainCredentialStore.load({ timeoutMs: o.timeoutMs, lock }));
    loading.catch(() => undefined);
    const ping = await pinging;
    if (!ping.ok) {
      o.onFallback?.(`the OS keychain is unavailable (${ping.reason})`);
      o.onWaiting?.();
      return file;
    }
  }
  try {
    const keychain = await (loading ?? KeychainCredentialStore.load({ timeoutMs: o.timeoutMs, lock }));
    // One search: a missing or locked Secret Service fails here, not mid-command.
    const opening = keychain.open();
    o.onWaiting?.();
    await opening;
    return keychain;
  } catch (err) {
    o.onFallback?.(`the OS keychain is unavailable (${(err as Error).message})`);
    o.onWaiting?.();
    return file;
  }
}
