/**
 * JWT validation the way the real gateway does it, step by step:
 *   1. parse: three parts, a JOSE header with a supported `alg`, a JSON claim
 *      set with `iss`; `exp`/`nbf` checked with 60 s of clock skew; an e-mail
 *      issuer may only assert itself as subject; `aud` and `sub` required.
 *   2. issuer allowed for the method (scheme and trailing `/` stripped).
 *   3. audience allowed for that issuer (same stripping) — else 403.
 *   4. key by `kid` from the issuer's JWKS (JWK set or X.509 map), signature.
 * Failure reasons are the gateway's own status words (BAD_FORMAT, ...).
 * Independent of the client: written from the spec, verified with jose.
 */
import { compactVerify, importJWK, importX509, type CryptoKey as JoseKey } from 'jose';
import { Echo } from '../../../shared/constants.js';

export class JwtFailure extends Error {
  constructor(
    /** 401 (unauthenticated) or 403 (audience not allowed). */
    readonly status: 401 | 403,
    /** The text after "JWT validation failed: ". */
    readonly reason: string,
  ) {
    super(`JWT validation failed: ${reason}`);
  }
}

export interface ParsedJwt {
  readonly token: string;
  readonly header: { alg: string; kid?: string };
  readonly claims: Record<string, unknown>;
  readonly issuer: string;
  readonly subject: string;
  readonly audiences: string[];
  readonly email: string;
}

const SUPPORTED_ALGS = new Set(['RS256', 'RS384', 'RS512', 'ES256']);
const badFormat = () => new JwtFailure(401, 'BAD_FORMAT');

function decodeJson(part: string): unknown {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(part) || !part) throw badFormat();
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
  } catch {
    throw badFormat();
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** `https://a.b/` → `a.b`: how the gateway compares issuers and audiences. */
export function stripUrl(s: string): string {
  return s.replace(/^https?:\/\//i, '').replace(/\/+$/, '');
}

/** True when the issuer is an e-mail address (it must then be its own subject). */
export function isEmailIssuer(iss: string): boolean {
  const at = iss.indexOf('@');
  return at > 0 && at < iss.length - 1;
}

/** Step 1: structure, times (with skew) and the subject rule. `nowSec` is the gateway's clock. */
export function parseJwt(token: string, nowSec: number, skewSec: number = Echo.clockSkewSec): ParsedJwt {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[2]) throw badFormat();
  const header = decodeJson(parts[0]!);
  if (!isObject(header) || typeof header.alg !== 'string' || !SUPPORTED_ALGS.has(header.alg)) throw badFormat();
  if (header.kid !== undefined && typeof header.kid !== 'string') throw badFormat();
  const claims = decodeJson(parts[1]!);
  if (!isObject(claims)) throw badFormat();
  for (const t of ['exp', 'nbf', 'iat'] as const) {
    if (claims[t] !== undefined && typeof claims[t] !== 'number') throw badFormat();
  }
  for (const s of ['iss', 'sub', 'email'] as const) {
    if (claims[s] !== undefined && typeof claims[s] !== 'string') throw badFormat();
  }
  const iss = claims.iss as string | undefined;
  if (!iss) throw badFormat();
  const nbf = claims.nbf as number | undefined;
  const exp = claims.exp as number | undefined;
  if (nbf !== undefined && nowSec + skewSec < nbf) throw new JwtFailure(401, 'TIME_CONSTRAINT_FAILURE');
  if (exp !== undefined && nowSec - skewSec > exp) throw new JwtFailure(401, 'TIME_CONSTRAINT_FAILURE');
  const sub = claims.sub as string | undefined;
  if (isEmailIssuer(iss) && sub !== undefined && sub !== iss) throw new JwtFailure(401, 'BAD_SUBJECT');
  const aud = claims.aud;
  let audiences: string[];
  if (typeof aud === 'string') audiences = aud ? [aud] : [];
  else if (Array.isArray(aud)) audiences = aud.filter((a): a is string => typeof a === 'string' && a !== '');
  else if (aud === undefined) audiences = [];
  else throw badFormat();
  if (!audiences.length || !sub) throw badFormat();
  const h = header as { alg: string; kid?: string };
  return { token, header: { alg: h.alg, kid: h.kid }, claims, issuer: iss, subject: sub, audiences, email: (claims.email as string | undefined) ?? '' };
}

/** A security requirement the method accepts: issuer, where its keys are, allowed audiences. */
export interface TokenRequirement {
  readonly name: string;
  readonly issuer: string;
  readonly jwksUri: string;
  readonly audiences: readonly string[];
}

/** Steps 2 and 3: the requirement whose issuer matches, with an allowed audience. */
export function matchRequirement(jwt: ParsedJwt, requirements: readonly TokenRequirement[]): TokenRequirement {
  const iss = stripUrl(jwt.issuer);
  const candidates = requirements.filter((r) => stripUrl(r.issuer) === iss);
  if (!candidates.length) throw new JwtFailure(401, 'Issuer not allowed');
  const aud = new Set(jwt.audiences.map(stripUrl));
  const match = candidates.find((r) => r.audiences.some((a) => aud.has(stripUrl(a))));
  if (!match) throw new JwtFailure(403, 'Audience not allowed');
  return match;
}

/** Thrown by verifySignature when no key has the token's kid (the caller may refresh the JWKS). */
export class UnknownKidFailure extends JwtFailure {
  constructor() {
    super(401, 'KEY_RETRIEVAL_ERROR');
  }
}

/** Step 4: picks the key from a JWKS document (either format) and checks the signature. */
export async function verifySignature(jwt: ParsedJwt, jwks: unknown): Promise<void> {
  if (!isObject(jwks)) throw new JwtFailure(401, 'KEY_RETRIEVAL_ERROR');
  const { alg, kid } = jwt.header;
  const candidates: Array<() => Promise<JoseKey | Uint8Array>> = [];
  if (Array.isArray(jwks.keys)) {
    if (!jwks.keys.length) throw new JwtFailure(401, 'KEY_RETRIEVAL_ERROR');
    for (const k of jwks.keys) {
      if (!isObject(k) || typeof k.kid !== 'string' || (kid !== undefined && k.kid !== kid)) continue;
      const wantKty = alg.startsWith('RS') ? 'RSA' : 'EC';
      if (k.kty !== wantKty) continue;
      const { alg: _ignored, ...jwk } = k;
      candidates.push(() => importJWK(jwk as Parameters<typeof importJWK>[0], alg) as Promise<JoseKey | Uint8Array>);
    }
  } else {
    // Only JWK sets carry EC keys.
    if (alg === 'ES256') throw new JwtFailure(401, 'KEY_RETRIEVAL_ERROR');
    for (const [id, pem] of Object.entries(jwks)) {
      if (typeof pem !== 'string' || (kid !== undefined && id !== kid)) continue;
      candidates.push(() => importX509(pem, alg));
    }
  }
  if (!candidates.length) {
    if (kid !== undefined) throw new UnknownKidFailure();
    throw new JwtFailure(401, 'BAD_SIGNATURE');
  }
  for (const load of candidates) {
    let key: JoseKey | Uint8Array;
    try {
      key = await load();
    } catch {
      if (kid !== undefined) throw new JwtFailure(401, 'KEY_RETRIEVAL_ERROR');
      continue;
    }
    try {
      await compactVerify(jwt.token, key, { algorithms: [alg] });
      return;
    } catch {
      if (kid !== undefined) throw new JwtFailure(401, 'BAD_SIGNATURE');
    }
  }
  throw new JwtFailure(401, 'BAD_SIGNATURE');
}
