/** Resolves the hosting endpoints and credential of the selected profile. */
import type { Context } from './context.js';
import { requireSetting } from '../core/config/settings.js';
import { resolveHostingCredential, type ResolvedHostingCredential, type StoredTokenLookup } from '../core/hosting/credential.js';
import type { HttpClient } from '../core/http/client.js';

export interface HostingTarget extends ResolvedHostingCredential {
  apiUrl: string;
  http: HttpClient;
  profile: string;
}

/** Set by the auth module: looks up (and refreshes) the stored token of the active account. */
let storedLookup: ((ctx: Context) => StoredTokenLookup) | undefined;
export function setStoredTokenLookup(f: (ctx: Context) => StoredTokenLookup): void {
  storedLookup = f;
}

export async function hostingTarget(ctx: Context): Promise<HostingTarget> {
  const { name, settings } = await ctx.profile();
  const apiUrl = requireSetting(settings, 'hosting.apiUrl', name);
  const cred = await resolveHostingCredential(ctx.env, apiUrl, storedLookup?.(ctx));
  return { ...cred, apiUrl, http: await ctx.http(), profile: name };
}
