/**
 * The credential of each service of a profile, as its own commands would use
 * it (refreshed when it is about to expire), for `lanyard api` and
 * `lanyard exec`; and the base URL of each service.
 */
import type { Context } from '../context.js';
import { type CredentialProvider, fixedCredential } from '../../core/auth/provider.js';
import type { Credential } from '../../core/http/client.js';
import type { ProfileSettings, SettingKey } from '../../core/config/settings.js';
import { requireSetting } from '../../core/config/settings.js';
import { hostingTarget } from '../hosting.js';
import { pathSegment } from '../../core/path-segment.js';
import { UsageError } from '../usage-error.js';
import type { ServiceName } from '../../core/errors.js';

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

const NONE = (): CredentialProvider => fixedCredential({ scheme: 'none' }, 'anonymous');

export /** The base URL of each service in a profile. */
function baseOf(service: ServiceName, settings: ProfileSettings, profile: string): string {
  const key: Record<ServiceName, SettingKey> = {
    hosting: 'hosting.apiUrl',
    echo: 'echo.baseUrl',
    mailbox: 'mailbox.baseUrl',
    health: 'health.managementUrl',
    protocol: 'protocol.serverUrl',
  };
  const base = requireSetting(settings, key[service], profile);
  if (service === 'mailbox') {
    const domain = requireSetting(settings, 'mailbox.domain', profile);
    const user = requireSetting(settings, 'mailbox.user', profile);
    return `${base}/rest/v2/${pathSegment(domain, 'mailbox domain')}/${pathSegment(user, 'mailbox user')}/mailbox`;
  }
  if (service === 'protocol') return new URL(base).origin;
  return base;
}

export /** The credential each service's own commands would use (loaded only for that service); `o.login` picks a stored hosting account. */
async function credentialFor(ctx: Context, service: ServiceName, settings: ProfileSettings, profile: string, o: { login?: string } = {}): Promise<ServiceAuth> {
  if (o.login !== undefined && service !== 'hosting') throw new UsageError(`--user picks a hosting account; this request goes to the ${service} service`);
  switch (service) {
    case 'hosting':
      return of((await hostingTarget(ctx, o)).auth);
    case 'echo': {
      const { resolveApiKey } = await import('../../core/echo/credentials.js');
      const k = await resolveApiKey({ envKey: ctx.env.LANYARD_API_KEY, store: () => ctx.credentials(), baseUrl: baseOf('echo', settings, profile) });
      return of(k ? fixedCredential({ scheme: 'query', name: 'key', value: k.key }, k.source) : NONE());
    }
    case 'health': {
      const { resolveToken } = await import('./health.js');
      const t = await resolveToken(ctx, settings);
      return of(fixedCredential({ scheme: 'bearer', token: t.token }, t.source));
    }
    case 'protocol': {
      // The stored tokens, refreshed when they expire and once more after a
      // 401 (as `protocol request` does); no sign-in from here: without
      // tokens the request goes out bare.
      const [{ protocolAuth }, { protocolDeps }] = await Promise.all([import('../../core/protocol/credential.js'), import('./protocol.js')]);
      return of(await protocolAuth(await protocolDeps(ctx), requireSetting(settings, 'protocol.serverUrl', profile)));
    }
    case 'mailbox':
      // The mailbox API defines no authentication.
      return of(NONE());
  }
}
