/**
 * The protocol lines of `auth status`: the stored tokens of each server, read
 * without the sign-in flows (flow.ts, the loopback receiver, the device
 * grant), which `auth status` never runs and which cost it ≈ 2 ms of
 * start-up to load.
 */
import type { Context } from '../../context.js';
import type { AuthStatusEntry } from './options.js';
import { renewable } from '../../../core/protocol/grants/refresh.js';
import { ProtocolCredentials, protocolTokensAccount } from '../../../core/protocol/store.js';
import { holderKind, readAsOpened } from '../../../core/credentials/as-opened.js';
import { maskSecret } from '../../../core/credentials/mask.js';
import { tokenIdentity } from '../../../core/auth/token-claims.js';

export async function protocolStatusEntries(ctx: Context, showToken: boolean): Promise<AuthStatusEntry[]> {
  // The store as opened: one keychain search for every line, not a keychain call per token.
  const storage = await ctx.credentialStorage();
  const creds = new ProtocolCredentials(readAsOpened(storage.store()));
  const { store } = creds;
  const now = ctx.clock.now();
  const out: AuthStatusEntry[] = [];
  for (const server of await creds.servers()) {
    const t = await creds.tokens(server);
    if (!t) continue;
    const client = await creds.client(t.issuer);
    const live = t.expiresAt === undefined || t.expiresAt > now;
    const refreshable = renewable(t);
    // Who the token is for, as it says (a JWT's user or subject); a client signed in as itself is its own subject.
    const id = tokenIdentity(t.accessToken);
    const user = id?.user ?? id?.subject ?? (t.grant === 'client_credentials' ? (id?.client ?? client?.clientId) : undefined);
    out.push({
      service: 'protocol',
      host: server,
      account: client?.clientId,
      ...(user ? { user } : {}),
      // Where the tokens were read: the keychain, or the 0600 file (file-over-keychain.ts).
      source: (await holderKind(storage.lookup(), protocolTokensAccount(server))) ?? store.kind,
      scopes: t.scope ? t.scope.split(/\s+/).filter(Boolean) : [],
      valid: live || refreshable,
      detail: live ? undefined : refreshable ? 'access token expired; refreshed on next use' : 'access token expired; sign in again',
      expiresAt: t.expiresAt ? new Date(t.expiresAt).toISOString() : undefined,
      token: showToken ? t.accessToken : maskSecret(t.accessToken),
    });
  }
  return out;
}
