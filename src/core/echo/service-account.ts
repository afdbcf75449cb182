/**
 * Service-account key files and the self-signed JWTs minted from them
 * (schemes vendor-jwt, service-account, default-service-account): RS256,
 * header kid = private_key_id, iss = sub = the account (or the given issuer),
 * email = the account, aud, iat now, exp at most an hour later. Signed by jose.
 */
import { FileReadError, readBoundedText } from '../fs/bounded-read.js';
import { createPrivateKey, KeyObject } from 'node:crypto';
import { SignJWT } from 'jose';
import { Echo } from '../../shared/constants.js';
import { ValidationError } from '../errors.js';
import { stringOption } from '../options.js';

export interface ServiceAccountKey {
  readonly clientEmail: string;
  readonly privateKeyId: string;
  readonly privateKey: KeyObject;
  readonly projectId?: string;
}

/** Reads and checks a key file; every problem is one clear line (exit 2). */
export async function readServiceAccountKeyFile(path: string): Promise<ServiceAccountKey> {
  let text: string;
  try {
    // A key file is a few KiB: 64 KiB bounds /dev/zero, a FIFO or a wrong path.
    text = await readBoundedText(path, { maxBytes: 64 * 1024, timeoutMs: 30_000 });
  } catch (err) {
    if (!(err instanceof FileReadError)) throw err;
    const why = /ENOENT/.test(err.reason) ? 'no such file' : /EACCES/.test(err.reason) ? 'permission denied' : err.reason;
    throw new ValidationError(`cannot read the key file ${path}: ${why}`);
  }
  return parseServiceAccountKey(text, path);
}

export function parseServiceAccountKey(text: string, source: string): ServiceAccountKey {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new ValidationError(`${source} is not a service-account key file (not JSON)`);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new ValidationError(`${source} is not a service-account key file (not a JSON object)`);
  const d = data as Record<string, unknown>;
  for (const field of ['client_email', 'private_key_id', 'private_key']) {
    if (typeof d[field] !== 'string' || !d[field]) throw new ValidationError(`${source} has no "${field}"; is it a service-account key file?`);
  }
  const email = d.client_email as string;
  if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new ValidationError(`${source}: client_email "${email}" is not an e-mail address`);
  return {
    clientEmail: email,
    privateKeyId: d.private_key_id as string,
    privateKey: importRsaPrivateKey(d.private_key as string, source),
    projectId: typeof d.project_id === 'string' ? d.project_id : undefined,
  };
}

/** Parses a PEM private key and insists on RSA (RS256). */
export function importRsaPrivateKey(pem: string, source: string): KeyObject {
  if (!/-----BEGIN (RSA |ENCRYPTED |EC )?PRIVATE KEY-----/.test(pem)) {
    throw new ValidationError(`${source}: private_key is not a PEM private key`);
  }
  if (pem.includes('BEGIN ENCRYPTED PRIVATE KEY')) throw new ValidationError(`${source}: private_key is encrypted; export it without a passphrase`);
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: pem, format: 'pem' });
  } catch {
    throw new ValidationError(`${source}: private_key is not a valid PEM private key`);
  }
  if (key.asymmetricKeyType !== 'rsa') {
    throw new ValidationError(`${source}: private_key is an ${key.asymmetricKeyType?.toUpperCase() ?? 'unknown'} key; RS256 needs an RSA key`);
  }
  return key;
}

export interface ServiceAccountClaimsInput {
  /** The account (client_email). */
  email: string;
  /** Overrides iss and sub (default: the account). */
  issuer?: string;
  audience: string;
  nowMs: number;
  /** Seconds until exp; 1..3600, default 3600. */
  lifetimeSec?: number;
}

export interface ServiceAccountClaims {
  iss: string;
  sub: string;
  email: string;
  aud: string;
  iat: number;
  exp: number;
}

/** The claim set, by the rules above (pure; the clock is the caller's). */
export function serviceAccountClaims(i: ServiceAccountClaimsInput): ServiceAccountClaims {
  if (!Number.isFinite(i.nowMs)) throw new ValidationError('nowMs is required: the time of issue in epoch milliseconds (your clock)');
  const audience = stringOption(i.audience, 'audience').trim();
  if (!audience) throw new ValidationError('the audience is empty');
  const lifetime = i.lifetimeSec ?? Echo.maxJwtLifetimeSec;
  if (!Number.isInteger(lifetime) || lifetime < 1 || lifetime > Echo.maxJwtLifetimeSec) {
    throw new ValidationError(`the token lifetime must be 1 to ${Echo.maxJwtLifetimeSec} seconds, got ${lifetime}`);
  }
  const issuer = (i.issuer ?? i.email).trim();
  if (!issuer) throw new ValidationError('the issuer is empty');
  const iat = Math.floor(i.nowMs / 1000);
  return { iss: issuer, sub: issuer, email: i.email, aud: audience, iat, exp: iat + lifetime };
}

/** Signs the claims with the account's key: RS256, kid = private_key_id. */
export async function mintServiceAccountJwt(
  key: ServiceAccountKey,
  input: Omit<ServiceAccountClaimsInput, 'email'>,
): Promise<{ token: string; claims: ServiceAccountClaims }> {
  // A key not from parseServiceAccountKey (a PEM string, a parsed JSON file) fails here, not inside the signer.
  if (!(key?.privateKey instanceof KeyObject) || key.privateKey.type !== 'private')
    throw new ValidationError('privateKey must be a private KeyObject (read the key file with readServiceAccountKeyFile or parseServiceAccountKey)');
  const claims = serviceAccountClaims({ ...input, email: key.clientEmail });
  const token = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: key.privateKeyId }).sign(key.privateKey);
  return { token, claims };
}
