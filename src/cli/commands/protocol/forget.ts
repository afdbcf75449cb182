/** `lanyard protocol forget <server-url>`: drops a server's tokens and Lanyard's registration at its authorization server. */
import type { Context } from '../../context.js';
import { authBaseOf, serverKeyOf } from '../../../core/protocol/endpoints.js';
import { protocolCredentials } from '../../services/protocol/credentials.js';

export async function runProtocolForget(ctx: Context, url: string): Promise<void> {
  const key = serverKeyOf(url);
  const creds = await protocolCredentials(ctx);
  const t = await creds.tokens(key);
  // The registration is kept per authorization server: the one the tokens name, else the server's own origin (2025-03-26).
  const issuer = t?.issuer ?? authBaseOf(url);
  const client = await creds.client(issuer);
  const removedTokens = await creds.deleteTokens(key);
  const removedClient = client ? await creds.deleteClient(issuer) : false;
  const what = [removedTokens ? `the tokens of ${key}` : undefined, removedClient ? `client ${client!.clientId} at ${issuer}` : undefined].filter(Boolean);
  ctx.io.err(what.length ? `Forgot ${what.join(' and ')}` : `Nothing was stored for ${key}`);
}
