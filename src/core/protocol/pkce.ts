/** Pure helpers: PKCE (RFC 7636, S256 only) and the `state` value. */
import type { RandomBytes } from '../deps.js';

// node:crypto is loaded on first use (≈ 5 ms): `auth status` loads the protocol flow without signing in.
const defaultRandom: RandomBytes = (n) => new Uint8Array(process.getBuiltinModule('node:crypto').randomBytes(n));

/** A code verifier of 64 unreserved characters (48 CSPRNG bytes, base64url). */
export function generateCodeVerifier(random: RandomBytes = defaultRandom): string {
  const v = Buffer.from(random(48)).toString('base64url');
  if (!isValidCodeVerifier(v)) throw new Error('generated code verifier is not valid');
  return v;
}

/** RFC 7636 §4.1: 43–128 characters of [A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~". */
export function isValidCodeVerifier(v: string): boolean {
  return /^[A-Za-z0-9\-._~]{43,128}$/.test(v);
}

/** BASE64URL(SHA256(ASCII(code_verifier))). */
export function codeChallengeS256(verifier: string): string {
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** An unguessable `state` (32 CSPRNG bytes). */
export function generateState(random: RandomBytes = defaultRandom): string {
  return Buffer.from(random(32)).toString('base64url');
}
