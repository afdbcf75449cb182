/** The options of the protocol's authorization flow (`authorize`): plain data. */
import type { ProtocolRevision } from '../../shared/constants.js';
import type { BearerChallenge } from './discovery.js';
import type { WorkloadTokenSource } from './store.js';

/** Cross-app access: the user's identity provider exchanges their ID token for an identity assertion the server accepts. */
export interface IdentityProviderOptions {
  /** The identity provider's token endpoint (RFC 8693 token exchange). */
  readonly tokenEndpoint: string;
  /** Lanyard's client id at the identity provider. */
  readonly clientId: string;
}

export interface AuthorizeOptions {
  readonly serverUrl: string;
  /** Space-separated scopes to request. */
  readonly scopes?: string;
  readonly clientId?: string;
  readonly clientCredentials?: boolean;
  /** The Bearer challenge of the 401/403 that started the flow. */
  readonly challenge?: BearerChallenge;
  /** The revision negotiated with the server, when initialize got that far. */
  readonly revision?: ProtocolRevision;
  /** Lanyard's client ID metadata document URL (used where the server accepts one). */
  readonly clientMetadataUrl?: string;
  /** PKCS #8 PEM of a private_key_jwt client (with clientId). */
  readonly clientKey?: string;
  /** Cross-app access: get the token through the user's identity provider. */
  readonly identityProvider?: IdentityProviderOptions;
  /**
   * RFC 9449 proof-of-possession: true asks for DPoP-bound tokens, false
   * never; undefined: when the authorization server advertises
   * dpop_signing_alg_values_supported and the resource server shows it takes
   * DPoP-bound tokens (its challenge offers the DPoP scheme, or its RFC 9728
   * metadata lists dpop_signing_alg_values_supported or requires them) — an
   * authorization server that merely supports DPoP (many do by default) in
   * front of a Bearer-only server keeps getting bearer tokens.
   */
  readonly dpop?: boolean;
  /**
   * Workload identity federation: a JWT the workload's platform issued for
   * this authorization server, presented as an RFC 7523 grant (with clientId).
   */
  readonly workloadToken?: string;
  /** Where `workloadToken` was read (stored with the tokens, so that a renewal reads it again there). */
  readonly workloadTokenFrom?: WorkloadTokenSource;
  /** RFC 8628 device authorization grant: a code to enter on another device instead of a loopback redirect. */
  readonly device?: boolean;
  /**
   * Escape hatches for identity providers that deviate: the RFC 8707
   * `resource` to send instead of the server's (false: none at all), extra
   * authorization request parameters, and endpoints used instead of the
   * discovered ones.
   */
  readonly resource?: string | false;
  readonly authorizationParams?: Readonly<Record<string, string>>;
  readonly authorizationEndpoint?: string;
  readonly tokenEndpoint?: string;
  /**
   * The caller's access token the server refused (accessToken undefined: it
   * had none): tokens another process stored meanwhile are used instead of
   * signing in again — with `scope`, only when they hold every scope of it
   * (a step-up another process made).
   */
  readonly insteadOf?: { readonly accessToken?: string; readonly scope?: string };
}
