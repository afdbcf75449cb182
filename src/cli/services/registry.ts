/**
 * The services, one entry each: where a profile keeps a service's base URL,
 * which credential its own commands use, what `lanyard exec` hands over, how
 * to sign in to it and which credential it refused — in one place instead of
 * a switch in every command. Adding a service adds an entry here (see
 * docs/adding-a-service.md). Each service's code loads only when its entry
 * is used.
 */
import type { Context } from '../context.js';
import type { CredentialProvider } from '../../core/auth/provider.js';
import type { ProfileSettings } from '../../core/config/settings.js';
import type { ServiceName } from '../../core/errors.js';
import { UsageError } from '../errors/usage-error.js';
import type { ServiceEntry } from './entry-kit.js';
import { echo } from './echo/entry.js';
import { health } from './health/entry.js';
import { hosting } from './hosting/entry.js';
import { mailbox } from './mailbox/entry.js';
import { protocol } from './protocol/entry.js';

export type { ServiceEntry, SignInAsk } from './entry-kit.js';

/** Every service, by name: the one table the CLI consults about a service. */
export const SERVICES: Readonly<Record<ServiceName, ServiceEntry>> = { hosting, echo, protocol, mailbox, health };

/** The provider a service's own commands would use (its code loaded only then); `o.login` picks a stored hosting account. */
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
