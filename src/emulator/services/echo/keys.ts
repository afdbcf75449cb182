/**
 * Signing keys of the emulator's identities (service accounts, the identity
 * provider, the app platform): key pairs, their JWK and X.509 forms, and the
 * two JWKS documents the real system serves (a JWK set and a kid → PEM
 * certificate map). Certificates are self-signed with node-forge (Node's
 * crypto parses X.509 but cannot create it).
 */
import { createPublicKey, generateKeyPair, randomBytes, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import forge from 'node-forge';
import { directoryName } from '../../tls.js';

const generate = promisify(generateKeyPair);

export type KeyAlg = 'RS256' | 'ES256';

export interface SigningKey {
  readonly kid: string;
  readonly alg: KeyAlg;
  readonly privateKey: KeyObject;
  readonly publicJwk: Record<string, string>;
  /** Self-signed certificate (RSA keys only, like the real X.509 metadata). */
  readonly certPem?: string;
  readonly createdAt: number;
}

export async function createSigningKey(alg: KeyAlg, subject: string, nowMs: number): Promise<SigningKey> {
  const { privateKey } = alg === 'RS256' ? await generate('rsa', { modulusLength: 2048 }) : await generate('ec', { namedCurve: 'P-256' });
  const kid = randomBytes(20).toString('hex');
  const jwk = createPublicKey(privateKey).export({ format: 'jwk' }) as Record<string, string>;
  const publicJwk = { ...jwk, kid, alg, use: 'sig' };
  const certPem = alg === 'RS256' ? selfSignedCertificate(privateKey, subject, nowMs) : undefined;
  return { kid, alg, privateKey, publicJwk, certPem, createdAt: nowMs };
}

function selfSignedCertificate(privateKey: KeyObject, subject: string, nowMs: number): string {
  const cert = forge.pki.createCertificate();
  const pub = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }) as string;
  cert.publicKey = forge.pki.publicKeyFromPem(pub);
  cert.serialNumber = '01' + randomBytes(8).toString('hex');
  cert.validity.notBefore = new Date(nowMs - 5 * 60_000);
  cert.validity.notAfter = new Date(nowMs + 14 * 86_400_000);
  // The owner's e-mail-like id: a UTF8String (a PrintableString cannot hold its `@`).
  const name = directoryName([{ name: 'commonName', value: subject }]);
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, critical: true },
    { name: 'extKeyUsage', clientAuth: true, critical: true },
  ]);
  const pkcs8 = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  cert.sign(forge.pki.privateKeyFromPem(pkcs8) as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return forge.pki.certificateToPem(cert).replace(/\r\n/g, '\n');
}

/**
 * Key owners (an e-mail-like id each) and their keys. The first key of an
 * owner is generated on first use, so starting the emulator costs nothing.
 */
export class KeyRing {
  readonly #keys = new Map<string, SigningKey[]>();
  readonly #pending = new Map<string, Promise<SigningKey>>();
  constructor(private readonly now: () => number) {}

  /** The owner's keys, creating a first RSA key when it has none. */
  async keys(owner: string): Promise<SigningKey[]> {
    const have = this.#keys.get(owner);
    if (have?.length) return have;
    await this.#first(owner);
    return this.#keys.get(owner) ?? [];
  }

  #first(owner: string): Promise<SigningKey> {
    let p = this.#pending.get(owner);
    if (!p) {
      p = this.add(owner, 'RS256').finally(() => this.#pending.delete(owner));
      this.#pending.set(owner, p);
    }
    return p;
  }

  /** Adds a key to the owner; the newest RSA key signs what the owner issues. */
  async add(owner: string, alg: KeyAlg): Promise<SigningKey> {
    const key = await createSigningKey(alg, owner, this.now());
    const list = this.#keys.get(owner) ?? [];
    list.push(key);
    this.#keys.set(owner, list);
    return key;
  }

  /** The key the owner signs with: its newest RSA key. */
  async active(owner: string): Promise<SigningKey> {
    const list = await this.keys(owner);
    return [...list].reverse().find((k) => k.alg === 'RS256') ?? list[list.length - 1]!;
  }

  /** Removes a key by kid; true when found. */
  remove(kid: string): boolean {
    for (const [owner, list] of this.#keys) {
      const i = list.findIndex((k) => k.kid === kid);
      if (i >= 0) {
        list.splice(i, 1);
        this.#keys.set(owner, list);
        return true;
      }
    }
    return false;
  }

  /** Key ids per owner, for `info`, without generating anything. */
  summary(): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const [owner, list] of this.#keys) out[owner] = list.map((k) => k.kid);
    return out;
  }

  clear(): void {
    this.#keys.clear();
  }
}

/** `{"keys": [...]}`: every key of the owner. */
export function jwkSetDocument(keys: readonly SigningKey[]): { keys: Array<Record<string, string>> } {
  return { keys: keys.map((k) => k.publicJwk) };
}

/** `{kid: "-----BEGIN CERTIFICATE-----..."}`: the RSA keys of the owner. */
export function x509MapDocument(keys: readonly SigningKey[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of keys) if (k.certPem) out[k.kid] = k.certPem;
  return out;
}
