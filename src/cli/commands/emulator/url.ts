/** The emulator URL given by --url or LANYARD_EMULATOR_URL, checked (a usage error when it is not an http(s) URL), without a trailing slash. */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors/usage-error.js';

export function explicitEmulatorUrl(ctx: Context, url: string | undefined): string | undefined {
  const explicit = url ?? (ctx.env.LANYARD_EMULATOR_URL || undefined);
  if (explicit === undefined) return undefined;
  if (!/^https?:\/\/\S+$/i.test(explicit) || !URL.canParse(explicit))
    throw new UsageError(`--url: ${JSON.stringify(explicit)} is not an http(s) URL of an emulator`);
  return explicit.replace(/\/+$/, '');
}
