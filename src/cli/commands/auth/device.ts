/**
 * `lanyard auth device`: the device flow (the default interactive sign-in).
 * Asked for by name, it also runs without a terminal (device-headless.ts).
 */
import type { Context } from '../../context.js';
import type { TokenSet } from '../../../core/hosting/oauth.js';
import type { AuthDeviceOptions } from './options.js';
import { type HostingEndpoints, hostingEndpoints, HOSTING_INSTEAD, scopesOption, storeSignIn, withSpinner } from './common.js';
import { announceHeadless, deviceHeadless, expiresInWords } from './device-headless.js';
import type { DeviceAuthorization } from '../../../core/hosting/oauth.js';
import type { PollEvent } from '../../../core/auth/device-poll.js';

export async function runAuthDevice(ctx: Context, o: AuthDeviceOptions): Promise<void> {
  const ep = await hostingEndpoints(ctx);
  const token = await deviceFlowToken(ctx, ep, scopesOption(o.scopes), o);
  await storeSignIn(ctx, ep.apiUrl, token, { origin: 'device', insecure: o.insecureStorage, clientId: ep.clientId });
}

/** The device flow on a terminal or headless (`auth device`, `auth refresh`): the token the person approved. */
export async function deviceFlowToken(ctx: Context, ep: HostingEndpoints, scopes: string[], o: { browser?: boolean }): Promise<TokenSet> {
  const headless = deviceHeadless(ctx, HOSTING_INSTEAD);
  const { runDeviceFlow } = await import('../../../core/hosting/device-flow.js');
  const http = await ctx.http();
  return withSpinner(ctx, 'Waiting for authorization…', (spinner) =>
    runDeviceFlow({
      http,
      clock: ctx.clock,
      webUrl: ep.webUrl,
      clientId: ep.clientId,
      scopes,
      signal: ctx.signal,
      onCode: (auth) => showDeviceCode(ctx, auth, { headless, browser: o.browser, spinner }),
      onEvent: (e) => onPollEvent(ctx, e, spinner),
    }),
  );
}

type Spinner = Parameters<Parameters<typeof withSpinner>[2]>[0];

/** Shows the one-time code and the verification URI (opening it in a browser on a terminal), then starts the spinner. */
export async function showDeviceCode(ctx: Context, auth: DeviceAuthorization, o: { headless: boolean; browser?: boolean; spinner?: Spinner }): Promise<void> {
  if (o.headless) return announceHeadless(ctx, auth);
  ctx.io.err(`! First copy your one-time code: ${auth.userCode}`);
  const browse = o.browser !== false && ctx.io.stderrIsTTY;
  if (browse && (await (await ctx.browser()).open(auth.verificationUri))) {
    ctx.io.err(`Opening ${auth.verificationUri} in your browser…`);
  } else {
    ctx.io.err(`Then open ${auth.verificationUri} in a browser and enter it.`);
  }
  ctx.io.err(`The code expires in ${expiresInWords(auth.expiresIn)}.`);
  o.spinner?.start();
}

/** Says why polling slows down or failed for a moment. */
export function onPollEvent(ctx: Context, e: PollEvent, spinner?: Spinner): void {
  if (e.kind === 'slow_down' && !spinner?.text(`Waiting for authorization… (server asked to slow down: every ${e.intervalSec} s)`)) {
    ctx.io.err(`server asked to slow down: polling every ${e.intervalSec} s`);
  }
  if (e.kind === 'network_error') ctx.warn(`polling failed (${e.error.message}); retrying`);
}
