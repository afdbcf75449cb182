/**
 * `lanyard __complete accounts`: the logins stored for the profile's hosting
 * host, for the shells' completion of `--user`. It never prompts and never
 * writes: the 0600 file is read as it is, and the OS keychain only when it is
 * known to be unlocked (reading a locked Secret Service makes the keyring ask
 * for its password in a dialog, which a Tab key must not do). Any failure
 * gives no candidates.
 */
import { dirname } from 'node:path';
import type { Context } from '../../context.js';
import { keychainTimeoutMs } from '../../ports/keychain-env.js';
import { hostOf } from '../../../core/credentials/accounts.js';
import { accountLoginOf } from '../../../core/hosting/accounts.js';

/** The longest a completion waits for the keychain (it is waited for at every Tab). */
const COMPLETION_KEYCHAIN_MS = 1000;

export async function storedLogins(ctx: Context): Promise<string[]> {
  const { settings } = await ctx.profile();
  const apiUrl = settings['hosting.apiUrl'];
  if (!apiUrl) return [];
  const host = hostOf(apiUrl);
  const names: string[] = [];
  const env = ctx.env;
  if (env.LANYARD_KEYCHAIN !== 'off' && env.LANYARD_INSECURE_STORAGE !== '1') {
    const { startKeychainOpen } = await import('../../../core/credentials/keychain-open.js');
    const r = await startKeychainOpen({
      sessionBus: env.DBUS_SESSION_BUS_ADDRESS,
      timeoutMs: Math.min(COMPLETION_KEYCHAIN_MS, keychainTimeoutMs(env) ?? COMPLETION_KEYCHAIN_MS),
      unlockedOnly: true,
    }).result;
    if (r.ok) names.push(...r.entries.map((e) => e.account));
  }
  const { FileCredentialStore } = await import('../../../core/credentials/file-store.js');
  names.push(...(await FileCredentialStore.inDir(dirname(await ctx.configPath())).list()));
  const logins = new Set<string>();
  for (const name of names) {
    const login = accountLoginOf(host, name);
    if (login !== undefined) logins.add(login);
  }
  return [...logins].sort();
}
