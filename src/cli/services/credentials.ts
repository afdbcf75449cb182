/**
 * The credential of each service of a profile, as its own commands would use
 * it (refreshed when it is about to expire), for `lanyard api` and
 * `lanyard exec`; and the base URL of each service.
 */
import type { Context } from '../context.js';
import type { Credential } from '../../core/http/client.js';
import type { ProfileSettings, SettingKey } from '../../core/config/settings.js';
import { requireSetting } from '../../core/config/settings.js';
import { hostingTarget } from '../hosting.js';
import { pathSegment } from '../../core/path-segment.js';

export type ServiceName = 'hosting' | 'echo' | 'mailbox' | 'health' | 'protocol';

export interface ServiceAuth {
  credential: Credential;
  /** A fresh credential after the server refused this one (401), when the service can refresh; once. */
  renew?: () => Promise<Credential | undefined>;
}

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

export /** The credential each service's own commands would use (loaded only for that service). */
async function credentialFor(ctx: Context, service: ServiceName, settings: ProfileSettings, profile: string): Promise<ServiceAuth> {
  switch (service) {
    case 'hosting':
      return { credential: (await hostingTarget(ctx)).credential };
    case 'echo': {
      const { resolveApiKey } = await import('../../core/echo/credentials.js');
      const k = await resolveApiKey({ envKey: ctx.env.LANYARD_API_KEY, store: () => ctx.credentials(), baseUrl: baseOf('echo', settings, profile) });
      return { credential: k ? { scheme: 'query', name: 'key', value: k.key } : { scheme: 'none' } };
    }
    case 'health': {
      const { resolveToken } = await import('./health.js');
      return { credential: { scheme: 'bearer', token: (await resolveToken(ctx, settings)).token } };
    }
    case 'protocol': {
      // The stored tokens, refreshed when they expire and once more after a
      // 401 (as `protocol request` does); no sign-in from here: without
      // tokens the request goes out bare.
      const [{ currentTokens, refreshTokens }, { protocolDeps }] = await Promise.all([import('../../core/protocol/flow.js'), import('./protocol.js')]);
      const deps = await protocolDeps(ctx);
      const t = await currentTokens(deps, requireSetting(settings, 'protocol.serverUrl', profile));
      if (!t) return { credential: { scheme: 'none' } };
      return {
        credential: { scheme: 'bearer', token: t.accessToken },
        renew: async () => {
          const next = await refreshTokens(deps, t);
          return next ? { scheme: 'bearer', token: next.accessToken } : undefined;
        },
      };
    }
    case 'mailbox':
      // The mailbox API defines no authentication.
      return { credential: { scheme: 'none' } };
  }
}
