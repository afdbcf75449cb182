/**
 * `lanyard auth token`: prints the active token (the only command that writes
 * a token to stdout); `--with-token` stores one read from stdin; `create` is
 * the non-web flow (Basic authentication, personal access token).
 */
import { hostname } from 'node:os';
import type { Context } from '../../context.js';
import { AuthRequiredError, ValidationError } from '../../../core/errors.js';
import { hostingTarget, openHostingStores } from '../../services/hosting/wiring.js';
import { UsageError } from '../../errors/usage-error.js';
import { requireSetting } from '../../../core/config/settings.js';
import type { AuthTokenCreateOptions, AuthTokenOptions } from './options.js';
import { promptHidden, scopesOption, storeSignIn } from './common.js';
import { readStdinSecret } from '../../terminal/stdin.js';
import { promptDisabled } from '../../terminal/interactive.js';

export async function runAuthToken(ctx: Context, o: AuthTokenOptions): Promise<void> {
  if (o.withToken && o.user !== undefined) throw new UsageError('--user picks a stored account to print; --with-token stores the account the token belongs to');
  if (o.withToken) return storePastedToken(ctx, o);
  if (o.insecureStorage) throw new UsageError('--insecure-storage applies with --with-token');
  if (o.hostname !== undefined) {
    const { hostnameOption, isProfileHost } = await import('./hostname.js');
    const host = hostnameOption(o.hostname);
    if (!isProfileHost((await ctx.profile()).settings, host)) return printStoredToken(ctx, host, o.user);
  }
  const t = await hostingTarget(ctx, { login: o.user });
  if (t.credential.scheme !== 'bearer') {
    throw new AuthRequiredError('no token: not signed in to the hosting service', { hint: 'run `lanyard auth device` (or set LANYARD_TOKEN)' });
  }
  ctx.io.out(t.credential.token);
}

/**
 * The stored token of another host than the profile's (`--hostname`): its
 * active account's, or `--user`'s. No refresh (the profile names no sign-in
 * endpoint of that host), and no environment token (that is the profile's
 * host's): an expired one is exit 4.
 */
async function printStoredToken(ctx: Context, host: string, user: string | undefined): Promise<void> {
  const { accounts } = await openHostingStores(ctx, `https://${host}`);
  const found = user !== undefined ? await accounts.find(user) : await accounts.active();
  if (!found) {
    throw new AuthRequiredError(`not signed in to ${host}`, {
      hint: `sign in with a profile whose hosting.apiUrl is on ${host}; \`lanyard auth status\` lists the stored accounts`,
    });
  }
  const { expiresAt, login, token } = found.record;
  if (expiresAt && Date.parse(expiresAt) <= ctx.clock.now()) {
    throw new AuthRequiredError(`the stored token of ${login} on ${host} expired at ${expiresAt}`, {
      hint: `refresh it with a profile of ${host} (any command there refreshes it), or sign in again`,
    });
  }
  ctx.io.out(token);
}

async function storePastedToken(ctx: Context, o: AuthTokenOptions): Promise<void> {
  const token = await pastedToken(ctx);
  if (!token) throw new ValidationError(ctx.io.stdinIsTTY ? 'no token was typed' : 'no token on standard input');
  if (/\s/.test(token)) throw new ValidationError('the token contains whitespace; pass exactly one token');
  await storeSignIn(ctx, await apiUrlOf(ctx), { accessToken: token, tokenType: 'bearer', scopes: [] }, { origin: 'pasted', insecure: o.insecureStorage });
}

/** The token: from stdin, or at a terminal asked for without echo (as gh asks for one) — never from argv or the shell's history. */
async function pastedToken(ctx: Context): Promise<string> {
  if (!ctx.io.stdinIsTTY) return readStdinSecret(ctx.io, 'the token');
  if (promptDisabled(ctx.env))
    throw new UsageError(
      '--with-token reads the token from standard input, which is a terminal, and LANYARD_PROMPT_DISABLED is set',
      'redirect it: `lanyard auth token --with-token < token.txt`',
    );
  return (await promptHidden(ctx, 'Paste your token (it is not shown): ')).trim();
}

export async function runAuthTokenCreate(ctx: Context, o: AuthTokenCreateOptions): Promise<void> {
  const scopes = scopesOption(o.scopes);
  const apiUrl = await apiUrlOf(ctx);
  const password = ctx.io.stdinIsTTY ? await promptHidden(ctx, `Password for ${o.user}: `) : await readStdinSecret(ctx.io, 'the password');
  if (!password) throw new ValidationError(`no password for ${o.user}`, { hint: 'type it at the prompt, or pipe it on standard input' });
  const { createAuthorizationRequest, processCreateAuthorizationResponse } = await import('../../../core/hosting/personal-token.js');
  const note = o.note ?? `lanyard on ${hostname()} (${new Date(ctx.clock.now()).toISOString().slice(0, 10)})`;
  const pat = await processCreateAuthorizationResponse(
    await createAuthorizationRequest(await ctx.http(), { apiUrl, login: o.user, password, scopes, note, signal: ctx.signal }),
  );
  ctx.io.err(
    `Created a personal access token for ${o.user} ("${pat.note}", scopes: ${pat.scopes.join(', ') || 'none'}); revoke it any time in the account settings.`,
  );
  await storeSignIn(ctx, apiUrl, { accessToken: pat.token, tokenType: 'bearer', scopes: pat.scopes }, { origin: 'personal', insecure: o.insecureStorage });
}

async function apiUrlOf(ctx: Context): Promise<string> {
  const { name, settings } = await ctx.profile();
  return requireSetting(settings, 'hosting.apiUrl', name);
}
