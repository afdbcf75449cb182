/** `--hostname` of `auth switch`, `auth token` and `auth setup-git`: a host name with an optional port, as a URL would carry it. */
import type { Context } from '../../context.js';
import { requireSetting } from '../../../core/config/settings.js';
import { ValidationError } from '../../../core/errors.js';
import { type HostingStores, openHostingStores } from '../../services/hosting/wiring.js';

/** The host, lower-cased; a usage error (exit 2) for anything a URL could not carry as its host. */
export function hostnameOption(value: string): string {
  const host = value.trim().toLowerCase();
  const refuse = () => new ValidationError(`--hostname: ${JSON.stringify(value)} is not a host name`);
  if (!/^[a-z0-9.-]+(:\d+)?$/.test(host) || host.startsWith('.') || host.startsWith('-')) throw refuse();
  let parsed: URL;
  try {
    parsed = new URL(`https://${host}`);
  } catch {
    throw refuse(); // e.g. a number too large to be an IPv4 address
  }
  // What the URL made of it must be what was given (no normalised IPv4 forms such as 0x7f.1).
  if (parsed.host !== host && parsed.host !== host.replace(/:443$/, '')) throw refuse();
  return host;
}

/** Whether `host` (from --hostname) is the profile's hosting service: its API host, or its web host. */
export function isProfileHost(settings: Record<string, string | undefined>, host: string): boolean {
  return [settings['hosting.apiUrl'], settings['hosting.webUrl']].some((u) => u !== undefined && new URL(u).host === host);
}

/**
 * The stored accounts of `--hostname` (the API host as `auth status` shows
 * it, or the profile's web host), else of the profile's API host.
 */
export async function hostingStoresFor(ctx: Context, hostname: string | undefined): Promise<HostingStores> {
  const { name, settings } = await ctx.profile();
  if (hostname === undefined) return openHostingStores(ctx, requireSetting(settings, 'hosting.apiUrl', name));
  const host = hostnameOption(hostname);
  const api = settings['hosting.apiUrl'];
  if (api && isProfileHost(settings, host)) return openHostingStores(ctx, api);
  return openHostingStores(ctx, `https://${host}`);
}
