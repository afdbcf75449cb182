/**
 * The echo API's key as commands use it: `LANYARD_API_KEY` from the
 * environment takes precedence, else the key stored for the API's host. The
 * one place a profile becomes the echo service's credential strategy.
 */
import type { Context } from '../../context.js';
import type { CredentialProvider } from '../../../core/auth/provider.js';
import { apiKeyCredential, resolveApiKey, type ResolvedApiKey } from '../../../core/echo/credentials.js';
import { readAsOpened } from '../../../core/credentials/as-opened.js';

/**
 * The API key for `baseUrl`: LANYARD_API_KEY, else the stored one; undefined
 * when there is none. `asOpened` (listings: `auth status`): the stored one as
 * the store read it when it opened (core/credentials/as-opened.ts).
 */
export function echoApiKey(ctx: Context, baseUrl: string, o: { asOpened?: boolean } = {}): Promise<ResolvedApiKey | undefined> {
  const store = async () => {
    const s = (await ctx.credentialStorage()).store();
    return o.asOpened ? readAsOpened(s) : s;
  };
  return resolveApiKey({ envKey: ctx.env.LANYARD_API_KEY, store, baseUrl });
}

/** The echo API's credential strategy for `baseUrl`; undefined without a key. */
export async function echoAuth(ctx: Context, baseUrl: string): Promise<CredentialProvider | undefined> {
  const key = await echoApiKey(ctx, baseUrl);
  return key && apiKeyCredential(key);
}
