/** Shared bits of the echo commands: the API base URL and stdin input. */
import type { Context } from '../../context.js';
import type { IO } from '../../io.js';
import { UsageError } from '../../usage-error.js';
import { requireSetting, type ProfileSettings } from '../../../core/config/settings.js';

export async function echoProfile(ctx: Context): Promise<{ name: string; settings: ProfileSettings; baseUrl: string }> {
  const { name, settings } = await ctx.profile();
  return { name, settings, baseUrl: requireSetting(settings, 'echo.baseUrl', name) };
}

/** Reads all of stdin (refusing an interactive terminal, which would just hang). */
export async function readStdin(io: IO, what: string, hint: string, maxBytes = 1024 * 1024): Promise<string> {
  if (io.stdinIsTTY) throw new UsageError(`${what} is read from stdin, which is a terminal`, hint);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of io.stdin) {
    const b = typeof c === 'string' ? Buffer.from(c) : (c as Buffer);
    size += b.length;
    if (size > maxBytes) throw new UsageError(`${what} on stdin is larger than ${maxBytes} bytes`);
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8');
}
