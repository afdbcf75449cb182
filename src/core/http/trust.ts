/**
 * TLS trust beyond Node's defaults: PEM bundles added to the default trust
 * (LANYARD_CA_FILE / network.caFile in the CLI), and the operating system's
 * trust store where the running Node can read it (`tls.getCACertificates`,
 * Node ≥ 22.15 / 23.5). And TLS failures as one line saying what failed and
 * which setting fixes it.
 */
import type { SecureContext } from 'node:tls';
import { LanyardError, type Remedy } from '../errors.js';
import { contextWithAdded, trustKey } from './trust-context.js';

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
 * The secure context of a process's https connections under these settings
 * (undefined: Node's defaults), built once per process and shared by every
 * connection: Node's default trust (its bundled roots, NODE_EXTRA_CA_CERTS,
 * and the OS store under --use-system-ca) is the process's own certificate
 * store, which Node parses once; the added bundles and the system's
 * certificates are added to the context's copy of it. A `ca` list on each
 * connection would instead parse every root again (~145 certificates, 20-30 ms
 * of CPU per connection). The last settings' context is kept: a process uses
 * one set of settings (the CLI), or a few in turn (tests).
 */
export function secureContextFor(s: TrustSettings): Promise<SecureContext | undefined> {
  const key = trustKey(s);
  if (!key) return Promise.resolve(undefined);
  if (built?.key !== key) built = { key, context: buildSecureContext(s) };
  return built.context;
}

/**
 * A context made elsewhere for these settings, in the same way (the
 * launcher's early connection, src/cli/connection-prefetch.ts), kept as this
 * process's context for them: the same trust is not built twice.
 */
export function adoptSecureContext(s: TrustSettings, context: SecureContext): void {
  const key = trustKey(s);
  if (key) built = { key, context: Promise.resolve(context) };
}

/** The one context built (see {@link secureContextFor}). */
let built: { key: string; context: Promise<SecureContext> } | undefined;

async function buildSecureContext(s: TrustSettings): Promise<SecureContext> {
  const tls = (await import('node:tls')) as typeof import('node:tls') & { getCACertificates?: (type?: string) => string[] };
  const system = s.systemCa && tls.getCACertificates ? tls.getCACertificates('system') : [];
  return contextWithAdded(tls, [...(s.extraCa ?? []), ...system]);
}

const TRUST: Remedy = { kind: 'trust-ca' };

const WHAT: Record<string, { what: string; hint?: string; remedy?: Remedy }> = {
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: { what: 'is signed by an unknown issuer', remedy: TRUST },
  UNABLE_TO_GET_ISSUER_CERT: { what: 'is signed by an unknown issuer', remedy: TRUST },
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: { what: 'is signed by an unknown issuer', remedy: TRUST },
  SELF_SIGNED_CERT_IN_CHAIN: { what: 'chains to a self-signed root that is not trusted', remedy: TRUST },
  DEPTH_ZERO_SELF_SIGNED_CERT: { what: 'is self-signed and not trusted', remedy: { kind: 'trust-ca', self: true } },
  ERR_TLS_CERT_ALTNAME_INVALID: { what: 'does not name this host (name mismatch)', remedy: { kind: 'certificate-name' } },
  CERT_HAS_EXPIRED: { what: 'has expired', hint: "the server must renew its certificate; also check this machine's clock" },
  CERT_NOT_YET_VALID: { what: 'is not valid yet', hint: "check this machine's clock (and the server's certificate)" },
};

export class TlsError extends LanyardError {
  constructor(message: string, fix: { hint?: string; remedy?: Remedy }, cause: unknown) {
    super('tls_error', message, { hint: fix.hint, remedy: fix.remedy, cause });
  }
}

/** A TLS verification failure as a TlsError, or undefined for any other error; `whose`: what the certificate is of (default: `url`'s host). */
export function tlsFailure(err: unknown, url: string, whose?: string): TlsError | undefined {
  const code = (err as { code?: string })?.code;
  const known = code ? WHAT[code] : undefined;
  if (!known) return undefined;
  let host = url;
  try {
    host = new URL(url).host;
  } catch {
    /* as given */
  }
  return new TlsError(`TLS: the certificate of ${whose ?? host} ${known.what} (${code})`, known, err);
}
