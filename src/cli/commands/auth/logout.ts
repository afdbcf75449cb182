/** `lanyard auth logout`: deletes a stored hosting token and shows where to revoke the grant. */
import type { Context } from '../../context.js';
import { LanyardError } from '../../../core/errors.js';
import { HostingOAuthPath } from '../../../shared/hosting-oauth.js';
import { requireSetting } from '../../../core/config/settings.js';
import { openHostingStores } from '../../hosting.js';
import type { AuthLogoutOptions } from './options.js';
import { storageDescription } from './common.js';

export async function runAuthLogout(ctx: Context, o: AuthLogoutOptions): Promise<void> {
  const { name, settings } = await ctx.profile();
  const apiUrl = requireSetting(settings, 'hosting.apiUrl', name);
  const stores = await openHostingStores(ctx, apiUrl);
  const login = o.user ?? (await stores.accounts.activeLogin());
  if (!login) throw new LanyardError('not_signed_in', `no hosting account is stored for ${stores.accounts.host}`, { hint: 'see `lanyard auth status`' });
  const found = await stores.accounts.get(login);
  if (!found) throw new LanyardError('not_signed_in', `no stored token for ${login} on ${stores.accounts.host}`, { hint: 'see `lanyard auth status`' });
  await stores.accounts.remove(login);
  ctx.io.err(`✓ Logged out of ${stores.accounts.host} account ${login} (token deleted from ${storageDescription(found.store.kind, stores.filePath)})`);
  const webUrl = settings['hosting.webUrl'];
  const clientId = found.record.clientId ?? settings['hosting.clientId'];
  if (found.record.origin === 'personal' || found.record.origin === 'pasted') {
    ctx.io.err('The token itself is still valid on the server: revoke it in your account settings if you no longer need it.');
  }
  if (webUrl && clientId) {
    ctx.io.err(
      `To revoke the app's access on the server too, visit:\n  ${webUrl.replace(/\/+$/, '')}${HostingOAuthPath.applications}/${encodeURIComponent(clientId)}`,
    );
  }
  const next = await stores.accounts.activeLogin();
  if (next) ctx.io.err(`Active account is now ${next}.`);
  if (ctx.env.LANYARD_TOKEN || ctx.env.WORKFLOW_TOKEN) ctx.warn('a token in the environment (LANYARD_TOKEN / WORKFLOW_TOKEN) is still used for hosting calls');
}
