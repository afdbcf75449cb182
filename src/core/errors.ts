/**
 * The error family of the core library. Only `cli/errors/exit.ts` maps these to exit
 * codes. Messages are one line, safe to print: they never contain a secret.
 */
import type { RateLimitState } from './ratelimit/headers.js';

/**
 * Every error code Lanyard reports: a closed set. `cli/errors/exit.ts` maps each to
 * its exit code in one table (a test fails when one is missing).
 */
export const ERROR_CODES = [
  // exit 2: the input must change
  'validation',
  'config',
  'insecure_transport',
  // a resumable listing's checkpoint is another run's, damaged or unsafe (use another file)
  'checkpoint_unusable',
  // another run holds the checkpoint, or moved it on meanwhile (try again when it has ended)
  'checkpoint_busy',
  // exit 3: rate limit or budget
  'rate_limited',
  // exit 4: authentication needed
  'auth_required',
  'unauthorized',
  // exit 130: interrupted
  'cancelled',
  // exit 1: every other failure
  'http_error',
  'network_error',
  'proxy_error',
  'tls_error',
  'timeout',
  'oauth_error',
  'credential_store',
  'not_found',
  'not_signed_in',
  'forbidden',
  'bad_response',
  // the server broke its protocol (an unexpected answer, a truncated stream, a refused next-page link)
  'protocol_error',
  'rpc_error',
  'session_expired',
  'discovery_failed',
  'issuer_mismatch',
  'insecure_endpoint',
  'insecure_redirect',
  'registration_failed',
  'client_required',
  'client_secret_missing',
  'pkce_unsupported',
  'dpop_unsupported',
  'token_failed',
  'device_flow_disabled',
  'incorrect_client_credentials',
  'incorrect_device_code',
  'unsupported_grant_type',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The services Lanyard signs in to and calls. */
import type { ServiceName } from '../shared/services.js';

export type { ServiceName };

/**
 * What the caller must do before trying again, said without naming a command
 * or a variable: a program using the library acts on it in its own way, and
 * the CLI turns it into advice (src/cli/errors/hints.ts).
 */
export type Remedy =
  /** Sign in to the service (again): a new token. `flow: 'web'` when the device flow is not the way. */
  | { kind: 'sign-in'; service: ServiceName; again?: boolean; flow?: 'web'; serverUrl?: string; scopes?: string }
  /** The profile lacks a setting (`option` names the flag that gives it for one run). */
  | { kind: 'set-setting'; setting: string; example: string; profile?: string; option?: string }
  /** A setting's value is wrong (check it). */
  | { kind: 'check-setting'; setting: string }
  /** No such profile: pick one of those that exist. */
  | { kind: 'choose-profile' }
  /** A secret was given to the config file (in a URL, or as a value): credentials go to the credential store. */
  | { kind: 'secret-in-config'; in: 'url' | 'value' }
  /** The OAuth client's secret is needed. */
  | { kind: 'client-secret' }
  /** A pre-registered OAuth client is needed (with its secret or key when `confidential`). */
  | { kind: 'client-id'; confidential?: boolean }
  /** The stored client registration of the server is no longer good: forget it. */
  | { kind: 'forget-client'; serverUrl: string }
  /** An ID token of the identity provider is needed (cross-app access). */
  | { kind: 'id-token' }
  /**
   * A wait Lanyard would impose (its pacing) is longer than allowed: allow `waitMs`, or (`waitingAllowsMs`) wait
   * for primary limits too, which allows waits up to that.
   */
  | { kind: 'longer-wait'; waitMs: number; waitingAllowsMs?: number }
  /** The request deadline passed: raise it (or turn it off). */
  | { kind: 'longer-deadline' }
  /** A server's certificate is not trusted: add its CA (`self` when the certificate is its own root). */
  | { kind: 'trust-ca'; self?: boolean }
  /** A certificate names other hosts: reach the server by one of its names. */
  | { kind: 'certificate-name' }
  /** The keychain was required and cannot be used: make it usable, or allow the file. */
  | { kind: 'keychain-required' }
  /** The keychain's entries were read, but its native binding (needed to change them) cannot load: repair it, or use the file alone. */
  | { kind: 'keychain-binding' }
  /** A credential would go in clear to `host`: use https, or (labs only) allow that host. */
  | { kind: 'allow-plain-http'; host: string };

export interface LanyardErrorOptions {
  cause?: unknown;
  /** Why, or what to check, in words that hold for any caller (no command names). */
  hint?: string;
  /** What to do next, for the caller to turn into its own advice. */
  remedy?: Remedy;
  /** The service the failure concerns, when one does. */
  service?: ServiceName;
  /** Where the refused or missing credential came from (`env:LANYARD_TOKEN`, `keychain`, `anonymous`, …). */
  credentialSource?: string;
  /** Whose the refused credential is, when known (a stored account's login). */
  credentialLogin?: string;
}

export class LanyardError extends Error {
  readonly code: ErrorCode;
  /** Why, or what to check, printed after the message; never a command of the CLI (see `remedy`). */
  hint?: string;
  /** What the caller must do next (the CLI says it as a command to run). */
  remedy?: Remedy;
  /** The service the failure concerns. */
  service?: ServiceName;
  /** Where the credential involved came from. */
  credentialSource?: string;
  /** Whose the credential involved is, when known. */
  credentialLogin?: string;
  constructor(code: ErrorCode, message: string, options?: LanyardErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    if (options?.hint) this.hint = options.hint;
    if (options?.remedy) this.remedy = options.remedy;
    // A sign-in remedy names its service: the error concerns that service unless told otherwise.
    const service = options?.service ?? (options?.remedy?.kind === 'sign-in' ? options.remedy.service : undefined);
    if (service) this.service = service;
    if (options?.credentialSource) this.credentialSource = options.credentialSource;
    if (options?.credentialLogin) this.credentialLogin = options.credentialLogin;
  }
}

/** An HTTP response whose status was not expected. */
export class HttpError extends LanyardError {
  /**
   * The origin that answered, when a followed redirect led the request there
   * from another origin: it was sent there without the credential (a
   * credential goes only to its own origin), so the status is that origin's
   * own answer, never a verdict on the credential. Such a 401 is an
   * `http_error`, not `unauthorized`; no refresh or sign-in follows it.
   */
  readonly otherOrigin?: string;
  constructor(
    readonly status: number,
    readonly method: string,
    /** URL with secrets redacted. */
    readonly url: string,
    /** Parsed JSON body when it was JSON, else the text (truncated). */
    readonly body: unknown,
    readonly headers: Readonly<Record<string, string>>,
    message?: string,
    otherOrigin?: string,
  ) {
    // A 401 is its own code: the caller must sign in (exit 4) — unless another origin, sent no credential, gave it.
    super(status === 401 && !otherOrigin ? 'unauthorized' : 'http_error', message ?? `${method} ${url} failed: HTTP ${status}${describeBody(body)}`);
    if (otherOrigin) this.otherOrigin = otherOrigin;
  }
}

function describeBody(body: unknown): string {
  if (body && typeof body === 'object') {
    const m = (body as Record<string, unknown>).message ?? (body as Record<string, unknown>).error_description ?? (body as Record<string, unknown>).error;
    if (typeof m === 'string' && m) return `: ${oneLine(m)}`;
    const e = (body as Record<string, unknown>).error;
    if (e && typeof e === 'object' && typeof (e as Record<string, unknown>).message === 'string') return `: ${oneLine((e as Record<string, string>).message)}`;
  } else if (typeof body === 'string' && body.trim()) {
    return `: ${oneLine(body).slice(0, 200)}`;
  }
  return '';
}

export function oneLine(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** 401 or a missing credential: the user must sign in (exit 4). */
export class AuthRequiredError extends LanyardError {
  constructor(message: string, options?: LanyardErrorOptions) {
    super('auth_required', message, options);
  }
}

/** Primary or secondary rate limit, or a failed budget check (exit 3). */
export class RateLimitError extends LanyardError {
  constructor(
    message: string,
    /**
     * `server`: a 429 or 503 with Retry-After of any service, beyond the wait allowed; `pacing`: Lanyard's own
     * pacing of the code host's content-creating requests (or a fleet's hold) would wait longer than allowed.
     */
    readonly kind: 'primary' | 'secondary' | 'server' | 'budget' | 'pacing',
    /** When the budget is expected back (epoch ms), if known. */
    readonly resetAt?: number,
    readonly state?: RateLimitState,
  ) {
    super('rate_limited', message);
  }
}

export class NetworkError extends LanyardError {
  constructor(
    readonly method: string,
    readonly url: string,
    cause: unknown,
  ) {
    super('network_error', `${method} ${url}: ${describeCause(cause)}`, { cause });
  }
}

export class TimeoutError extends LanyardError {
  constructor(
    readonly method: string,
    readonly url: string,
    readonly phase: 'connect' | 'headers' | 'body' | 'total',
    message?: string,
  ) {
    super('timeout', message ?? `${method} ${url}: timed out waiting for ${phase === 'total' ? 'the response' : phase}`);
  }
}

/** An OAuth error response (`error`, `error_description`). */
export class OAuthError extends LanyardError {
  constructor(
    readonly error: string,
    readonly errorDescription: string | undefined,
    readonly status: number | undefined,
    message?: string,
  ) {
    super(status === 401 ? 'unauthorized' : 'oauth_error', message ?? (errorDescription ? `${error}: ${oneLine(errorDescription)}` : error));
  }
}

export class CredentialStoreError extends LanyardError {
  constructor(message: string, options?: LanyardErrorOptions) {
    super('credential_store', message, options);
  }
}

/** Bad input detected before any request (exit 2). */
export class ValidationError extends LanyardError {
  constructor(message: string, options?: LanyardErrorOptions) {
    super('validation', message, options);
  }
}

/** A profile lacks a setting the command needs (exit 2). */
export class ConfigError extends LanyardError {
  constructor(message: string, options?: LanyardErrorOptions) {
    super('config', message, options);
  }
}

/** The operation was aborted (Ctrl-C, exit 130). */
export class CancelledError extends LanyardError {
  constructor(message = 'Interrupted') {
    super('cancelled', message);
  }
}

function describeCause(cause: unknown): string {
  if (cause && typeof cause === 'object') {
    const c = cause as { code?: string; message?: string };
    if (c.code === 'ECONNREFUSED') return 'connection refused';
    if (c.code === 'ECONNRESET' || c.code === 'UND_ERR_SOCKET') return 'connection reset';
    if (c.code === 'ENOTFOUND') return 'host not found';
    if (c.message) return oneLine(c.message);
  }
  return String(cause);
}
