/**
 * `lanyard auth refresh`: signs the account in use (here: the directory's
 * binding, else the host's active account; or `--user`) in again, asking for
 * the scopes it has plus those of `--scopes`, and replaces its token where it
 * is stored, under the account's credential lock — also when the token has
 * already expired (the flow needs no old token). The device flow by default
 * (headless as `auth device`), the web flow with `--web`. The person must
 * approve as the same account: a token of another is not stored in its place.
 */
import type { Context } from '../../context.js';
import { AuthRequiredError, LanyardError } from '../../../core/errors.js';
import { envTokenSource } from '../../../core/hosting/auth.js';
import { boundHostingAccount, openHostingStores } from '../../services/hosting/wiring.js';
import { UsageError } from '../../errors/usage-error.js';
import { hostingEndpoints, scopesOption } from './common.js';
import type { AuthRefreshOptions } from './options.js';

export async function runAuthRefresh(ctx: Context, o: AuthRefreshOptions): Promise<void> {
  const env = envTokenSource(ctx.env);
  if (env) throw new UsageError(`${env} is set in the environment: it is not a stored sign-in that can be refreshed (unset it first)`);
  const added = scopesOption(o.scopes);
  const stores = await openHostingStores(ctx, (await hostingEndpoints(ctx)).apiUrl);
  const accounts = stores.accounts;
  const bound = o.user === undefined ? await boundHostingAccount(ctx, (await hostingEndpoints(ctx)).apiUrl) : undefined;
  const login = o.user ?? bound?.login;
  const found = login !== undefined ? await accounts.find(login) : await accounts.active();
  if (!found)
    throw new AuthRequiredError(`no hosting account is stored for ${accounts.host}: nothing to refresh`, {
      remedy: { kind: 'sign-in', service: 'hosting' },
      service: 'hosting',
    });
  const current = found.record;
  const ep = await hostingEndpoints(ctx, current.clientId);
  const scopes = [...new Set([...current.scopes, ...added])];
  ctx.io.err(`Refreshing the token of ${current.login} on ${accounts.host} (scopes: ${scopes.join(' ') || 'none'})`);
  const token = o.web
    ? await (await import('./login.js')).webFlowToken(ctx, ep, scopes, o)
    : await (await import('./device.js')).deviceFlowToken(ctx, ep, scopes, o);
  const [{ fetchUser }, { recordFromTokenSet }] = await Promise.all([import('../../../core/hosting/user.js'), import('../../../core/hosting/accounts.js')]);
  const user = await fetchUser(await ctx.http(), ep.apiUrl, { scheme: 'bearer', token: token.accessToken }, ctx.signal);
  if (user.login !== current.login)
    throw new LanyardError(
      'auth_required',
      `the sign-in was approved as ${user.login}, not ${current.login}: the token of ${current.login} is left as it was`,
      {
        hint: `approve as ${current.login}, or add ${user.login} with \`lanyard auth device\``,
      },
    );
  const record = recordFromTokenSet(token, {
    login: current.login,
    origin: o.web ? 'web' : 'device',
    clientId: ep.clientId,
    nowMs: ctx.clock.now(),
    scopes: token.scopes.length ? token.scopes : (user.scopes ?? scopes),
  });
  if (!record.expiresAt && user.tokenExpiresAt) record.expiresAt = user.tokenExpiresAt;
  // In place, under the lock a refresh of this account takes: the same entry, the same store, still (or not) the active one.
  await (await ctx.credentialLock()).withLock(`hosting-${accounts.host}-${current.login}`, async () => {
    const latest = (await accounts.get(current.login)) ?? found;
    await accounts.update(record, latest.store);
  });
  const missing = added.filter((s) => !record.scopes.includes(s));
  ctx.io.err(`✓ Refreshed the token of ${current.login} (scopes: ${record.scopes.join(' ') || 'none'})`);
  if (missing.length) ctx.warn(`the server did not grant ${missing.join(', ')}`);
}
