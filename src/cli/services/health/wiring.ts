/**
 * The service-health credential as commands use it: `LANYARD_HEALTH_TOKEN`
 * from the environment takes precedence (CI), else the stored token. The one
 * place a profile becomes the health service's credential strategy.
 */
import type { Context } from '../../context.js';
import type { CredentialProvider } from '../../../core/auth/provider.js';
import type { ProfileSettings } from '../../../core/config/settings.js';
import { healthCredential, resolveHealthToken, type ResolvedHealthToken } from '../../../core/health/token.js';

export const HEALTH_TOKEN_ENV = 'LANYARD_HEALTH_TOKEN';

/** The token for health API calls: LANYARD_HEALTH_TOKEN, else the stored one (exit 4 if missing or expired). */
export async function resolveToken(ctx: Context, settings: ProfileSettings): Promise<ResolvedHealthToken> {
  const envToken = ctx.env[HEALTH_TOKEN_ENV];
  const authUrl = settings['health.authUrl'];
  return resolveHealthToken({
    envToken,
    ...(authUrl ? { authUrl, stores: async () => (await ctx.credentialStorage()).lookup() } : {}),
    nowMs: ctx.clock.now(),
  });
}

/** The health API's credential strategy for a profile (resolved once: exit 4 when missing or expired). */
export async function healthAuth(ctx: Context, settings: ProfileSettings): Promise<CredentialProvider> {
  const t = await resolveToken(ctx, settings);
  // Where it came from, as doctor and errors name it: the variable, or the store.
  return healthCredential({ ...t, source: t.source === 'environment' ? 'env:LANYARD_HEALTH_TOKEN' : t.source });
}
