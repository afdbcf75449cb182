/**
 * The code host's `GitHub-Authentication-Token-Expiration` response header:
 * when the token that authenticated the request expires (fine-grained and
 * expiring classic personal tokens, and other expiring tokens). It comes on
 * every authenticated response, as `2026-12-31 23:59:59 UTC` (a zone offset
 * such as `-0700` in place of `UTC` also occurs).
 */
export const TOKEN_EXPIRATION_HEADER = 'github-authentication-token-expiration';

const FORMAT = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\s*(UTC|Z|[+-]\d{2}:?\d{2}))?$/;

/** The header's time as an ISO string, or undefined when absent or not a time. */
export function parseTokenExpiration(value: string | string[] | undefined): string | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v) return undefined;
  const m = FORMAT.exec(v);
  if (!m) return undefined;
  const zone = !m[7] || m[7] === 'UTC' || m[7] === 'Z' ? 'Z' : `${m[7].slice(0, 3)}:${m[7].slice(-2)}`;
  const ms = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${zone}`);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}
