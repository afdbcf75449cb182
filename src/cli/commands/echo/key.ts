/** `lanyard echo key set|status|delete`: the API key in the credential store. */
import type { Context } from '../../context.js';
import { renderTable } from '../../output/output.js';
import { AuthRequiredError } from '../../../core/errors.js';
import { hostOf } from '../../../core/credentials/accounts.js';
import { apiKeyAccount, maskSecret, normaliseApiKey } from '../../../core/echo/credentials.js';
import { echoApiKey } from '../../services/echo/wiring.js';
import type { EchoKeyOptions } from './options.js';
import { echoProfile } from './common.js';
import { readStdinText } from '../../terminal/stdin.js';
import { promptDisabled } from '../../terminal/interactive.js';
import { promptHidden } from '../../terminal/hidden-prompt.js';

export async function runEchoKeySet(ctx: Context, _opts: EchoKeyOptions): Promise<void> {
  const { baseUrl } = await echoProfile(ctx);
  const key = normaliseApiKey(await typedOrPiped(ctx));
  const store = (await ctx.credentialStorage()).store();
  await store.set(apiKeyAccount(baseUrl), key);
  ctx.io.err(`API key ${maskSecret(key)} stored for ${hostOf(baseUrl)} (${store.kind})`);
  if (ctx.env.LANYARD_API_KEY) ctx.warn('LANYARD_API_KEY is set and takes precedence over the stored key');
}

/** The key from stdin, or at a terminal asked for without echo — never from argv or the shell's history. */
async function typedOrPiped(ctx: Context): Promise<string> {
  if (!ctx.io.stdinIsTTY || promptDisabled(ctx.env))
    return readStdinText(ctx.io, { what: 'the API key', hint: 'redirect it: `lanyard echo key set < key.txt`', maxBytes: 4096 });
  return promptHidden(ctx, 'API key (it is not shown): ');
}

export async function runEchoKeyStatus(ctx: Context): Promise<void> {
  const { baseUrl } = await echoProfile(ctx);
  const host = hostOf(baseUrl);
  const found = await echoApiKey(ctx, baseUrl);
  const status = { host, configured: !!found, source: found?.source ?? null, key: found ? maskSecret(found.key) : null };
  ctx.output.document(status, () => {
    if (found)
      renderTable(
        ctx.io,
        [status],
        [
          { header: 'host', value: (s) => s.host },
          { header: 'source', value: (s) => s.source ?? '' },
          { header: 'key', value: (s) => s.key ?? '' },
        ],
      );
  });
  if (!found) {
    throw new AuthRequiredError(`no API key for the echo API at ${host}`, {
      hint: 'set LANYARD_API_KEY, or store one: `printf %s "$KEY" | lanyard echo key set`',
    });
  }
}

export async function runEchoKeyDelete(ctx: Context, _opts: EchoKeyOptions): Promise<void> {
  const { baseUrl } = await echoProfile(ctx);
  const store = (await ctx.credentialStorage()).store();
  const deleted = await store.delete(apiKeyAccount(baseUrl));
  ctx.io.err(deleted ? `Deleted the stored API key for ${hostOf(baseUrl)}` : `No API key was stored for ${hostOf(baseUrl)}`);
  if (ctx.env.LANYARD_API_KEY) ctx.warn('LANYARD_API_KEY is still set in the environment');
}
