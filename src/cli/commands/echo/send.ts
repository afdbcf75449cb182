/** `lanyard echo send`: POST /echo with the API key. */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors/usage-error.js';
import { AuthRequiredError } from '../../../core/errors.js';
import { hostOf } from '../../../core/credentials/accounts.js';
import { sendEcho } from '../../../core/echo/api.js';
import type { EchoSendOptions } from './options.js';
import { echoProfile } from './common.js';
import { readStdinText } from '../../terminal/stdin.js';
import { echoAuth } from '../../services/echo/wiring.js';

export async function runEchoSend(ctx: Context, message: string | undefined, opts: EchoSendOptions): Promise<void> {
  if (opts.stdin && message !== undefined) throw new UsageError('give the message as an argument or with --stdin, not both');
  if (!opts.stdin && message === undefined) throw new UsageError('no message: `lanyard echo send <message>`, or pipe it in with --stdin');
  const text = opts.stdin
    ? (await readStdinText(ctx.io, { what: 'the message', hint: 'pipe it in: `echo hello | lanyard echo send --stdin`' })).replace(/\r?\n$/, '')
    : message!;
  const { baseUrl } = await echoProfile(ctx);
  const auth = await echoAuth(ctx, baseUrl);
  if (!auth) {
    throw new AuthRequiredError(`no API key for the echo API at ${hostOf(baseUrl)}`, {
      hint: 'set LANYARD_API_KEY, or store one: `printf %s "$KEY" | lanyard echo key set`',
    });
  }
  const echoed = await sendEcho(await ctx.http(), { baseUrl, auth, message: text, signal: ctx.signal });
  ctx.output.document(echoed, () => ctx.io.out(echoed.message));
}
