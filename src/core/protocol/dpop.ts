/**
 * RFC 9449 DPoP: a key pair per protocol server (kept beside its tokens in the
 * credential store; the private half is a secret and is never shown), proofs
 * for token and resource requests, and the servers' nonces (§8, §9), kept by
 * the server that gave them (DpopNonces). jose is loaded on first use.
 */
import type { HttpResponse } from '../http/client.js';
import type { Credential, CredentialRequest } from '../http/types.js';
import { parseBearerChallenge } from './discovery.js';

/** The algorithms Lanyard signs proofs with, in its order of preference. */
export const DPOP_ALGS = ['ES256', 'EdDSA', 'ES384', 'RS256'] as const;
export type DpopAlg = (typeof DPOP_ALGS)[number];

/** A stored DPoP key: the algorithm and the private JWK as JSON (a secret: `privateKey` is a field the redaction knows). */
export interface DpopKey {
  readonly alg: DpopAlg;
  readonly privateKey: string;
}

/** The header error of a server that wants a (new) nonce in the proof. */
export const USE_DPOP_NONCE = 'use_dpop_nonce';

/**
 * The algorithm to use with an authorization server: the first of ours it
 * lists in `dpop_signing_alg_values_supported`; with none listed (the user
 * asked for DPoP), ES256; undefined when it lists only ones Lanyard lacks.
 */
export function chooseDpopAlg(advertised: readonly string[] | undefined): DpopAlg | undefined {
  if (!advertised?.length) return 'ES256';
  return DPOP_ALGS.find((a) => advertised.includes(a));
}

export async function generateDpopKey(alg: DpopAlg): Promise<DpopKey> {
  const { generateKeyPair, exportJWK } = await import('jose');
  const { privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
  return { alg, privateKey: JSON.stringify(await exportJWK(privateKey)) };
}

/** The public half of a stored key (what a proof's header carries). */
export function publicJwk(key: DpopKey): Record<string, unknown> {
  const { kty, crv, x, y, n, e } = JSON.parse(key.privateKey) as Record<string, unknown>;
  return Object.fromEntries(Object.entries({ kty, crv, x, y, n, e }).filter(([, v]) => v !== undefined));
}

/** RFC 9449 §4.2: htu is the request URI without query and fragment. */
export function htuOf(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`;
}

/** Base64url SHA-256 of the access token (the `ath` claim). */
export function accessTokenHash(token: string): string {
  return process.getBuiltinModule('node:crypto').createHash('sha256').update(token, 'ascii').digest('base64url');
}

/** The `DPoP-Nonce` of an answer, when it is a well-formed one (RFC 9449 §8.1: no spaces, quotes or controls). */
function nonceOf(headers: Readonly<Record<string, string>>): string | undefined {
  const nonce = headers['dpop-nonce'];
  return nonce && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(nonce) ? nonce : undefined;
}

/**
 * The nonces servers hand out (RFC 9449 §8: an authorization server's, for
 * its token requests; §9: a resource server's, for requests to it), each by
 * the endpoint that gave it (the proof's htu: a token endpoint, a protocol
 * server's URL) and replaced when that endpoint gives a new one. A nonce
 * belongs to the server, not to a key: a refresh, a sign-in with a new key or
 * a step-up that follows goes on with it, so the server is not asked for it
 * again. An authorization server and a resource server on one origin (or two
 * servers behind one gateway) each get their own: never one's nonce to the
 * other. One book per client (ProtocolAuthDeps.dpopNonces): the conversation
 * of a `protocol request`, a bridge's life; a new client starts empty.
 */
export class DpopNonces {
  readonly #byEndpoint = new Map<string, string>();

  /** The nonce `url`'s endpoint gave last, if any. */
  get(url: string): string | undefined {
    return this.#byEndpoint.get(htuOf(url));
  }

  /** Keeps the `DPoP-Nonce` of an answer from `url`'s endpoint; true when it is a new one. */
  remember(headers: Readonly<Record<string, string>>, url: string): boolean {
    const nonce = nonceOf(headers);
    if (!nonce) return false;
    const at = htuOf(url);
    if (this.#byEndpoint.get(at) === nonce) return false;
    this.#byEndpoint.set(at, nonce);
    return true;
  }
}

/**
 * A DPoP signer for one key: a fresh proof per request (unique jti, the
 * clock's iat, the endpoint's last nonce, `ath` with an access token), and
 * the nonces servers hand out, kept in the client's book (`nonces`).
 */
export class DpopProver {
  constructor(
    readonly key: DpopKey,
    readonly now: () => number,
    readonly nonces: DpopNonces = new DpopNonces(),
  ) {}

  async proof(method: string, url: string, accessToken?: string): Promise<string> {
    const { SignJWT, importJWK } = await import('jose');
    const crypto = process.getBuiltinModule('node:crypto');
    const claims: Record<string, unknown> = { htm: method.toUpperCase(), htu: htuOf(url), jti: crypto.randomUUID() };
    const nonce = this.nonces.get(url);
    if (nonce) claims.nonce = nonce;
    if (accessToken) claims.ath = accessTokenHash(accessToken);
    return new SignJWT(claims)
      .setProtectedHeader({ typ: 'dpop+jwt', alg: this.key.alg, jwk: publicJwk(this.key) })
      .setIssuedAt(Math.floor(this.now() / 1000))
      .sign(await importJWK(JSON.parse(this.key.privateKey) as Parameters<typeof importJWK>[0], this.key.alg));
  }

  /**
   * The credential of a DPoP-bound `token` for one exchange, with a proof of
   * it; without a request, no proof: it names the token and is never sent
   * (the HTTP client refuses it; see CredentialProvider).
   */
  async credential(token: string, request?: CredentialRequest): Promise<Credential> {
    return { scheme: 'dpop', token, proof: request ? await this.proof(request.method, request.url, token) : '' };
  }

  /** Keeps the `DPoP-Nonce` of a response for the next proof to its endpoint; true when it is a new one. */
  remember(res: Pick<HttpResponse, 'headers' | 'url'>, url: string = res.url): boolean {
    return this.nonces.remember(res.headers, url);
  }
}

/**
 * The signer of a DPoP-bound token's requests; undefined for a bearer token.
 * `inUse`, the signer of the tokens before (a refresh), is kept when `t` is
 * bound to the same key: the key, not the record, which a refresh reads anew.
 * A new signer keeps the nonces of `inUse`'s book, else takes `nonces`.
 */
export function proverOf(
  t: { readonly tokenType?: string; readonly dpopKey?: DpopKey } | undefined,
  clock: { now(): number },
  inUse?: DpopProver,
  nonces?: DpopNonces,
): DpopProver | undefined {
  if (t?.tokenType !== 'DPoP' || !t.dpopKey) return undefined;
  if (t.dpopKey.privateKey === inUse?.key.privateKey) return inUse;
  return new DpopProver(t.dpopKey, () => clock.now(), inUse?.nonces ?? nonces);
}

/**
 * Keeps the nonce an answer of `url`'s endpoint hands out; true for a 401 `use_dpop_nonce` when the book now
 * holds another nonce than `sentWith` (the one it held when the request went out): the request is sent again
 * with it. That another request learned the nonce first (a rotation meets an agent's concurrent calls) makes it
 * no less a nonce to answer, never a refused token.
 */
export function nonceAsked(
  prover: DpopProver | undefined,
  res: Pick<HttpResponse, 'status' | 'headers' | 'url'>,
  url: string,
  sentWith: string | undefined,
): boolean {
  if (!prover) return false;
  prover.remember(res, url);
  if (res.status !== 401 || parseBearerChallenge(res.headers['www-authenticate'])?.error !== USE_DPOP_NONCE) return false;
  return prover.nonces.get(url) !== sentWith;
}
