/** `lanyard auth device`: the device flow (the default interactive sign-in). */
import type { Context } from '../../context.js';
import type { AuthDeviceOptions } from './index.js';
import { hostingEndpoints, scopesOption, storeSignIn } from './common.js';

export async function runAuthDevice(ctx: Context, o: AuthDeviceOptions): Promise<void> {
  const scopes = scopesOption(o.scopes);
  const ep = await hostingEndpoints(ctx);
  const { runDeviceFlow } = await import('../../../core/hosting/device-flow.js');
  const spinner = ctx.io.stderrIsTTY ? (await import('ora')).default({ stream: ctx.io.stderr, isEnabled: true, text: 'Waiting for authorization…' }) : undefined;
  let token;
  try {
    token = await runDeviceFlow({
      http: await ctx.http(),
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
        ctx.io.err(`The code expires in ${Math.round(auth.expiresIn / 60)} minutes.`);
        spinner?.start();
      },
      onEvent: (e) => {
        if (e.kind === 'slow_down') {
          if (spinner) spinner.text = `Waiting for authorization… (server asked to slow down: every ${e.intervalSec} s)`;
          else ctx.io.err(`server asked to slow down: polling every ${e.intervalSec} s`);
        }
        if (e.kind === 'network_error') ctx.warn(`polling failed (${e.error.message}); retrying`);
      },
    });
  } finally {
    spinner?.stop();
  }
  await storeSignIn(ctx, ep.apiUrl, token, { origin: 'device', insecure: o.insecureStorage, clientId: ep.clientId });
}
