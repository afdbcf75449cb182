/**
 * The service-health credential as commands use it: `LANYARD_HEALTH_TOKEN`
 * from the environment takes precedence (CI), else the stored token.
 */
import type { Context } from '../context.js';
import type { ProfileSettings } from '../../core/config/settings.js';
import { resolveHealthToken, type ResolvedHealthToken } from '../../core/health/token.js';

export const HEALTH_TOKEN_ENV = 'LANYARD_HEALTH_TOKEN';

/** The token for health API calls: LANYARD_HEALTH_TOKEN, else the stored one (exit 4 if missing or expired). */
export async function resolveToken(ctx: Context, settings: ProfileSettings): Promise<ResolvedHealthToken> {
  const envToken = ctx.env[HEALTH_TOKEN_ENV];
  const authUrl = settings['health.authUrl'];
  return resolveHealthToken({ envToken, ...(authUrl ? { authUrl, stores: () => ctx.credentialsForLookup() } : {}), nowMs: ctx.clock.now() });
}
