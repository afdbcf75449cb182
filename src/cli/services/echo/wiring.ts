/**
 * The echo API's key as commands use it: `LANYARD_API_KEY` from the
 * environment takes precedence, else the key stored for the API's host. The
 * one place a profile becomes the echo service's credential strategy.
 */
import type { Context } from '../../context.js';
import type { CredentialProvider } from '../../../core/auth/provider.js';
import { apiKeyCredential, resolveApiKey, type ResolvedApiKey } from '../../../core/echo/credentials.js';

/** The API key for `baseUrl`: LANYARD_API_KEY, else the stored one; undefined when there is none. */
export function echoApiKey(ctx: Context, baseUrl: string): Promise<ResolvedApiKey | undefined> {
  return resolveApiKey({ envKey: ctx.env.LANYARD_API_KEY, store: async () => (await ctx.credentialStorage()).store(), baseUrl });
}

/** The echo API's credential strategy for `baseUrl`; undefined without a key. */
export async function echoAuth(ctx: Context, baseUrl: string): Promise<CredentialProvider | undefined> {
  const key = await echoApiKey(ctx, baseUrl);
  return key && apiKeyCredential(key);
}
