/** Lines for `lanyard auth status`: the echo API key and cached identity tokens. */
import type { Context } from '../../context.js';
import type { AuthStatusEntry } from './options.js';
import { hostOf } from '../../../core/credentials/accounts.js';
import { listCachedIdentityTokens, maskSecret } from '../../../core/echo/credentials.js';
import { holderKind, readAsOpened } from '../../../core/credentials/as-opened.js';
import { echoApiKey } from '../../services/echo/wiring.js';

export async function echoStatusEntries(ctx: Context, showToken: boolean): Promise<AuthStatusEntry[]> {
  const out: AuthStatusEntry[] = [];
  const { settings } = await ctx.profile();
  const baseUrl = settings['echo.baseUrl'];
  if (baseUrl) {
    const key = await echoApiKey(ctx, baseUrl, { asOpened: true });
    if (key) {
      out.push({
        service: 'echo',
        host: hostOf(baseUrl),
        account: 'API key',
        // The key's id: a fingerprint that names the key without showing it (node:crypto only when there is a key).
        user: `API key ${process.getBuiltinModule('node:crypto').createHash('sha256').update(key.key).digest('hex').slice(0, 8)}`,
        source: key.source,
        valid: true,
        detail: 'not checked until used',
        token: showToken ? key.key : maskSecret(key.key),
      });
    }
  }
  const storage = await ctx.credentialStorage();
  const store = readAsOpened(storage.store());
  for (const t of await listCachedIdentityTokens(store, ctx.clock.now())) {
    const rec = t.record;
    out.push({
      service: 'echo',
      host: t.host,
      account: rec.email,
      ...(rec.email ? { user: rec.email } : {}),
      // Where it was read: the keychain, or the 0600 file (file-over-keychain.ts).
      source: (await holderKind(storage.lookup(), t.account)) ?? store.kind,
      valid: t.valid,
      detail: `${t.kind === 'idtoken' ? 'identity token (--scheme id-token)' : `app-platform token of ${t.project} (--scheme app-platform)`}${t.valid ? '' : '; expired, signs in again on next use'}`,
      expiresAt: new Date(rec.expiresAt).toISOString(),
      token: showToken ? rec.token : maskSecret(rec.token),
    });
  }
  return out;
}
