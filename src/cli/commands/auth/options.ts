/** Options of the `auth` commands, shared by the command declarations and their run modules. */
import type { ProtocolClientAuthOptions } from '../../services/protocol/wiring.js';
import type { CredentialService } from '../../../shared/services.js';

/** `auth login`; with `--server`, the protocol client's options too. */
export interface AuthLoginOptions extends ProtocolClientAuthOptions {
  scopes?: string;
  browser?: boolean;
  login?: string;
  signup?: boolean;
  selectAccount?: boolean;
  insecureStorage?: boolean;
  server?: string;
  clientCredentials?: boolean;
  device?: boolean;
  health?: boolean;
}

export interface AuthDeviceOptions {
  scopes?: string;
  browser?: boolean;
  insecureStorage?: boolean;
}

export interface AuthTokenOptions {
  withToken?: boolean;
  /** The token of this stored hosting account instead of the active one's. */
  user?: string;
  /** The token of this host's active (or --user's) stored account instead of the profile's host's. */
  hostname?: string;
  server?: string;
  health?: boolean;
  insecureStorage?: boolean;
}

export interface AuthTokenCreateOptions {
  user: string;
  scopes?: string;
  note?: string;
  insecureStorage?: boolean;
}

export interface AuthStatusOptions {
  showToken?: boolean;
  /** Exit 4 when a credential in use expires within this duration. */
  expiresWithin?: string;
}

export interface AuthSetupGitOptions {
  hostname?: string;
}

export interface AuthSwitchOptions {
  hostname?: string;
  user?: string;
  /** Bind the account to this directory instead of making it active. */
  dir?: string;
}

export interface AuthRefreshOptions {
  scopes?: string;
  user?: string;
  web?: boolean;
  browser?: boolean;
}

export interface AuthLogoutOptions {
  user?: string;
  /** Remove the account binding of this directory (the token stays). */
  dir?: string;
  server?: string;
  health?: boolean;
}

/** A line of `auth status` contributed by a service module. */
export interface AuthStatusEntry {
  service: CredentialService;
  /** Host or server URL the credential belongs to. */
  host: string;
  /** Login or client id, when known. */
  account?: string;
  /**
   * Who the credential acts as, when known: the hosting login, the health
   * account's user principal name (from the token's claims), the protocol
   * token's subject, the echo key's id.
   */
  user?: string;
  /** Hosting: whose token it is; an installation's or a workflow's token acts for no user. */
  tokenKind?: 'user' | 'installation' | 'workflow';
  source: string;
  scopes?: string[];
  valid: boolean;
  /**
   * The verdict: `valid`, `invalid` (the server refused it, or it expired), or
   * `unchecked` (hosting: the server could not be asked — a rate limit, the
   * network, a proxy, a time-out; `valid` is then false but nothing is known
   * against the token).
   */
  state?: 'valid' | 'invalid' | 'unchecked';
  /** Why an `unchecked` credential was not checked: the error's code (`rate_limited`, `network_error`, `timeout`, `proxy_error`, …). */
  checkError?: string;
  /** Why not valid, or other notes. */
  detail?: string;
  expiresAt?: string;
  /** A refreshable token: until when it can be refreshed (null: no end known). */
  renewableUntil?: string | null;
  /** Masked unless --show-token. */
  token?: string;
  /** The credential commands use (here, for hosting). */
  active?: boolean;
  /** Hosting: why it is the one in use — an environment token, the directory's binding, the host's active account. */
  selectedBy?: 'env' | 'binding' | 'active';
  /** The bound directory, when selectedBy is "binding". */
  boundDir?: string;
}
