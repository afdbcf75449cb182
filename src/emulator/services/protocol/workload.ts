/**
 * Workload identity federation at the emulated authorization server (RFC
 * 7523 §2.1, the protocol's `wif` extension): a stand-in platform issuer
 * mints JWTs for workloads (admin verb `workload-token`, as a Kubernetes
 * projected token or a CI job's OIDC token would be), and the token endpoint
 * takes one as a `jwt-bearer` grant — signed by that issuer, its `aud` this
 * authorization server, not expired on the emulator clock. Tokens come
 * without a refresh token: a client renews by presenting a fresh JWT.
 */
import { randomUUID } from 'node:crypto';
import { SignJWT, generateKeyPair, jwtVerify, type CryptoKey } from 'jose';
import { OAuthGrant } from '../../../shared/protocol.js';
import { DEFAULT_SCOPE, normScope, randomToken, validScope, type EmuClient, type ProtocolState } from './state.js';
import type { GrantResult } from './grants.js';

export const WORKLOAD_GRANT = OAuthGrant.jwtBearer;
/** The platform issuer's path under the emulator (the `iss` of its JWTs). */
const ISSUER_PATH = '/workload-issuer';

export class WorkloadIssuer {
  #keys?: Promise<{ privateKey: CryptoKey; publicKey: CryptoKey }>;

  constructor(
    readonly state: ProtocolState,
    /** The authorization server's issuer (the JWTs' audience) and the emulator's base URL. */
    readonly baseUrl: () => string,
  ) {}

  #pair() {
    this.#keys ??= generateKeyPair('ES256');
    return this.#keys;
  }

  /** A JWT of the platform for `subject`, valid `ttlSec` on the emulator clock. */
  async mint(subject: string, ttlSec: number): Promise<string> {
    const now = this.state.nowSec();
    return new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
      .setIssuer(this.baseUrl() + ISSUER_PATH)
      .setAudience(this.baseUrl())
      .setSubject(subject)
      .setJti(randomUUID())
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSec)
      .sign((await this.#pair()).privateKey);
  }

  /** The admin verb `workload-token`: `subject` (default a service account's), `ttl` in seconds (default 600). */
  async admin(b: Record<string, unknown>): Promise<{ token: string }> {
    const ttl = b.ttl === undefined ? 600 : Number(b.ttl);
    if (!Number.isInteger(ttl) || ttl < 1 || ttl > 86_400) throw new Error('ttl must be a whole number of seconds (1 to 1 day)');
    return { token: await this.mint(typeof b.subject === 'string' && b.subject ? b.subject : 'system:serviceaccount:ci:lanyard', ttl) };
  }

  /** The jwt-bearer grant: the assertion checked, tokens without a refresh token (bound to a DPoP key when `jkt`). */
  async grant(client: EmuClient, f: Record<string, string>, resourceUrl: string, jkt?: string): Promise<GrantResult> {
    const fail = (error: string, description: string): GrantResult => ({ status: 400, error, description });
    let claims: { sub?: string; jti?: string };
    try {
      ({ payload: claims } = await jwtVerify(f.assertion ?? '', (await this.#pair()).publicKey, {
        algorithms: ['ES256'],
        issuer: this.baseUrl() + ISSUER_PATH,
        audience: this.baseUrl(),
        currentDate: new Date(this.state.clock.now()),
        requiredClaims: ['sub', 'exp'],
      }));
    } catch (e) {
      return fail('invalid_grant', `the assertion is not a valid workload token of this platform (${(e as Error).message})`);
    }
    const scope = normScope(f.scope) ?? client.scope ?? DEFAULT_SCOPE;
    if (!validScope(scope)) return fail('invalid_scope', 'unknown scope');
    if (f.resource !== undefined && f.resource !== resourceUrl) return fail('invalid_target', `unknown resource ${f.resource}`);
    this.state.stats.workloadGrants.push({ subject: String(claims.sub), jti: String(claims.jti ?? '') });
    return { tokens: this.state.issueTokens({ clientId: client.client_id, scope, resource: f.resource, jkt }, randomToken('fam', 12), false, false) };
  }
}
