/**
 * Opening the OS keychain: on Linux the entries are read from the Secret
 * Service over a D-Bus connection of our own (secret-service.ts) while the
 * native binding loads (it writes; and it reads what that reader leaves to
 * it: locked items, errors); elsewhere one search of the binding reads every
 * entry of the service. The steps run
 * on their own once started: a program can start them before it has loaded the
 * rest of itself (bin/lanyard.js does, for the commands that read
 * credentials), and hand the opening to `openCredentialStore`.
 */
import { KEYCHAIN_SERVICE } from './accounts.js';
import {
  DEFAULT_KEYCHAIN_TIMEOUT_MS,
  type KeychainBinding,
  type KeychainEntry,
  keychainCall,
  lazyKeychainBinding,
  loadKeychainBinding,
  platformBindingInstalled,
} from './keychain-binding.js';

/**
 * What opening the keychain gave: the binding and every entry (read by
 * `via`: over D-Bus by Lanyard itself, or by the binding's search), or why
 * the keychain cannot be used.
 */
export type KeychainOpenResult =
  | { ok: true; binding: KeychainBinding; entries: KeychainEntry[]; via?: 'secret-service' | 'binding' }
  | { ok: false; reason: string };

/** An opening of the keychain under way. */
export interface KeychainOpening {
  /**
   * Settles once nothing is left for this process to do until the outcome:
   * the last requests to the Secret Service have been written (or the
   * binding's search sent: it runs on the binding's own thread), or the
   * outcome is known.
   */
  readonly sent: Promise<void>;
  /** The outcome; never rejects. */
  readonly result: Promise<KeychainOpenResult>;
}

/** Options of {@link startKeychainOpen}. */
export interface KeychainOpenOptions {
  /**
   * The session bus address (DBUS_SESSION_BUS_ADDRESS) on Linux: the entries
   * are read from the Secret Service there, and one that does not answer is
   * reported unavailable without calling the binding.
   */
  sessionBus?: string;
  /** The time limit of the Secret Service's read, and of each call of the binding (default 3 s). */
  timeoutMs?: number;
  /** The keychain service (default `lanyard`). */
  service?: string;
  /**
   * Open only a keychain known to be unlocked, so that nothing can show an
   * unlock prompt (shell completion): on Linux the read also asks whether the
   * default collection is locked, and a locked one, or one that cannot say,
   * is reported unavailable without calling the binding; elsewhere, where
   * that cannot be asked, the keychain is not opened.
   */
  unlockedOnly?: boolean;
}

/** Starts opening the keychain (see {@link KeychainOpening}). */
export function startKeychainOpen(o: KeychainOpenOptions = {}): KeychainOpening {
  const timeoutMs = o.timeoutMs ?? DEFAULT_KEYCHAIN_TIMEOUT_MS;
  const service = o.service ?? KEYCHAIN_SERVICE;
  let markSent!: () => void;
  const sent = new Promise<void>((resolve) => (markSent = resolve));
  const result = (async (): Promise<KeychainOpenResult> => {
    const sessionBus = process.platform === 'linux' ? o.sessionBus : undefined;
    if (o.unlockedOnly && !sessionBus) return { ok: false, reason: 'cannot tell whether the keychain is unlocked' };
    let loading: Promise<KeychainBinding> | undefined;
    if (sessionBus) {
      const { readSecretService } = await import('./secret-service.js');
      const reading = readSecretService({
        address: sessionBus,
        uid: process.getuid?.() ?? 0,
        timeoutMs,
        service,
        unlockedOnly: o.unlockedOnly,
        onSent: markSent,
      });
      // The binding writes, and reads what the reader leaves to it. When its
      // package is known to be installed it loads only then (a read needs
      // none: ≈ 1–2 ms of CPU saved); else it loads while the bus answers, on
      // the next turn of the event loop once the read's requests are written,
      // so that one that cannot load is known now, as before (the file then).
      const installed = platformBindingInstalled();
      if (!installed) {
        loading = new Promise((resolve) => setImmediate(resolve)).then(loadKeychainBinding);
        loading.catch(() => undefined);
      }
      const read = await reading;
      if (read.kind === 'unavailable') return { ok: false, reason: read.reason };
      // What the reader leaves to the binding, the binding may unlock, with a prompt: not while nothing may prompt.
      if (read.kind === 'binding' && o.unlockedOnly) return { ok: false, reason: `cannot read the keychain without the native binding (${read.why})` };
      if (read.kind === 'entries') {
        markSent();
        if (!loading) return { ok: true, binding: lazyKeychainBinding(), entries: read.entries, via: 'secret-service' };
        try {
          return { ok: true, binding: await loading, entries: read.entries, via: 'secret-service' };
        } catch (err) {
          return { ok: false, reason: (err as Error).message };
        }
      }
    }
    try {
      const binding = await (loading ?? loadKeychainBinding());
      // One search: a missing or locked Secret Service fails here, not mid-command.
      const searching = keychainCall('list', timeoutMs, () => binding.findCredentials(service));
      markSent();
      return { ok: true, binding, entries: await searching, via: 'binding' };
    } catch (err) {
      return { ok: false, reason: (err as Error).message };
    }
  })();
  result.then(markSent, markSent);
  return { sent, result };
}
