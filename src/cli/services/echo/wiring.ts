/**
 * The echo API's key as commands use it: `LANYARD_API_KEY` from the
 * environment takes precedence, else the key stored for the API's host. The
 * one place a profile becomes the echo service's credential strategy.
 */
import type { Context } from '../../context.js';
import type { CredentialProvider } from '../../../core/auth/provider.js';
import { apiKeyCredential, resolveApiKey, type ResolvedApiKey } from '../../../core/echo/credentials.js';
import { readAsOpened } from '../../../core/credentials/as-opened.js';
import { MemoryCredentialStore } from '../../../core/credentials/memory-store.js';

/**
 * The API key for `baseUrl`: LANYARD_API_KEY, else the stored one; undefined
 * when there is none. `asOpened` (listings: `auth status`): the stored one as
 * the store read it when it opened (core/credentials/as-opened.ts). Looked up
 * as the port's store() reads it, store by store (lookup()), so its `source`
 * names the store the key came from (the keychain, or the 0600 file).
 */
export async function echoApiKey(ctx: Context, baseUrl: string, o: { asOpened?: boolean } = {}): Promise<ResolvedApiKey | undefined> {
  // The environment's key, with no store opened; else the first store of the lookup that holds one.
  const fromEnv = await resolveApiKey({ envKey: ctx.env.LANYARD_API_KEY, store: async () => new MemoryCredentialStore(), baseUrl });
  if (fromEnv) return fromEnv;
  for (const s of (await ctx.credentialStorage()).lookup()) {
    const key = await resolveApiKey({ store: async () => (o.asOpened ? readAsOpened(s) : s), baseUrl });
    if (key) return key;
  }
  return undefined;
}

/** The echo API's credential strategy for `baseUrl`; undefined without a key. */
export async function echoAuth(ctx: Context, baseUrl: string): Promise<CredentialProvider | undefined> {
  const key = await echoApiKey(ctx, baseUrl);
  return key && apiKeyCredential(key);
}
