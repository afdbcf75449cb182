/**
 * Opening the OS keychain: on Linux the Secret Service is pinged over the
 * session bus first (see secret-service-ping.ts), the binding loads while the
 * bus answers, and one search reads every entry of the service. The steps run
 * on their own once started: a program can start them before it has loaded the
 * rest of itself (bin/lanyard.js does, for the commands that read
 * credentials), and hand the opening to `openCredentialStore`.
 */
import { KEYCHAIN_SERVICE } from './accounts.js';
import { DEFAULT_KEYCHAIN_TIMEOUT_MS, type KeychainBinding, type KeychainEntry, keychainCall, loadKeychainBinding } from './keychain-binding.js';

/** What opening the keychain gave: the binding and every entry, or why the keychain cannot be used. */
export type KeychainOpenResult = { ok: true; binding: KeychainBinding; entries: KeychainEntry[] } | { ok: false; reason: string };

/** An opening of the keychain under way. */
export interface KeychainOpening {
  /**
   * Settles once nothing is left for this process to do until the outcome:
   * the search has been sent (it runs on the binding's own thread), or the
   * outcome is known.
   */
  readonly sent: Promise<void>;
  /** The outcome; never rejects. */
  readonly result: Promise<KeychainOpenResult>;
}

/** Options of {@link startKeychainOpen}. */
export interface KeychainOpenOptions {
  /**
   * The session bus address (DBUS_SESSION_BUS_ADDRESS) on Linux: the Secret
   * Service is pinged there first, and one that does not answer is reported
   * unavailable without calling the binding.
   */
  sessionBus?: string;
  /** Each step's time limit (default 3 s). */
  timeoutMs?: number;
  /** The keychain service (default `lanyard`). */
  service?: string;
  /**
   * Open only a keychain known to be unlocked, so that nothing can show an
   * unlock prompt (shell completion): on Linux the ping also asks whether the
   * default collection is locked, and a locked one, or one that cannot say,
   * is reported unavailable without calling the binding; elsewhere, where
   * that cannot be asked, the keychain is not opened.
   */
  unlockedOnly?: boolean;
}

/** Starts opening the keychain (see {@link KeychainOpening}). */
export function startKeychainOpen(o: KeychainOpenOptions = {}): KeychainOpening {
  const timeoutMs = o.timeoutMs ?? DEFAULT_KEYCHAIN_TIMEOUT_MS;
  let markSent!: () => void;
  const sent = new Promise<void>((resolve) => (markSent = resolve));
  const result = (async (): Promise<KeychainOpenResult> => {
    let loading: Promise<KeychainBinding> | undefined;
    const sessionBus = process.platform === 'linux' ? o.sessionBus : undefined;
    if (o.unlockedOnly && !sessionBus) return { ok: false, reason: 'cannot tell whether the keychain is unlocked' };
    if (sessionBus) {
      const { pingSecretService } = await import('./secret-service-ping.js');
      const pinging = pingSecretService(sessionBus, process.getuid?.() ?? 0, timeoutMs, { askLocked: o.unlockedOnly });
      // The binding loads (dlopen and its set-up, ≈ 4 ms) while the bus
      // answers the ping: on the next turn of the event loop, once the ping's
      // connection is under way. Loading it calls nothing; the first call is
      // made only after the ping succeeded.
      loading = new Promise((resolve) => setImmediate(resolve)).then(loadKeychainBinding);
      loading.catch(() => undefined);
      const ping = await pinging;
      if (!ping.ok) return { ok: false, reason: ping.reason };
      if (o.unlockedOnly && ping.locked !== false)
        return { ok: false, reason: ping.locked ? 'the keychain is locked' : 'cannot tell whether the keychain is unlocked' };
    }
    try {
      const binding = await (loading ?? loadKeychainBinding());
      // One search: a missing or locked Secret Service fails here, not mid-command.
      const searching = keychainCall('list', timeoutMs, () => binding.findCredentials(o.service ?? KEYCHAIN_SERVICE));
      markSent();
      return { ok: true, binding, entries: await searching };
    } catch (err) {
      return { ok: false, reason: (err as Error).message };
    }
  })();
  result.then(markSent);
  return { sent, result };
}
