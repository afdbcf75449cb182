/** `lanyard echo auth-info` and `echo token`: a bearer token per scheme. */
import type { Context } from '../../context.js';
import { parseDuration, waitTimeoutMs } from '../../option-parse.js';
import { relativeTime } from '../../terminal/time-text.js';
import { UsageError } from '../../errors/usage-error.js';
import { isEchoTokenScheme } from '../../../shared/echo.js';
import { fetchAuthInfo } from '../../../core/echo/api.js';
import { obtainSchemeToken, type SchemeToken, schemeTokenCredential } from '../../../core/echo/tokens.js';
import type { EchoTokenOptions } from './options.js';
import { echoProfile } from './common.js';
import { requirePerson } from '../../terminal/interactive.js';

async function obtain(ctx: Context, opts: EchoTokenOptions): Promise<{ token: SchemeToken; baseUrl: string }> {
  if (!isEchoTokenScheme(opts.scheme)) throw new UsageError(`--scheme: unknown scheme "${opts.scheme}"`);
  const lifetimeMs = parseDuration(opts.lifetime ?? '1h', '--lifetime');
  if (lifetimeMs < 1000 || lifetimeMs > 3_600_000 || lifetimeMs % 1000) throw new UsageError('--lifetime must be whole seconds between 1s and 1h');
  const timeoutMs = waitTimeoutMs(ctx, '5m');
  const { settings, baseUrl } = await echoProfile(ctx);
  const http = await ctx.http();
  const gate = () =>
    requirePerson(
      ctx,
      `the ${opts.scheme} sign-in`,
      `run \`lanyard echo token --scheme ${opts.scheme}\` once at a terminal (the token is cached until it expires), or use a scheme that needs no browser`,
    );
  const token = await obtainSchemeToken(
    {
      scheme: opts.scheme,
      credentialsFile: opts.credentials,
      audience: opts.audience ?? settings['echo.audience'],
      issuer: opts.issuer,
      lifetimeSec: lifetimeMs / 1000,
      idpUrl: settings['echo.idpUrl'],
      clientId: opts.clientId ?? settings['echo.idpClientId'],
      appPlatformUrl: settings['echo.appPlatformUrl'],
      project: opts.project ?? settings['echo.appPlatformProject'],
      fresh: !!opts.fresh,
      openBrowser: opts.browser !== false,
      timeoutMs,
      loginHint: opts.loginHint,
    },
    {
      http,
      clock: ctx.clock,
      browser: { open: async (url) => (gate(), (await ctx.browser()).open(url)) },
      signal: ctx.signal,
      store: async () => (await ctx.credentialStorage()).store(),
      onAuthorizationUrl: (url, opened) => {
        gate();
        ctx.io.err(
          opened
            ? `Asked the system to open a browser; if no sign-in page appears, open this URL:\n  ${url}`
            : `Open this URL in a browser to sign in:\n  ${url}`,
        );
        ctx.io.err('Waiting for the sign-in to finish (Ctrl-C to cancel)…');
      },
    },
  );
  const who = token.principal ? ` for ${token.principal}` : '';
  const until = relativeTime(token.expiresAt, ctx.clock.now());
  if (token.source === 'cache') ctx.io.err(`Using the cached identity token${who} (expires ${until})`);
  else if (token.source === 'sign-in') ctx.io.err(`Signed in${who}; token cached until it expires (${until})`);
  return { token, baseUrl };
}

export async function runEchoAuthInfo(ctx: Context, opts: EchoTokenOptions): Promise<void> {
  const { token, baseUrl } = await obtain(ctx, opts);
  const info = await fetchAuthInfo(await ctx.http(), { baseUrl, path: token.path, auth: schemeTokenCredential(token), signal: ctx.signal });
  ctx.output.rows(
    [info],
    [
      { header: 'id', value: (i) => i.id },
      { header: 'email', value: (i) => i.email },
    ],
    info,
  );
}

export async function runEchoToken(ctx: Context, opts: EchoTokenOptions): Promise<void> {
  const { token } = await obtain(ctx, opts);
  const json = {
    token: token.token,
    scheme: opts.scheme,
    path: token.path,
    source: token.source,
    expiresAt: new Date(token.expiresAt).toISOString(),
  };
  ctx.output.document(json, () => ctx.io.out(token.token));
}
