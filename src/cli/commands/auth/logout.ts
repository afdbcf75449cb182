/**
 * `lanyard auth logout`: deletes a stored hosting token and shows where to
 * revoke the grant. `--user` names the account; without it the only stored
 * one, or with several a prompt on a terminal (else exit 2).
 */
import type { Context } from '../../context.js';
import { LanyardError } from '../../../core/errors.js';
import { HostingOAuthPath } from '../../../shared/hosting-oauth.js';
import { type ProfileSettings, requireSetting } from '../../../core/config/settings.js';
import { openHostingStores } from '../../services/hosting/wiring.js';
import type { AuthLogoutOptions } from './options.js';
import { storageDescription } from './common.js';
import { findAccount, type HostingTokenRecord } from '../../../core/hosting/accounts.js';
import { envTokenSource } from '../../../core/hosting/auth.js';
import { promptAccount } from './switch.js';

/** How the storage's fallback reason starts when the keychain could not be read (credential-port.ts). */
const KEYCHAIN_UNAVAILABLE = 'the OS keychain is unavailable';

export async function runAuthLogout(ctx: Context, o: AuthLogoutOptions): Promise<void> {
  const { name, settings } = await ctx.profile();
  const apiUrl = requireSetting(settings, 'hosting.apiUrl', name);
  const stores = await openHostingStores(ctx, apiUrl);
  const host = stores.accounts.host;
  if (o.dir !== undefined) {
    const { realDir } = await import('../../../core/config/bindings.js');
    const dir = realDir(o.dir, ctx.cwd, { gone: true });
    const gone = await (await ctx.config()).unbindAccount(host, { dir, login: o.user });
    if (!gone.length) throw new LanyardError('config', `no hosting account of ${host}${o.user ? ` named ${o.user}` : ''} is bound to ${dir}`);
    ctx.io.err(`✓ Removed the binding of ${dir} to a hosting account of ${host} (the token stays stored)`);
    return;
  }
  const stored = await stores.accounts.list();
  // On Linux with no session bus at all (a headless machine) no keychain can answer later: the file's copy is the one there is.
  const noBus = process.platform === 'linux' && !ctx.env.DBUS_SESSION_BUS_ADDRESS;
  const unavailable = !noBus && stores.fallbackReason?.startsWith(KEYCHAIN_UNAVAILABLE) ? stores.fallbackReason : undefined;
  if (!stored.length || (unavailable && o.user !== undefined && !stored.some((a) => a.record.login === o.user)))
    throw nothingToLogOut(host, o.user, stores.fallbackReason);
  // The keychain may hold a copy too: deleting only the file's would say "logged out" while the keychain's is used again once it answers.
  if (unavailable)
    throw new LanyardError('credential_store', `${unavailable}: nothing was deleted`, {
      hint: "try again once the keychain answers (LANYARD_KEYCHAIN_TIMEOUT_MS allows it longer), or LANYARD_KEYCHAIN=off to remove only the 0600 file's copy",
    });
  // Several accounts and no --user: which one is for the person to say (a prompt), or --user (exit 2), as the code host's CLI does.
  const found =
    o.user !== undefined
      ? findAccount(host, stored, o.user)
      : stored.length === 1
        ? stored[0]!
        : findAccount(host, stored, await promptAccount(ctx, host, stored, 'sign out of'));
  const login = found.record.login;
  const activeBefore = await stores.accounts.activeLogin();
  await stores.accounts.remove(login);
  // Its directory bindings go with it (the config is opened for writing only when there are some).
  const unbound = (await ctx.bindings()).some((b) => b.accounts?.[host]) ? await (await ctx.config()).unbindAccount(host, { login }) : [];
  ctx.io.err(`✓ Logged out of ${stores.accounts.host} account ${login} (token deleted from ${storageDescription(found.store.kind, stores.filePath)})`);
  revokeAdvice(ctx, found.record, settings);
  if (unbound.length) ctx.io.err(`Removed its directory bindings: ${unbound.join(', ')}`);
  const next = await stores.accounts.activeLogin();
  if (next && next !== activeBefore) ctx.io.err(`Active account is now ${next}.`);
  if (envTokenSource(ctx.env)) ctx.warn('a token in the environment (LANYARD_TOKEN / WORKFLOW_TOKEN) is still used for hosting calls');
}

/**
 * Where the token can be revoked on the server: a personal token (created, or
 * pasted — which is most often one) on the personal tokens page; a token of
 * the sign-in flows on the OAuth app's page (the grant). A pasted token is not
 * the app's: its page is not offered for it.
 */
function revokeAdvice(ctx: Context, record: HostingTokenRecord, settings: ProfileSettings): void {
  const webUrl = settings['hosting.webUrl']?.replace(/\/+$/, '');
  if (record.origin === 'personal' || record.origin === 'pasted') {
    const where = webUrl ? `:\n  ${webUrl}${HostingOAuthPath.tokens}` : ' in your account settings.';
    const what = record.origin === 'pasted' ? 'If it is a personal token, it' : 'The token itself';
    ctx.io.err(`${what} is still valid on the server until revoked where personal tokens are managed${where}`);
    return;
  }
  const clientId = record.clientId ?? settings['hosting.clientId'];
  if (webUrl && clientId)
    ctx.io.err(`To revoke the app's access on the server too, visit:\n  ${webUrl}${HostingOAuthPath.applications}/${encodeURIComponent(clientId)}`);
}

/**
 * Nothing stored to delete. When the keychain could not be read (it did not
 * answer in time, is locked, …) only the 0600 file was looked in: the token
 * may well be in the keychain, so that is what is said, not "not stored".
 */
function nothingToLogOut(host: string, user: string | undefined, fallbackReason: string | undefined): LanyardError {
  const what = user === undefined ? `no hosting account of ${host}` : `no stored token for ${user} on ${host}`;
  if (fallbackReason?.startsWith(KEYCHAIN_UNAVAILABLE))
    return new LanyardError('credential_store', `${fallbackReason}, and the 0600 file holds ${what}: nothing was deleted`, {
      hint: 'try again once the keychain answers (LANYARD_KEYCHAIN_TIMEOUT_MS allows it longer), or see `lanyard doctor`',
    });
  return new LanyardError('not_signed_in', user === undefined ? `no hosting account is stored for ${host}` : what, { hint: 'see `lanyard auth status`' });
}
