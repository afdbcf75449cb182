/**
 * RFC 9449 DPoP as the emulated authorization and resource server check it,
 * written from the RFC (never the client's code): the proof is a JWT with
 * `typ: dpop+jwt` and the public key in its `jwk` header, signed by that key;
 * `htm`/`htu` name this request, `iat` is recent, `jti` is not replayed,
 * `ath` hashes the access token on resource requests, and `nonce` is the
 * server's current one when the server demands nonces (§8, §9). Tokens are
 * bound to the key by its RFC 7638 thumbprint (`cnf.jkt`).
 */
import { createHash } from 'node:crypto';
import { EmbeddedJWK, calculateJwkThumbprint, decodeProtectedHeader, jwtVerify } from 'jose';
import { randomToken, type ProtocolState } from './state.js';

/** The proof algorithms the emulator accepts (and advertises). */
export const DPOP_ALGS = ['ES256', 'ES384', 'EdDSA', 'RS256', 'PS256'] as const;
/** How far a proof's iat may lie in the past, and in the future (clock skew). */
const IAT_PAST_SEC = 300;
const IAT_FUTURE_SEC = 60;

export type DpopResult = { jkt: string } | { error: 'invalid_dpop_proof' | 'use_dpop_nonce'; description: string };

/** Base64url SHA-256 of an access token (the `ath` claim). */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'ascii').digest('base64url');
}

/** htu compares without query and fragment (RFC 9449 §4.3 step 9). */
function htuOf(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  try {
    const u = new URL(raw);
    return `${u.origin}${u.pathname}`;
  } catch {
    return undefined;
  }
}

export class DpopChecker {
  /** jti → when it may be forgotten (past the iat window). */
  readonly #seen = new Map<string, number>();
  /**
   * The nonces the servers currently demand (rotated through the admin API): the authorization server's for
   * token requests and the protected resource's for requests to it — two servers, two nonces (RFC 9449 §8, §9),
   * so that a client that sends one server's nonce to the other is refused.
   */
  nonces = { token: randomToken('dpopnonce', 16), resource: randomToken('dpopnonce', 16) };

  constructor(readonly state: ProtocolState) {}

  reset(): void {
    this.#seen.clear();
    this.rotateNonces();
  }

  rotateNonces(): void {
    this.nonces = { token: randomToken('dpopnonce', 16), resource: randomToken('dpopnonce', 16) };
  }

  /** Checks one proof; `accessToken` on resource requests (ath), `requireNonce` when the server demands nonces. */
  async check(
    where: 'token' | 'resource',
    proof: string | undefined,
    o: { method: string; url: string; accessToken?: string; requireNonce: boolean },
  ): Promise<DpopResult> {
    const r = await this.#check(proof, { ...o, nonce: this.nonces[where] });
    const stats = this.state.stats.dpop;
    if ('error' in r) {
      stats.refused.push({ where, error: r.error, description: r.description });
      if (r.error === 'use_dpop_nonce') stats.nonceChallenges[where]++;
    } else stats.accepted[where]++;
    return r;
  }

  async #check(proof: string | undefined, o: { method: string; url: string; accessToken?: string; requireNonce: boolean; nonce: string }): Promise<DpopResult> {
    const bad = (description: string): DpopResult => ({ error: 'invalid_dpop_proof', description });
    if (!proof) return bad('a DPoP proof is required');
    if (proof.includes(',')) return bad('exactly one DPoP proof is allowed');
    let header: ReturnType<typeof decodeProtectedHeader>;
    let payload: Record<string, unknown>;
    try {
      header = decodeProtectedHeader(proof);
      if (header.typ !== 'dpop+jwt') return bad('the proof typ must be dpop+jwt');
      if (!header.jwk || typeof header.jwk !== 'object') return bad('the proof has no jwk header');
      if ('d' in header.jwk || 'p' in header.jwk || 'k' in header.jwk) return bad('the jwk header must be a public key');
      ({ payload } = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: [...DPOP_ALGS], currentDate: new Date(this.state.clock.now()) }));
    } catch (e) {
      return bad(`the proof does not verify (${(e as Error).message})`);
    }
    if (payload.htm !== o.method.toUpperCase()) return bad(`htm must be ${o.method.toUpperCase()}`);
    if (htuOf(payload.htu) !== htuOf(o.url)) return bad(`htu must be ${htuOf(o.url)}`);
    const clock = this.state.clock;
    const now = Math.floor(clock.now() / 1000);
    // Clients sign with their own clocks: after `emulator advance` (or a freeze) the real time is accepted too.
    const real = Math.floor((clock.now() - clock.offsetMs) / 1000);
    const near = (t: number) => typeof payload.iat === 'number' && payload.iat >= t - IAT_PAST_SEC && payload.iat <= t + IAT_FUTURE_SEC;
    if (!near(now) && !near(real)) return bad('iat is missing or outside the accepted window');
    if (typeof payload.jti !== 'string' || !payload.jti || payload.jti.length > 256) return bad('jti is missing');
    if (o.accessToken !== undefined && payload.ath !== tokenHash(o.accessToken)) return bad('ath does not match the access token');
    if (o.requireNonce && payload.nonce !== o.nonce)
      return { error: 'use_dpop_nonce', description: payload.nonce === undefined ? 'the server requires a nonce in the proof' : 'the nonce is stale' };
    // Replay is checked last: a proof refused for its nonce may be sent again with the nonce (a new jti anyway).
    // A jti is remembered while a proof with it could pass on either clock.
    for (const [jti, until] of this.#seen) if (until <= Math.min(now, real)) this.#seen.delete(jti);
    if (this.#seen.has(payload.jti)) return bad('jti was already used (replayed proof)');
    this.#seen.set(payload.jti, Math.max(now, real) + IAT_PAST_SEC + IAT_FUTURE_SEC);
    return { jkt: await calculateJwkThumbprint(header.jwk, 'sha256') };
  }
}
