/**
 * The secure context of added trust, without the rest of trust.ts (the
 * launcher's early connection builds one: src/cli/connection-prefetch.ts):
 * Node's default trust with PEM bundles added to its copy of the default
 * store, and the key that tells two trust settings apart.
 */
import type { SecureContext } from 'node:tls';

/** What trust.ts's TrustSettings hold, as far as the context goes. */
export interface AddedTrust {
  readonly extraCa?: readonly string[];
  readonly systemCa?: boolean;
}

/** One string per trust: '' for Node's default trust (nothing added), else the added bundles and the OS-store choice. */
export function trustKey(s: AddedTrust | undefined): string {
  if (!s || (!s.extraCa?.length && !s.systemCa)) return '';
  return JSON.stringify([s.extraCa ?? [], !!s.systemCa]);
}

/**
 * A secure context of Node's default trust (its bundled roots,
 * NODE_EXTRA_CA_CERTS, the OS store under --use-system-ca) with `added` PEM
 * texts trusted too: the native context's addCACert (every Node Lanyard
 * supports has it) adds them to a copy of the process's default store, which
 * Node parsed once; an explicit `ca` would replace the defaults, so where
 * addCACert is missing they are listed with it (every root parsed again).
 */
export function contextWithAdded(tls: typeof import('node:tls'), added: readonly string[]): SecureContext {
  const context = tls.createSecureContext();
  const native = (context as { context?: { addCACert?: (pem: string) => void } }).context;
  if (typeof native?.addCACert === 'function') {
    for (const pem of added) native.addCACert(pem);
    return context;
  }
  const withSystem = tls as typeof tls & { getCACertificates?: (type?: string) => string[] };
  const base = withSystem.getCACertificates ? withSystem.getCACertificates('default') : [...tls.rootCertificates];
  return tls.createSecureContext({ ca: [...base, ...added] });
}
