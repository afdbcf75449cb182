/** The hosting service's endpoints in the selected profile (web, API) and the OAuth app's client id: what its sign-ins need. */
import type { Context } from '../../context.js';
import { requireSetting } from '../../../core/config/settings.js';

export interface HostingEndpoints {
  profile: string;
  webUrl: string;
  apiUrl: string;
  clientId: string;
}

export async function hostingEndpoints(ctx: Context, clientIdOverride?: string): Promise<HostingEndpoints> {
  const { name, settings } = await ctx.profile();
  return {
    profile: name,
    webUrl: requireSetting(settings, 'hosting.webUrl', name),
    apiUrl: requireSetting(settings, 'hosting.apiUrl', name),
    clientId: clientIdOverride ?? requireSetting(settings, 'hosting.clientId', name),
  };
}
