/**
 * `lanyard auth refresh`: signs the account in use (here: the directory's
 * binding, else the host's active account; or `--user`) in again, asking for
 * the scopes it has plus those of `--scopes`, and replaces its token where it
 * is stored, under the account's credential lock — also when the token has
 * already expired (the flow needs no old token). The device flow by default
 * (headless as `auth device`), the web flow with `--web`. The person must
 * approve as the same account: a token of another is not stored in its place.
 * With `--web` that is decided (the token exchanged, its login checked, the
 * token stored) before the browser's page answers, as `auth login` does, so
 * the page says signed in only once that is true, and why not otherwise.
 */
import type { Context } from '../../context.js';
import { AuthRequiredError, LanyardError } from '../../../core/errors.js';
import { envTokenSource } from '../../../core/hosting/auth.js';
import type { HostingAccounts, HostingTokenRecord, StoredAccount, TokenOrigin } from '../../../core/hosting/accounts.js';
import type { TokenSet } from '../../../core/hosting/oauth.js';
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
  const target: Target = { accounts, found, requested: scopes, origin: o.web ? 'web' : 'device', clientId: ep.clientId };
  let record: HostingTokenRecord | undefined;
  const replace = async (token: TokenSet) => {
    record = await replaceToken(ctx, ep.apiUrl, target, token);
  };
  // The web flow runs `replace` before its page answers; the device flow's page has nothing to wait for.
  if (o.web) await (await import('./login.js')).webFlowToken(ctx, ep, scopes, o, replace);
  else await replace(await (await import('./device.js')).deviceFlowToken(ctx, ep, scopes, o));
  const missing = added.filter((s) => !record!.scopes.includes(s));
  ctx.io.err(`✓ Refreshed the token of ${current.login} (scopes: ${record!.scopes.join(' ') || 'none'})`);
  if (missing.length) ctx.warn(`the server did not grant ${missing.join(', ')}`);
}

/** The account whose token is replaced, the scopes asked for, how the new token was had. */
interface Target {
  accounts: HostingAccounts;
  found: Pick<StoredAccount, 'record' | 'store'>;
  requested: readonly string[];
  origin: TokenOrigin;
  clientId: string;
}

/**
 * Checks that `token` acts for the account (GET /user) and stores it in
 * place, under the lock a refresh of this account takes: the same entry, the
 * same store, still (or not) the active one. Another account's token is
 * refused and the stored one left as it was.
 */
async function replaceToken(ctx: Context, apiUrl: string, t: Target, token: TokenSet): Promise<HostingTokenRecord> {
  const current = t.found.record;
  const [{ fetchUser }, { recordFromTokenSet }] = await Promise.all([import('../../../core/hosting/user.js'), import('../../../core/hosting/accounts.js')]);
  const user = await fetchUser(await ctx.http(), apiUrl, { scheme: 'bearer', token: token.accessToken }, ctx.signal);
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
    origin: t.origin,
    clientId: t.clientId,
    nowMs: ctx.clock.now(),
    scopes: token.scopes.length ? token.scopes : (user.scopes ?? t.requested),
  });
  if (!record.expiresAt && user.tokenExpiresAt) record.expiresAt = user.tokenExpiresAt;
  await (await ctx.credentialLock()).withLock(`hosting-${t.accounts.host}-${current.login}`, async () => {
    const latest = (await t.accounts.get(current.login)) ?? t.found;
    await t.accounts.update(record, latest.store);
  });
  return record;
}
