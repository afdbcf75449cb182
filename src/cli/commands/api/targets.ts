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
}

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

/** Credentials of the non-hosting services, registered by their command modules. */
export type CredentialProvider = (ctx: Context, url: string) => Promise<Credential>;
const providers: Partial<Record<ApiService, CredentialProvider>> = {};
export function registerApiCredentialProvider(service: ApiService, p: CredentialProvider): void {
  providers[service] = p;
}

async function credentialFor(ctx: Context, service: ApiService, url: string): Promise<Credential> {
  if (service === 'hosting') return (await hostingTarget(ctx)).credential;
  const p = providers[service];
  return p ? await p(ctx, url) : { scheme: 'none' };
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
      if (within(url, base)) return { url: url.toString(), service: s, credential: await credentialFor(ctx, s, url.toString()) };
    }
    ctx.warn(`${url.origin} is not an endpoint of profile "${name}"; sending the request without credentials`);
    return { url: url.toString(), service, credential: { scheme: 'none' } };
  }
  if (!target.startsWith('/')) target = '/' + target;
  const base = baseOf(service, settings, name);
  const url = base.replace(/\/+$/, '') + target;
  return { url, service, credential: await credentialFor(ctx, service, url) };
}
