/** `auth login|token|logout --server URL` (the protocol lines of `auth status`: protocol-status.ts). */
import type { Context } from '../../context.js';
import type { AuthLoginOptions, AuthLogoutOptions, AuthTokenOptions } from './options.js';
import { AuthRequiredError } from '../../../core/errors.js';
import { authorize, currentTokens, type AuthorizeOptions, type ProtocolAuthDeps } from '../../../core/protocol/flow.js';
import type { StoredTokens } from '../../../core/protocol/store.js';
import { withSpinner } from './common.js';
import { deviceHeadless } from './device-headless.js';
import { onPollEvent, showDeviceCode } from './device.js';
import { serverKeyOf } from '../../../core/protocol/endpoints.js';
import { protocolCredentials } from '../../services/protocol/credentials.js';
import { localTime } from '../../terminal/time-text.js';
import { protocolAuthExtras, protocolDeps } from '../../services/protocol/wiring.js';

export async function runProtocolLogin(ctx: Context, o: AuthLoginOptions): Promise<void> {
  const serverUrl = o.server!;
  serverKeyOf(serverUrl);
  const deps = await protocolDeps(ctx, o);
  const options = {
    ...(await protocolAuthExtras(o, ctx.env, ctx.signal)),
    serverUrl,
    scopes: o.scopes,
    clientId: o.clientId,
    clientCredentials: o.clientCredentials,
    device: o.device,
  };
  const t = o.device ? await deviceLogin(ctx, o, deps, options) : await authorize(deps, options);
  const parts = [
    t.scope ? `scope "${t.scope}"` : undefined,
    t.expiresAt ? `token expires ${localTime(t.expiresAt)}` : undefined,
    t.refreshToken ? 'refreshable' : undefined,
  ].filter(Boolean);
  ctx.io.err(`Signed in to ${t.server}${parts.length ? ` (${parts.join(', ')})` : ''}`);
}

export async function runProtocolToken(ctx: Context, o: AuthTokenOptions): Promise<void> {
  const serverUrl = o.server!;
  const deps = await protocolDeps(ctx);
  const t = await currentTokens(deps, serverUrl);
  if (!t) {
    throw new AuthRequiredError(`no token stored for ${serverKeyOf(serverUrl)}`, { hint: `run \`lanyard auth login --server ${serverUrl}\`` });
  }
  if (t.tokenType === 'DPoP' && t.dpopKey) {
    ctx.warn(
      'this token is DPoP-bound (RFC 9449): the server takes it only with a proof signed by its key, which stays in the credential store; call the server with `lanyard api --service protocol` or `lanyard protocol request`, or sign in with --no-dpop for a bearer token',
    );
  }
  ctx.io.out(t.accessToken);
}

export async function runProtocolLogout(ctx: Context, o: AuthLogoutOptions): Promise<void> {
  const key = serverKeyOf(o.server!);
  const creds = await protocolCredentials(ctx);
  const removed = await creds.deleteTokens(key);
  ctx.io.err(removed ? `Forgot the tokens of ${key}` : `No tokens were stored for ${key}`);
}

/** Lines for `auth status`; called by the hosting status command. */
/** `--device`: the protocol server's device grant, shown and polled as `auth device` does (also without a terminal). */
async function deviceLogin(ctx: Context, o: AuthLoginOptions, deps: ProtocolAuthDeps, options: AuthorizeOptions): Promise<StoredTokens> {
  const headless = deviceHeadless(ctx, `use \`lanyard auth login --server ${o.server} --client-credentials\` with LANYARD_CLIENT_SECRET`);
  return withSpinner(ctx, 'Waiting for authorization…', (spinner) =>
    authorize(
      {
        ...deps,
        presentDeviceCode: (auth) => showDeviceCode(ctx, auth, { headless, browser: o.browser, spinner }),
        onDeviceEvent: (e) => onPollEvent(ctx, e, spinner),
      },
      options,
    ),
  );
}
