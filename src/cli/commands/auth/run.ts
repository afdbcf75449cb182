/** Hosting sign-in commands (implemented by the hosting-auth issue). */
import type { Context } from '../../context.js';
import type { AuthDeviceOptions, AuthLoginOptions, AuthLogoutOptions, AuthStatusOptions, AuthTokenCreateOptions, AuthTokenOptions } from './index.js';
import { LanyardError } from '../../../core/errors.js';

const todo = (what: string): never => {
  throw new LanyardError('not_implemented', `${what} is not implemented yet`);
};

export async function runAuthDevice(_ctx: Context, _o: AuthDeviceOptions): Promise<void> { todo('auth device'); }
export async function runAuthLogin(_ctx: Context, _o: AuthLoginOptions): Promise<void> { todo('auth login'); }
export async function runAuthToken(_ctx: Context, _o: AuthTokenOptions): Promise<void> { todo('auth token'); }
export async function runAuthTokenCreate(_ctx: Context, _o: AuthTokenCreateOptions): Promise<void> { todo('auth token create'); }
export async function runAuthStatus(_ctx: Context, _o: AuthStatusOptions): Promise<void> { todo('auth status'); }
export async function runAuthLogout(_ctx: Context, _o: AuthLogoutOptions): Promise<void> { todo('auth logout'); }
