/**
 * Sign-in to the service-health API (`auth login|token|logout --health`) and
 * its lines of `auth status`: the OAuth 2.0 implicit flow through the loopback
 * receiver in fragment mode; the token is stored with its expiry.
 * `LANYARD_HEALTH_TOKEN` from the environment takes precedence (CI).
 */
import { loopbackOverSsh, refuseRemoteWithoutPerson, requirePerson } from '../../terminal/interactive.js';
import type { Context } from '../../context.js';
import type { AuthLoginOptions, AuthLogoutOptions, AuthStatusEntry, AuthTokenOptions } from './options.js';
import type { CredentialStore } from '../../../core/deps.js';
import { requireSetting } from '../../../core/config/settings.js';
import { hostOf } from '../../../core/credentials/accounts.js';
import { maskSecret } from '../../../core/credentials/mask.js';
import { readAsOpened } from '../../../core/credentials/as-opened.js';
import { LanyardError } from '../../../core/errors.js';
import { tokenIdentity } from '../../../core/auth/token-claims.js';
import { healthAccount, listHealthTokens } from '../../../core/health/token.js';
import { waitTimeoutMs } from '../../option-parse.js';
import { localTime, relativeTime } from '../../terminal/time-text.js';
import { HEALTH_TOKEN_ENV, resolveToken } from '../../services/health/wiring.js';

/** `--insecure-storage`: the 0600 file as opened (said by the sign-in, not as a fallback). */
async function storeFor(ctx: Context, insecure: boolean | undefined): Promise<CredentialStore> {
  const storage = await ctx.credentialStorage({ insecure });
  return insecure ? storage.primary : storage.store();
}

export async function runHealthLogin(ctx: Context, o: AuthLoginOptions): Promise<void> {
  const { name, settings } = await ctx.profile();
  const authUrl = requireSetting(settings, 'health.authUrl', name);
  const clientId = requireSetting(settings, 'health.clientId', name);
  const timeoutMs = waitTimeoutMs(ctx, '5m');
  const instead = `in scripts and CI set ${HEALTH_TOKEN_ENV}; or run \`lanyard auth login --health\` once at a terminal`;
  // Its page redirects to a listener on 127.0.0.1 here: over ssh with no display, as the hosting `auth login`.
  const remote = refuseRemoteWithoutPerson(ctx, 'the service-health sign-in', `set ${HEALTH_TOKEN_ENV} (a token from the service), or sign in at a terminal`);
  requirePerson(ctx, 'the service-health sign-in', instead);
  if (ctx.env[HEALTH_TOKEN_ENV]) ctx.warn(`${HEALTH_TOKEN_ENV} is set: it takes precedence over the token stored by this sign-in`);
  const store = await storeFor(ctx, o.insecureStorage);
  // Loaded on first use: `auth status` loads this module too.
  const { runHealthSignIn } = await import('../../../core/health/signin.js');
  const rec = await runHealthSignIn({
    authUrl,
    clientId,
    clock: ctx.clock,
    timeoutMs,
    signal: ctx.signal,
    store,
    openUrl: async (url) => {
      if (remote) ctx.io.err(loopbackOverSsh(url, `Or press Ctrl-C and set ${HEALTH_TOKEN_ENV} to a token from the service.`));
      else {
        const opened = o.browser === false ? false : await (await ctx.browser()).open(url);
        ctx.io.err(opened ? `Opening the sign-in page in your browser:\n  ${url}` : `Open this URL in a browser to sign in:\n  ${url}`);
      }
      ctx.io.err('Waiting for the browser to finish (Ctrl-C to cancel)…');
    },
  });
  ctx.io.err(
    `✓ Signed in to the service-health API at ${hostOf(authUrl)} (token stored in the ${store.kind} store; expires ${localTime(rec.expires_at)}, ${relativeTime(rec.expires_at, ctx.clock.now())})`,
  );
}

export async function runHealthToken(ctx: Context, _o: AuthTokenOptions): Promise<void> {
  const { settings } = await ctx.profile();
  const t = await resolveToken(ctx, settings);
  ctx.io.out(t.token);
}

export async function runHealthLogout(ctx: Context, _o: AuthLogoutOptions): Promise<void> {
  const { name, settings } = await ctx.profile();
  const authUrl = requireSetting(settings, 'health.authUrl', name);
  let removed = false;
  for (const store of (await ctx.credentialStorage()).lookup()) removed = (await store.delete(healthAccount(authUrl))) || removed;
  if (!removed) throw new LanyardError('not_signed_in', `not signed in to the service-health API at ${hostOf(authUrl)}`);
  ctx.io.err(
    `✓ Removed the service-health token for ${hostOf(authUrl)}. Implicit-flow tokens cannot be revoked from here; it stays valid at the service until it expires.`,
  );
  if (ctx.env[HEALTH_TOKEN_ENV]) ctx.warn(`${HEALTH_TOKEN_ENV} is still set in the environment`);
}

const mask = (token: string, show: boolean): string => (show ? token : maskSecret(token));

/** The signed-in user (its user principal name) as the token's claims name it. */
function userOf(token: string): { user?: string } {
  const user = tokenIdentity(token)?.user;
  return user ? { user } : {};
}

/** Lines for `auth status`: the environment token and every stored health token. */
export async function healthStatusEntries(ctx: Context, showToken: boolean): Promise<AuthStatusEntry[]> {
  const entries: AuthStatusEntry[] = [];
  const { settings } = await ctx.profile();
  const authUrl = settings['health.authUrl'];
  const activeHost = authUrl ? hostOf(authUrl) : undefined;
  const envToken = ctx.env[HEALTH_TOKEN_ENV]?.trim();
  if (envToken) {
    // A JWT names its user and expiry in its claims; an opaque token names neither.
    const id = tokenIdentity(envToken);
    const exp = id?.expiresAt;
    const valid = exp === undefined || exp > ctx.clock.now();
    entries.push({
      service: 'health',
      host: activeHost ?? 'any',
      ...(id?.user ? { user: id.user } : {}),
      source: HEALTH_TOKEN_ENV,
      valid,
      ...(exp === undefined
        ? { detail: 'expiry unknown (token from the environment)' }
        : { expiresAt: new Date(exp).toISOString(), ...(valid ? {} : { detail: `expired: get a new token into ${HEALTH_TOKEN_ENV}` }) }),
      token: mask(envToken, showToken),
      active: true,
    });
  }
  for (const t of await listHealthTokens((await ctx.credentialStorage()).lookup().map(readAsOpened), ctx.clock.now())) {
    const rec = t.record;
    entries.push({
      service: 'health',
      host: t.host,
      ...(rec.client_id ? { account: rec.client_id } : {}),
      ...userOf(rec.access_token),
      source: t.source,
      ...(rec.scope ? { scopes: rec.scope.split(/\s+/) } : {}),
      valid: t.valid,
      ...(t.valid ? {} : { detail: 'expired: run `lanyard auth login --health`' }),
      ...(t.expiresAt !== undefined ? { expiresAt: new Date(t.expiresAt).toISOString() } : {}),
      token: mask(rec.access_token, showToken),
      active: !envToken && t.host === activeHost,
    });
  }
  return entries;
}
