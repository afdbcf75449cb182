/** `auth` subcommands for the health service (implemented by its issue). */
import type { Context } from '../../context.js';
import type { AuthLoginOptions, AuthLogoutOptions, AuthStatusEntry, AuthTokenOptions } from '../auth/index.js';
import { LanyardError } from '../../../core/errors.js';

const todo = (what: string): never => {
  throw new LanyardError('not_implemented', `${what} is not implemented yet`);
};

export async function runHealthLogin(_ctx: Context, _o: AuthLoginOptions): Promise<void> { todo('auth login (health)'); }
export async function runHealthToken(_ctx: Context, _o: AuthTokenOptions): Promise<void> { todo('auth token (health)'); }
export async function runHealthLogout(_ctx: Context, _o: AuthLogoutOptions): Promise<void> { todo('auth logout (health)'); }
/** Lines for `auth status`; called by the hosting status command. */
export async function healthStatusEntries(_ctx: Context, _showToken: boolean): Promise<AuthStatusEntry[]> { return []; }
