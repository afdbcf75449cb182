/**
 * RFC 8628's polling loop, shared by the hosting service's device flow and
 * the protocol's device grant, exactly: never sooner than `interval`
 * (measured on the monotonic clock from the previous answer), `slow_down`
 * raises the interval for good, stop at `expires_in`, errors may arrive with
 * HTTP 200, transient network errors are retried, Ctrl-C cancels cleanly.
 * The caller gives one poll (request + process); the loop only waits.
 */
import type { Clock } from '../deps.js';
import { AuthRequiredError, CancelledError, LanyardError, NetworkError, OAuthError, TimeoutError, type Remedy } from '../errors.js';
import { OAuthErrorCode as E } from '../../shared/hosting-oauth.js';
import { clampIntervalSec, OAuthResponseError } from './device-authorization.js';

export type PollEvent = { kind: 'pending' } | { kind: 'slow_down'; intervalSec: number } | { kind: 'network_error'; error: LanyardError };

export interface PollOptions<T> {
  clock: Clock;
  signal?: AbortSignal;
  /** Seconds, from the device authorization response. */
  interval: number;
  expiresIn: number;
  /** Monotonic time the code was issued (default: now). */
  issuedAt?: number;
  /** One poll of the token endpoint (request + process); OAuth errors as OAuthError (slow_down's interval read from an OAuthResponseError). */
  poll: () => Promise<T>;
  onEvent?: (e: PollEvent) => void;
  /** What to do when the code expired or was refused: sign in again (to the service `again` names); none named when absent. */
  again?: Remedy;
  /** A service's own final errors (e.g. the code host's device_flow_disabled), tried before the standard ones. */
  serviceError?: (err: OAuthError) => LanyardError | undefined;
}

const EXPIRED = new Set<string>([E.expiredToken, E.tokenExpired]);

const serviceOf = (r?: Remedy) => (r && 'service' in r ? r.service : undefined);

function expired(again?: Remedy): AuthRequiredError {
  return new AuthRequiredError('the one-time code expired before it was authorized', { remedy: again, service: serviceOf(again) });
}

/** Maps a final OAuth error of the token endpoint to a clear, exit-code-bearing error. */
export function deviceGrantError(err: OAuthError, again?: Remedy): LanyardError {
  switch (err.error) {
    case E.accessDenied:
      return new AuthRequiredError('sign-in was cancelled by the user (access denied); the code cannot be used again', {
        remedy: again,
        service: serviceOf(again),
      });
    case E.incorrectDeviceCode:
      return new LanyardError('incorrect_device_code', 'the server refused the device code (invalid or already used)', {
        remedy: again,
        service: serviceOf(again),
      });
    case E.unsupportedGrantType:
      return new LanyardError('unsupported_grant_type', 'the server refused the device grant type (unsupported_grant_type)');
    default:
      if (EXPIRED.has(err.error)) return expired(again);
      return err;
  }
}

function isTransient(err: unknown): boolean {
  return err instanceof NetworkError || err instanceof TimeoutError || (err instanceof OAuthError && err.error === 'server_error' && (err.status ?? 0) >= 500);
}

export async function pollForDeviceToken<T>(o: PollOptions<T>): Promise<T> {
  const { clock } = o;
  const start = o.issuedAt ?? clock.monotonic();
  const deadline = start + o.expiresIn * 1000;
  let intervalMs = clampIntervalSec(o.interval) * 1000;
  let last = start;
  for (;;) {
    if (o.signal?.aborted) throw new CancelledError();
    const due = last + intervalMs;
    if (due >= deadline) {
      await clock.sleep(Math.max(0, deadline - clock.monotonic()), o.signal);
      throw expired(o.again);
    }
    const wait = due - clock.monotonic();
    if (wait > 0) await clock.sleep(wait, o.signal);
    try {
      return await o.poll();
    } catch (err) {
      // The next wait is measured from this answer, so a poll is never sooner than the interval.
      last = clock.monotonic();
      if (err instanceof CancelledError) throw err;
      if (err instanceof OAuthError && err.error === E.authorizationPending) {
        o.onEvent?.({ kind: 'pending' });
        continue;
      }
      if (err instanceof OAuthError && err.error === E.slowDown) {
        const given = err instanceof OAuthResponseError ? Number(err.fields.interval) : Number.NaN;
        intervalMs = Number.isFinite(given) && given > 0 ? given * 1000 : intervalMs + 5000;
        o.onEvent?.({ kind: 'slow_down', intervalSec: intervalMs / 1000 });
        continue;
      }
      if (isTransient(err)) {
        o.onEvent?.({ kind: 'network_error', error: err as LanyardError });
        continue;
      }
      if (err instanceof OAuthError) throw o.serviceError?.(err) ?? deviceGrantError(err, o.again);
      throw err;
    }
  }
}
