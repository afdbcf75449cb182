/**
 * RFC 8628 device authorization, shared by the hosting service and the
 * protocol's authorization servers: the error of an OAuth endpoint with all
 * of its fields, reading an OAuth answer (errors may arrive with HTTP 200),
 * and the device authorization response processed into plain data.
 */
import { OAuthError, RateLimitError } from '../errors.js';
import type { HttpResponse } from '../http/client.js';
import { parseOAuthBody, type OAuthFields } from './oauth-body.js';

/** An OAuth error response with all of its fields (e.g. `interval` of slow_down). */
export class OAuthResponseError extends OAuthError {
  constructor(
    readonly fields: OAuthFields,
    status: number,
  ) {
    super(fields.error!, fields.error_description, status);
  }
}

export interface DeviceAuthorization {
  readonly deviceCode: string;
  readonly userCode: string;
  readonly verificationUri: string;
  /** Seconds. */
  readonly expiresIn: number;
  /** Seconds. */
  readonly interval: number;
}

/** The lifetime of a device code whose answer names none (RFC 8628 makes expires_in required; the code host's is 15 minutes). */
const DEFAULT_DEVICE_CODE_LIFETIME_SEC = 900;
/** RFC 8628 §3.2: 5 seconds when the answer names no interval. */
const DEFAULT_INTERVAL_SEC = 5;

/** The polling interval, in seconds, never under one (written once: the answer's and the poller's). */
export const clampIntervalSec = (seconds: number) => Math.max(1, seconds);

/** Reads an OAuth endpoint's body; rate limits and error fields become errors. */
export async function readOAuthFields(res: HttpResponse): Promise<OAuthFields> {
  const text = await res.text();
  if ((res.status === 429 || res.status === 403) && /rate limit/i.test(text)) {
    const ra = Number(res.headers['retry-after']);
    const serverNow = Date.parse(res.headers.date ?? '');
    const resetAt = Number.isFinite(ra) && Number.isFinite(serverNow) ? serverNow + ra * 1000 : undefined;
    throw new RateLimitError("the token endpoint's secondary rate limit was exceeded; wait a few minutes and try again", 'secondary', resetAt);
  }
  let fields: OAuthFields;
  try {
    fields = await parseOAuthBody(res.headers['content-type'], text);
  } catch (err) {
    if (res.status >= 400) throw new OAuthError('server_error', undefined, res.status, `the OAuth endpoint answered HTTP ${res.status}`);
    throw err;
  }
  if (fields.error) throw new OAuthResponseError(fields, res.status);
  if (res.status >= 400) throw new OAuthError('server_error', undefined, res.status, `the OAuth endpoint answered HTTP ${res.status}`);
  return fields;
}

/** A non-negative number field (`fallback` when absent). */
export function numberField(v: string | undefined, name: string, fallback?: number): number {
  if (v === undefined || v === '') {
    if (fallback !== undefined) return fallback;
    throw new OAuthError('invalid_response', undefined, undefined, `the server's response lacks ${name}`);
  }
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new OAuthError('invalid_response', undefined, undefined, `the server's ${name} is not a number`);
  return n;
}

export function requiredField(fields: OAuthFields, name: string): string {
  const v = fields[name];
  if (!v) throw new OAuthError('invalid_response', undefined, undefined, `the server's response lacks ${name}`);
  return v;
}

export async function processDeviceAuthorizationResponse(res: HttpResponse): Promise<DeviceAuthorization> {
  const f = await readOAuthFields(res);
  const verificationUri = requiredField(f, 'verification_uri');
  if (!/^https?:\/\//i.test(verificationUri)) throw new OAuthError('invalid_response', undefined, undefined, 'the verification_uri is not an http(s) URL');
  return Object.freeze({
    deviceCode: requiredField(f, 'device_code'),
    userCode: requiredField(f, 'user_code'),
    verificationUri,
    expiresIn: numberField(f.expires_in, 'expires_in', DEFAULT_DEVICE_CODE_LIFETIME_SEC),
    interval: clampIntervalSec(numberField(f.interval, 'interval', DEFAULT_INTERVAL_SEC)),
  });
}
