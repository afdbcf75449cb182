/**
 * `lanyard auth token`: prints the active token (the only command that writes
 * a token to stdout); `--with-token` stores one read from stdin; `create` is
 * the non-web flow (Basic authentication, personal access token).
 */
import { hostname } from 'node:os';
import type { Context } from '../../context.js';
import { AuthRequiredError, ValidationError } from '../../../core/errors.js';
import { hostingTarget } from '../../hosting.js';
import { UsageError } from '../../usage-error.js';
import { requireSetting } from '../../../core/config/settings.js';
import type { AuthTokenCreateOptions, AuthTokenOptions } from './options.js';
import { promptHidden, scopesOption, storeSignIn } from './common.js';
import { readStdinSecret } from '../../stdin.js';

export async function runAuthToken(ctx: Context, o: AuthTokenOptions): Promise<void> {
  if (o.withToken && o.user !== undefined) throw new UsageError('--user picks a stored account to print; --with-token stores the account the token belongs to');
  if (o.withToken) return storePastedToken(ctx, o);
  if (o.insecureStorage) throw new UsageError('--insecure-storage applies with --with-token');
  const t = await hostingTarget(ctx, { login: o.user });
  if (t.credential.scheme !== 'bearer') {
    throw new AuthRequiredError('no token: not signed in to the hosting service', { hint: 'run `lanyard auth device` (or set LANYARD_TOKEN)' });
  }
  ctx.io.out(t.credential.token);
}

async function storePastedToken(ctx: Context, o: AuthTokenOptions): Promise<void> {
  if (ctx.io.stdinIsTTY) {
    throw new UsageError(
      '--with-token reads the token from standard input, which is a terminal here',
      'pipe it in: `echo "$TOKEN" | lanyard auth token --with-token` (or `lanyard auth token --with-token < token.txt`)',
    );
  }
  const token = await readStdinSecret(ctx.io, 'the token');
  if (!token) throw new ValidationError('no token on standard input');
  if (/\s/.test(token)) throw new ValidationError('the token on standard input contains whitespace; pass exactly one token');
  await storeSignIn(ctx, await apiUrlOf(ctx), { accessToken: token, tokenType: 'bearer', scopes: [] }, { origin: 'pasted', insecure: o.insecureStorage });
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
