/**
 * The keychain's opening, started by bin/lanyard.js before it loads the CLI
 * (built on its own as dist/keychain-prefetch.cjs). On the keychain path most
 * of a command's start-up is waiting: for the Secret Service to answer a ping,
 * then for its search (D-Bus round trips and a key exchange, on the binding's
 * own thread). Started first, that waiting overlaps with loading and compiling
 * the CLI instead of following it. `main` hands the opening to the context,
 * which gives it to `openCredentialStore`; nothing is read twice.
 *
 * Only for commands that read stored credentials: a wrong guess costs time,
 * never correctness (an unused opening is dropped; the process waits for its
 * search to end before it exits).
 */
import { type KeychainOpening, startKeychainOpen } from '../core/credentials/keychain-open.js';
import { keychainTimeoutMs } from './ports/keychain-env.js';

/** Command groups whose commands read the credential store. */
const READS_CREDENTIALS: ReadonlySet<string> = new Set(['auth', 'api', 'ratelimit', 'exec', 'echo', 'protocol', 'mailbox', 'health', 'doctor']);

/**
 * Should the keychain's opening start before the CLI loads, for the command
 * group `group` (as bin/lanyard.js reads it from argv: the first word after
 * the root options), these arguments and this environment?
 */
export function wantsKeychain(group: string, args: readonly string[], env: NodeJS.ProcessEnv): boolean {
  if (env.LANYARD_KEYCHAIN === 'off' || env.LANYARD_INSECURE_STORAGE === '1') return false;
  // Without a session bus the binding would be called unpinged: leave that to the command.
  if (process.platform === 'linux' && !env.DBUS_SESSION_BUS_ADDRESS) return false;
  if (!READS_CREDENTIALS.has(group)) return false;
  // A token from the environment replaces the stored hosting accounts: only `auth` lists them then.
  if ((env.LANYARD_TOKEN?.trim() || env.WORKFLOW_TOKEN?.trim()) && group !== 'auth') return false;
  for (const a of args) {
    if (a === '--') break;
    if (a === '-h' || a === '--help' || a === 'help' || a === '--insecure-storage') return false;
  }
  return true;
}

/** Starts the keychain's opening when the command will read credentials; else undefined. */
export function prefetchKeychain(group: string, args: readonly string[], env: NodeJS.ProcessEnv = process.env): KeychainOpening | undefined {
  if (!wantsKeychain(group, args, env)) return undefined;
  return startKeychainOpen({ sessionBus: env.DBUS_SESSION_BUS_ADDRESS, timeoutMs: keychainTimeoutMs(env) });
}
