/**
 * The health API's sign-in, whole: the OAuth 2.0 implicit flow through a
 * loopback receiver on 127.0.0.1 in fragment mode (the token comes back in the
 * URL fragment, which the receiver's page posts back), a fresh `state` and
 * `nonce` per attempt, the response checked and turned into a stored record.
 * The caller supplies the ports: how the URL reaches the user, the clock,
 * the cancel signal, where the record is kept.
 */
import { randomBytes as nodeRandomBytes } from 'node:crypto';
import { startLoopbackReceiver } from '../auth/loopback.js';
import type { Clock, CredentialStore, RandomBytes } from '../deps.js';
import { buildAuthorizeUrl, type HealthTokenRecord, processImplicitResponse, randomToken, saveHealthToken } from './token.js';

/** Options of {@link runHealthSignIn}. */
export interface HealthSignInOptions {
  /** The identity provider's base URL (`health.authUrl`): HTTPS, or a loopback address. */
  authUrl: string;
  /** The application (client) id registered with the identity provider. */
  clientId: string;
  /** Defaults to `user_impersonation`. */
  scope?: string;
  clock: Clock;
  /** How long to wait for the browser to come back. */
  timeoutMs: number;
  /** Cancels the wait (Ctrl-C); the receiver is closed and nothing is stored. */
  signal?: AbortSignal;
  random?: RandomBytes;
  /**
   * Sends the user to the authorization URL: opens a browser, prints it, or
   * both. Called once, after the receiver listens.
   */
  openUrl: (url: string) => void | Promise<void>;
  /** Where the token is saved (under `health:<host>`); omitted: only returned. */
  store?: CredentialStore;
  /** A name for the product on the receiver's pages. */
  productName?: string;
}

/**
 * Runs the implicit flow once and returns the token record (saved to
 * `store` when one is given). Throws an `OAuthError` for an error the
 * provider returns (`access_denied` when the user cancels), a
 * `TimeoutError` when the browser does not come back in time, a
 * `CancelledError` when `signal` aborts.
 */
export async function runHealthSignIn(o: HealthSignInOptions): Promise<HealthTokenRecord> {
  const random = o.random ?? nodeRandomBytes;
  const state = randomToken(random);
  const nonce = randomToken(random);
  const receiver = await startLoopbackReceiver({
    state,
    responseMode: 'fragment',
    signal: o.signal,
    productName: o.productName ?? 'the service-health API',
  });
  try {
    const url = buildAuthorizeUrl({
      authUrl: o.authUrl,
      clientId: o.clientId,
      redirectUri: receiver.redirectUri,
      state,
      nonce,
      ...(o.scope ? { scope: o.scope } : {}),
    });
    await o.openUrl(url);
    const callback = await receiver.wait(o.timeoutMs, (ms, s) => o.clock.sleep(ms, s));
    // The browser's page waits for the checks and the save: it says signed in only once the token is stored.
    return await callback.finish(async () => {
      const rec = processImplicitResponse(callback.params, o.clock.now(), o.clientId);
      if (o.store) await saveHealthToken(o.store, o.authUrl, rec);
      return rec;
    });
  } finally {
    await receiver.close();
  }
}
