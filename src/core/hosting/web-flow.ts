/**
 * The web application flow: authorize URL, a loopback redirect on 127.0.0.1
 * with a fresh `state`, and the code exchange with client_id, client_secret
 * and the same redirect_uri. No PKCE parameters (the service does not support
 * them).
 */
import { functionOption, httpUrlOption, stringOption } from '../options.js';
import { HostingOAuthPath } from '../../shared/hosting-oauth.js';
import { startLoopbackReceiver } from '../auth/loopback.js';
import { newState } from '../auth/state.js';
import type { Clock, RandomBytes } from '../deps.js';
import { AuthRequiredError, OAuthError } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import { authorizationCodeRequest, processTokenResponse, type TokenSet } from './oauth.js';

export interface AuthorizeUrlOptions {
  webUrl: string;
  clientId: string;
  redirectUri: string;
  state: string;
  scopes?: readonly string[];
  login?: string;
  /** false sends allow_signup=false. */
  allowSignup?: boolean;
  selectAccount?: boolean;
}

export function authorizeUrl(o: AuthorizeUrlOptions): string {
  const u = new URL(httpUrlOption(o.webUrl, 'webUrl').replace(/\/+$/, '') + HostingOAuthPath.authorize);
  u.searchParams.set('client_id', stringOption(o.clientId, 'clientId'));
  u.searchParams.set('redirect_uri', o.redirectUri);
  if (o.scopes?.length) u.searchParams.set('scope', o.scopes.join(' '));
  u.searchParams.set('state', o.state);
  if (o.login) u.searchParams.set('login', o.login);
  if (o.allowSignup === false) u.searchParams.set('allow_signup', 'false');
  if (o.selectAccount) u.searchParams.set('prompt', 'select_account');
  return u.toString();
}

export interface WebFlowOptions extends Omit<AuthorizeUrlOptions, 'redirectUri' | 'state'> {
  http: HttpClient;
  clock: Clock;
  clientSecret: string;
  timeoutMs: number;
  signal?: AbortSignal;
  random?: RandomBytes;
  /** Sends the user to the authorize URL (opens a browser, prints it). */
  openUrl: (url: string) => void | Promise<void>;
  /**
   * Runs after the exchange, before the browser is told the outcome (the
   * token checked against the API and stored, say): what it throws fails the
   * flow, and the browser's page says the sign-in failed.
   */
  accept?: (token: TokenSet) => Promise<unknown>;
}

export async function runWebFlow(o: WebFlowOptions): Promise<TokenSet> {
  // Checked before the loopback listener starts (authorizeUrl checks webUrl and clientId, too late for that).
  httpUrlOption(o.webUrl, 'webUrl');
  stringOption(o.clientId, 'clientId');
  functionOption(o.openUrl, 'openUrl');
  const state = newState(o.random);
  const receiver = await startLoopbackReceiver({ state, signal: o.signal, path: '/callback' });
  try {
    await o.openUrl(authorizeUrl({ ...o, redirectUri: receiver.redirectUri, state }));
    const callback = await receiver
      .wait(o.timeoutMs, (ms, s) => o.clock.sleep(ms, s))
      .catch((err: unknown) => {
        if (err instanceof OAuthError && err.error === 'access_denied') {
          throw new AuthRequiredError('sign-in was cancelled in the browser (access denied)', {
            remedy: { kind: 'sign-in', service: 'hosting', flow: 'web', again: true },
            service: 'hosting',
          });
        }
        throw err;
      });
    // The browser's page waits for the exchange: it says signed in only once the token is here.
    return await callback.finish(async () => {
      const code = callback.params.get('code');
      if (!code) throw new OAuthError('invalid_request', undefined, undefined, 'the browser came back without an authorization code');
      const token = await processTokenResponse(
        await authorizationCodeRequest(o.http, {
          webUrl: o.webUrl,
          clientId: o.clientId,
          clientSecret: o.clientSecret,
          code,
          redirectUri: receiver.redirectUri,
          signal: o.signal,
        }),
      );
      await o.accept?.(token);
      return token;
    });
  } finally {
    await receiver.close();
  }
}
