/** The protocol's credential store (tokens per server, Lanyard's registrations per authorization server), built in one place for every command. */
import type { Context } from '../../context.js';
import { ProtocolCredentials } from '../../../core/protocol/store.js';

/** The protocol credentials of this run's credential storage (the keychain, else the 0600 file). */
export async function protocolCredentials(ctx: Context): Promise<ProtocolCredentials> {
  return new ProtocolCredentials((await ctx.credentialStorage()).store());
}
