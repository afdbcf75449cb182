/** What the protocol's authorization flow needs from its caller: the ports, callbacks and lock. */
import type { Clock, RandomBytes } from '../deps.js';
import type { CredentialLock } from '../credentials/lock.js';
import type { Remedy } from '../errors.js';
import type { HttpClient } from '../http/client.js';
import type { ProtocolCredentials, WorkloadTokenSource } from './store.js';
import type { DpopNonces } from './dpop.js';
import type { DeviceAuthorization } from '../auth/device-authorization.js';
import type { PollEvent } from '../auth/device-poll.js';

export interface ProtocolAuthDeps {
  readonly http: HttpClient;
  readonly credentials: ProtocolCredentials;
  readonly clock: Clock;
  readonly signal?: AbortSignal;
  readonly random?: RandomBytes;
  /** Shows the authorization URL to the user (the CLI prints it and opens a browser). */
  presentAuthorizationUrl(url: string): Promise<void>;
  /**
   * Throws when no person can finish a browser sign-in to `serverUrl` (no terminal, prompts disabled). Called before
   * the code flow registers a client or opens its listener, so a run that cannot finish leaves nothing
   * behind at the authorization server; without it the flow finds out only in presentAuthorizationUrl.
   */
  requirePerson?(serverUrl: string): void;
  /** The client secret of a confidential client (environment or stdin), read lazily. */
  clientSecret(): Promise<string | undefined>;
  /**
   * Workload identity: the platform's JWT read again from where the sign-in read it, to renew tokens
   * that came without a refresh token (files are rotated by the platform). Throws a one-line error when
   * it cannot be read; without it such tokens are not renewed.
   */
  workloadToken?(from: WorkloadTokenSource): Promise<string>;
  /** The user's ID token from their identity provider (cross-app access), read lazily. */
  idToken?(): Promise<string | undefined>;
  /** Shows the device flow's user code and verification URI (`auth login --server URL --device`); awaited before polling. */
  presentDeviceCode?(auth: DeviceAuthorization): Promise<void>;
  /** The device flow's polling events (slow_down, network errors). */
  onDeviceEvent?(e: PollEvent): void;
  /** How long to wait for the browser to come back. */
  readonly loopbackTimeoutMs: number;
  /** Progress notes for stderr; `remedy` is what the reader can do, for the caller to say in its own words. */
  notify?(line: string, remedy?: Remedy): void;
  /** The cross-process lock refreshes hold (default: none, for memory stores). */
  readonly lock?: CredentialLock;
  /**
   * The DPoP nonces servers gave this client (RFC 9449 §8, §9), kept by the server that gave them across
   * refreshes, new keys and step-ups; a session or credential provider makes its own when this is absent.
   */
  readonly dpopNonces?: DpopNonces;
}
