/**
 * The credential of each service of a profile as resolved now (refreshed
 * when it was about to expire), for `lanyard exec`; the provider comes from
 * the service registry (registry.ts's providerFor).
 */
import type { Context } from '../context.js';
import type { CredentialProvider } from '../../core/auth/provider.js';
import type { Credential } from '../../core/http/client.js';
import type { ProfileSettings } from '../../core/config/settings.js';
import type { ServiceName } from '../../core/errors.js';
import { providerFor } from './registry.js';

export type { ServiceName } from '../../core/errors.js';

export interface ServiceAuth {
  /** The credential as resolved now (refreshed first when it was about to expire). */
  credential: Credential;
  /** Its provider: hand it to a request as `auth` and the HTTP client refreshes after a 401 and retries once. */
  auth: CredentialProvider;
}

async function of(auth: CredentialProvider): Promise<ServiceAuth> {
  return { credential: await auth.credential(), auth };
}

/** providerFor, with the credential as resolved now (what `lanyard exec` hands over). */
export async function credentialFor(
  ctx: Context,
  service: ServiceName,
  settings: ProfileSettings,
  profile: string,
  o: { login?: string } = {},
): Promise<ServiceAuth> {
  return of(await providerFor(ctx, service, settings, profile, o));
}
