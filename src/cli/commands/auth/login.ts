/**
 * `lanyard auth login`: the web application flow with a loopback redirect on
 * 127.0.0.1. The client secret comes only from LANYARD_CLIENT_SECRET or stdin;
 * it is never taken from arguments, printed or stored.
 */
import type { Context } from '../../context.js';
import { waitTimeoutMs } from '../../option-parse.js';
import { UsageError } from '../../errors/usage-error.js';
import type { AuthLoginOptions } from './options.js';
import { type HostingEndpoints, hostingEndpoints, HOSTING_INSTEAD, scopesOption, storeSignIn, withSpinner } from './common.js';
import type { TokenSet } from '../../../core/hosting/oauth.js';
import { loopbackOverSsh, refuseRemoteWithoutPerson, requirePerson } from '../../terminal/interactive.js';
import { readStdinSecret } from '../../terminal/stdin.js';

async function clientSecret(ctx: Context): Promise<string> {
  const fromEnv = ctx.env.LANYARD_CLIENT_SECRET;
  if (fromEnv) return fromEnv;
  const fromStdin = ctx.io.stdinIsTTY ? '' : await readStdinSecret(ctx.io, 'the client secret');
  if (fromStdin) return fromStdin;
  throw new UsageError(
    "the web flow needs the OAuth app's client secret, from LANYARD_CLIENT_SECRET or standard input (never an argument; it is not stored)",
    'on a personal machine, sign in with `lanyard auth device` instead: it needs no secret',
  );
}

export async function runAuthLogin(ctx: Context, o: AuthLoginOptions): Promise<void> {
  if (o.clientCredentials) throw new UsageError('--client-credentials applies to protocol servers (--server)');
  const ep = await hostingEndpoints(ctx, o.clientId);
  // Checked and stored before the browser's page is answered: it says signed in only once that is true.
  await webFlowToken(ctx, ep, scopesOption(o.scopes), o, (token) =>
    storeSignIn(ctx, ep.apiUrl, token, { origin: 'web', insecure: o.insecureStorage, clientId: ep.clientId }),
  );
}

/**
 * The web flow in a browser (`auth login`, `auth refresh --web`): the token the person approved; `accept`
 * (checking and storing it) runs before the browser's page says how the sign-in ended.
 */
export async function webFlowToken(
  ctx: Context,
  ep: HostingEndpoints,
  scopes: string[],
  o: Pick<AuthLoginOptions, 'login' | 'signup' | 'selectAccount' | 'browser'>,
  accept?: (token: TokenSet) => Promise<unknown>,
): Promise<TokenSet> {
  const timeoutMs = waitTimeoutMs(ctx, '5m');
  // A secret piped in leaves only stderr to tell whether a person is there; checked before reading it.
  const stdinIsInput = !ctx.env.LANYARD_CLIENT_SECRET && !ctx.io.stdinIsTTY;
  const remote = refuseRemoteWithoutPerson(
    ctx,
    'the browser sign-in',
    'sign in with `lanyard auth device` instead: its code is entered in a browser anywhere',
    {
      stdinIsInput,
    },
  );
  requirePerson(ctx, 'the browser sign-in', HOSTING_INSTEAD, { stdinIsInput });
  const secret = await clientSecret(ctx);
  const { runWebFlow } = await import('../../../core/hosting/web-flow.js');
  const http = await ctx.http();
  return withSpinner(ctx, 'Waiting for the browser…', (spinner) =>
    runWebFlow({
      http,
      clock: ctx.clock,
      webUrl: ep.webUrl,
      clientId: ep.clientId,
      clientSecret: secret,
      scopes,
      login: o.login,
      allowSignup: o.signup,
      selectAccount: o.selectAccount,
      timeoutMs,
      signal: ctx.signal,
      // The spinner ends before accept's own lines (the sign-in's outcome on stderr).
      ...(accept ? { accept: (token: TokenSet) => (spinner.stop(), accept(token)) } : {}),
      openUrl: async (url) => {
        if (remote) ctx.io.err(loopbackOverSsh(url, 'Or press Ctrl-C and run `lanyard auth device` (a code to enter in any browser).'));
        else {
          const opened = o.browser !== false && (await (await ctx.browser()).open(url));
          ctx.io.err(
            opened
              ? `Asked the system to open a browser on this machine; if no sign-in page appears, open this URL in a browser here:\n  ${url}`
              : `Open this URL in a browser on this machine to sign in:\n  ${url}`,
          );
        }
        spinner.start();
      },
    }),
  );
}
