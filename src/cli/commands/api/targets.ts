/**
 * Where `lanyard api` sends a request and with which credential. A path goes
 * to the chosen service of the profile; a full URL gets the credential of the
 * service whose configured endpoint it belongs to — and none for any other
 * host, so a token never leaks to a server it was not issued for.
 */
import type { Context } from '../../context.js';
import type { Credential } from '../../../core/http/client.js';
import type { ProfileSettings, SettingKey } from '../../../core/config/settings.js';
import { requireSetting } from '../../../core/config/settings.js';
import { hostingTarget } from '../../hosting.js';
import { UsageError } from '../../usage-error.js';

export type ApiService = 'hosting' | 'echo' | 'mailbox' | 'health' | 'protocol';

export interface ApiTarget {
  url: string;
  service: ApiService;
  credential: Credential;
  /** A fresh credential after the server refused this one (401), when the service can refresh; once. */
  renew?: () => Promise<Credential | undefined>;
}

type Auth = Pick<ApiTarget, 'credential' | 'renew'>;

/** The base URL of each service in a profile. */
function baseOf(service: ApiService, settings: ProfileSettings, profile: string): string {
  const key: Record<ApiService, SettingKey> = {
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
    return `${base}/rest/v2/${encodeURIComponent(domain)}/${encodeURIComponent(user)}/mailbox`;
  }
  if (service === 'protocol') return new URL(base).origin;
  return base;
}

function within(url: URL, base: string): boolean {
  const b = new URL(base);
  return url.origin === b.origin && (url.pathname + '/').startsWith(b.pathname.replace(/\/?$/, '/'));
}

/** The credential each service's own commands would use (loaded only for that service). */
async function credentialFor(ctx: Context, service: ApiService, settings: ProfileSettings, profile: string): Promise<Auth> {
  switch (service) {
    case 'hosting':
      return { credential: (await hostingTarget(ctx)).credential };
    case 'echo': {
      const { resolveApiKey } = await import('../../../core/echo/credentials.js');
      const k = await resolveApiKey({ envKey: ctx.env.LANYARD_API_KEY, store: () => ctx.credentials(), baseUrl: baseOf('echo', settings, profile) });
      return { credential: k ? { scheme: 'query', name: 'key', value: k.key } : { scheme: 'none' } };
    }
    case 'health': {
      const { resolveToken } = await import('../../services/health.js');
      return { credential: { scheme: 'bearer', token: (await resolveToken(ctx, settings)).token } };
    }
    case 'protocol': {
      // The stored tokens, refreshed when they expire and once more after a
      // 401 (as `protocol request` does); no sign-in from here: without
      // tokens the request goes out bare.
      const [{ currentTokens, refreshTokens }, { protocolDeps }] = await Promise.all([
        import('../../../core/protocol/flow.js'),
        import('../../services/protocol.js'),
      ]);
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

export async function resolveApiTarget(ctx: Context, target: string, service: ApiService): Promise<ApiTarget> {
  const { name, settings } = await ctx.profile();
  if (/^https?:\/\//i.test(target)) {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      throw new UsageError(`invalid URL "${target}"`);
    }
    const order: ApiService[] = [service, 'hosting', 'echo', 'mailbox', 'health', 'protocol'];
    for (const s of order) {
      let base: string;
      try {
        base = baseOf(s, settings, name);
      } catch {
        continue;
      }
      if (within(url, base)) return { url: url.toString(), service: s, ...(await credentialFor(ctx, s, settings, name)) };
    }
    ctx.warn(`${url.origin} is not an endpoint of profile "${name}"; sending the request without credentials`);
    return { url: url.toString(), service, credential: { scheme: 'none' } };
  }
  if (!target.startsWith('/')) target = '/' + target;
  const base = baseOf(service, settings, name);
  const url = base.replace(/\/+$/, '') + target;
  return { url, service, ...(await credentialFor(ctx, service, settings, name)) };
}
