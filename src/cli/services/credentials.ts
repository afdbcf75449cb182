/**
 * The credential of each service of a profile, as its own commands would use
 * it (refreshed when it is about to expire), for `lanyard api` and
 * `lanyard exec`; and the base URL of each service. Both come from the
 * service registry (registry.ts).
 */
import type { Context } from '../context.js';
import type { CredentialProvider } from '../../core/auth/provider.js';
import type { Credential } from '../../core/http/client.js';
import type { ProfileSettings } from '../../core/config/settings.js';
import { UsageError } from '../usage-error.js';
import type { ServiceName } from '../../core/errors.js';
import { SERVICES } from './registry.js';

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

/** The base URL of each service in a profile. */
export function baseOf(service: ServiceName, settings: ProfileSettings, profile: string): string {
  return SERVICES[service].base(settings, profile);
}

/** The provider each service's own commands would use (loaded only for that service); `o.login` picks a stored hosting account. */
export async function providerFor(
  ctx: Context,
  service: ServiceName,
  settings: ProfileSettings,
  profile: string,
  o: { login?: string } = {},
): Promise<CredentialProvider> {
  if (o.login !== undefined && service !== 'hosting') throw new UsageError(`--user picks a hosting account; this request goes to the ${service} service`);
  return SERVICES[service].provider(ctx, settings, profile, o);
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
