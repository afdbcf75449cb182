/**
 * Chooses the credential store: the OS keychain when it works, else (or with
 * insecure storage chosen up front) the 0600 file, reporting why.
 */
import type { CredentialStore } from '../deps.js';
import { FileCredentialStore } from './file-store.js';
import { KeychainCredentialStore } from './keychain-store.js';

export interface OpenCredentialStoreOptions {
  /** Where the file fallback lives: the config directory. */
  configDir: string;
  /** Use the file store up front (--insecure-storage). */
  insecure?: boolean;
  /** Never try the keychain. */
  disableKeychain?: boolean;
  timeoutMs?: number;
  /** Told why the keychain was not used (the CLI prints a visible warning). */
  onFallback?: (why: string) => void;
}

export async function openCredentialStore(o: OpenCredentialStoreOptions): Promise<CredentialStore> {
  const file = FileCredentialStore.inDir(o.configDir);
  if (o.insecure) {
    o.onFallback?.('insecure storage chosen');
    return file;
  }
  if (o.disableKeychain) {
    o.onFallback?.('the keychain is disabled (LANYARD_KEYCHAIN=off)');
    return file;
  }
  try {
    const keychain = await KeychainCredentialStore.load({ timeoutMs: o.timeoutMs });
    // Probe once: a missing or locked Secret Service fails here, not mid-command.
    await keychain.list();
    return keychain;
  } catch (err) {
    o.onFallback?.(`the OS keychain is unavailable (${(err as Error).message})`);
    return file;
  }
}
