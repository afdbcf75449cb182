/** `auth` subcommands for the protocol service (implemented by its issue). */
import type { Context } from '../../context.js';
import type { AuthLoginOptions, AuthLogoutOptions, AuthStatusEntry, AuthTokenOptions } from '../auth/index.js';
import { LanyardError } from '../../../core/errors.js';

const todo = (what: string): never => {
  throw new LanyardError('not_implemented', `${what} is not implemented yet`);
};

export async function runProtocolLogin(_ctx: Context, _o: AuthLoginOptions): Promise<void> { todo('auth login (protocol)'); }
export async function runProtocolToken(_ctx: Context, _o: AuthTokenOptions): Promise<void> { todo('auth token (protocol)'); }
export async function runProtocolLogout(_ctx: Context, _o: AuthLogoutOptions): Promise<void> { todo('auth logout (protocol)'); }
/** Lines for `auth status`; called by the hosting status command. */
export async function protocolStatusEntries(_ctx: Context, _showToken: boolean): Promise<AuthStatusEntry[]> { return []; }
