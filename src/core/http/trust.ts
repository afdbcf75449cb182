/**
 * TLS trust beyond Node's defaults: PEM bundles added to the default trust
 * (LANYARD_CA_FILE / network.caFile in the CLI), and the operating system's
 * trust store where the running Node can read it (`tls.getCACertificates`,
 * Node ≥ 22.15 / 23.5). And TLS failures as one line saying what failed and
 * which setting fixes it.
 */
import { LanyardError } from '../errors.js';

export interface TrustSettings {
  /** PEM texts added to the default trust (each may hold several certificates). */
  extraCa?: readonly string[];
  /** Also trust the operating system's store (where Node offers it). */
  systemCa?: boolean;
}

/** Whether this Node can read the OS trust store. */
export async function systemCaAvailable(): Promise<boolean> {
  const tls = await import('node:tls');
  return typeof (tls as { getCACertificates?: unknown }).getCACertificates === 'function';
}

/**
 * The `ca` option of a TLS connection for these settings, or undefined for
 * Node's defaults. An explicit `ca` replaces the defaults, so they are
 * included: the bundled roots (and, where Node says so, NODE_EXTRA_CA_CERTS),
 * then the added bundles, then the system's.
 */
export async function trustedCa(s: TrustSettings): Promise<string[] | undefined> {
  if (!s.extraCa?.length && !s.systemCa) return undefined;
  const tls = (await import('node:tls')) as typeof import('node:tls') & { getCACertificates?: (type?: string) => string[] };
  const base = tls.getCACertificates ? tls.getCACertificates('default') : [...tls.rootCertificates];
  const system = s.systemCa && tls.getCACertificates ? tls.getCACertificates('system') : [];
  return [...base, ...(s.extraCa ?? []), ...system];
}

/** The settings that fix a trust failure, as said in hints. */
export const TRUST_FIX =
  "add your CA's PEM bundle with LANYARD_CA_FILE=/path/ca.pem (or `lanyard config set network.caFile /path/ca.pem`), or trust the OS store with LANYARD_SYSTEM_CA=1 (network.systemCa)";

const WHAT: Record<string, { what: string; hint: string }> = {
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: { what: 'is signed by an unknown issuer', hint: TRUST_FIX },
  UNABLE_TO_GET_ISSUER_CERT: { what: 'is signed by an unknown issuer', hint: TRUST_FIX },
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: { what: 'is signed by an unknown issuer', hint: TRUST_FIX },
  SELF_SIGNED_CERT_IN_CHAIN: { what: 'chains to a self-signed root that is not trusted', hint: TRUST_FIX },
  DEPTH_ZERO_SELF_SIGNED_CERT: { what: 'is self-signed and not trusted', hint: `trust that very certificate: ${TRUST_FIX}` },
  ERR_TLS_CERT_ALTNAME_INVALID: {
    what: 'does not name this host (name mismatch)',
    hint: 'use the host name the certificate was issued for in the profile URL (`lanyard config get …`); no setting trusts a certificate for another name',
  },
  CERT_HAS_EXPIRED: { what: 'has expired', hint: "the server must renew its certificate; also check this machine's clock" },
  CERT_NOT_YET_VALID: { what: 'is not valid yet', hint: "check this machine's clock (and the server's certificate)" },
};

export class TlsError extends LanyardError {
  constructor(message: string, hint: string, cause: unknown) {
    super('tls_error', message, { hint, cause });
  }
}

/** A TLS verification failure as a TlsError, or undefined for any other error. */
export function tlsFailure(err: unknown, url: string): TlsError | undefined {
  const code = (err as { code?: string })?.code;
  const known = code ? WHAT[code] : undefined;
  if (!known) return undefined;
  let host = url;
  try {
    host = new URL(url).host;
  } catch {
    /* as given */
  }
  return new TlsError(`TLS: the certificate of ${host} ${known.what} (${code})`, known.hint, err);
}
