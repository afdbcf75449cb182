/** `lanyard auth device`: the device flow (the default interactive sign-in). */
import type { Context } from '../../context.js';
import type { AuthDeviceOptions } from './options.js';
import { hostingEndpoints, HOSTING_INSTEAD, scopesOption, storeSignIn, withSpinner } from './common.js';
import { requirePerson } from '../../interactive.js';

export async function runAuthDevice(ctx: Context, o: AuthDeviceOptions): Promise<void> {
  const scopes = scopesOption(o.scopes);
  const ep = await hostingEndpoints(ctx);
  requirePerson(ctx, 'the device sign-in', HOSTING_INSTEAD);
  const { runDeviceFlow } = await import('../../../core/hosting/device-flow.js');
  const http = await ctx.http();
  const token = await withSpinner(ctx, 'Waiting for authorization…', (spinner) =>
    runDeviceFlow({
      http,
      clock: ctx.clock,
      webUrl: ep.webUrl,
      clientId: ep.clientId,
      scopes,
      signal: ctx.signal,
      onCode: async (auth) => {
        ctx.io.err(`! First copy your one-time code: ${auth.userCode}`);
        const browse = o.browser !== false && ctx.io.stderrIsTTY;
        if (browse && (await (await ctx.browser()).open(auth.verificationUri))) {
          ctx.io.err(`Opening ${auth.verificationUri} in your browser…`);
        } else {
          ctx.io.err(`Then open ${auth.verificationUri} in a browser and enter it.`);
        }
        ctx.io.err(`The code expires in ${auth.expiresIn >= 120 ? `${Math.round(auth.expiresIn / 60)} minutes` : `${auth.expiresIn} seconds`}.`);
        spinner.start();
      },
      onEvent: (e) => {
        if (e.kind === 'slow_down' && !spinner.text(`Waiting for authorization… (server asked to slow down: every ${e.intervalSec} s)`)) {
          ctx.io.err(`server asked to slow down: polling every ${e.intervalSec} s`);
        }
        if (e.kind === 'network_error') ctx.warn(`polling failed (${e.error.message}); retrying`);
      },
    }),
  );
  await storeSignIn(ctx, ep.apiUrl, token, { origin: 'device', insecure: o.insecureStorage, clientId: ep.clientId });
}
