/**
 * The error family of the core library. Only `cli/exit.ts` maps these to exit
 * codes. Messages are one line, safe to print: they never contain a secret.
 */
import type { RateLimitState } from './ratelimit/headers.js';

/**
 * Every error code Lanyard reports: a closed set. `cli/exit.ts` maps each to
 * its exit code in one table (a test fails when one is missing).
 */
export const ERROR_CODES = [
  // exit 2: usage
  'usage',
  'validation',
  'config',
  'insecure_transport',
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
  'protocol',
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
  'token_failed',
  'device_flow_disabled',
  'incorrect_client_credentials',
  'incorrect_device_code',
  'unsupported_grant_type',
  'jq_error',
  'template_error',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export class LanyardError extends Error {
  readonly code: ErrorCode;
  /** A hint printed after the message, e.g. "run `lanyard auth login`". */
  hint?: string;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; hint?: string }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    if (options?.hint) this.hint = options.hint;
  }
}

/** An HTTP response whose status was not expected. */
export class HttpError extends LanyardError {
  constructor(
    readonly status: number,
    readonly method: string,
    /** URL with secrets redacted. */
    readonly url: string,
    /** Parsed JSON body when it was JSON, else the text (truncated). */
    readonly body: unknown,
    readonly headers: Readonly<Record<string, string>>,
    message?: string,
  ) {
    // A 401 is its own code: the caller must sign in (exit 4).
    super(status === 401 ? 'unauthorized' : 'http_error', message ?? `${method} ${url} failed: HTTP ${status}${describeBody(body)}`);
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
  constructor(message: string, options?: { cause?: unknown; hint?: string }) {
    super('auth_required', message, options);
  }
}

/** Primary or secondary rate limit, or a failed budget check (exit 3). */
export class RateLimitError extends LanyardError {
  constructor(
    message: string,
    readonly kind: 'primary' | 'secondary' | 'budget',
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
  constructor(message: string, options?: { cause?: unknown; hint?: string }) {
    super('credential_store', message, options);
  }
}

/** Bad input detected before any request (exit 2). */
export class ValidationError extends LanyardError {
  constructor(message: string, options?: { hint?: string }) {
    super('validation', message, options);
  }
}

/** A profile lacks a setting the command needs (exit 2). */
export class ConfigError extends LanyardError {
  constructor(message: string, options?: { hint?: string }) {
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
