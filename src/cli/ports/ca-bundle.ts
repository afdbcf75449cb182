/**
 * The CA bundle added to the default trust (LANYARD_CA_FILE, else the
 * profile's network.caFile): which file, and its usable certificates. Shared
 * by the HTTP client's network settings (network.ts) and the launcher's early
 * connection (connection-prefetch.ts), which must agree on the trust to the
 * byte: a connection made under other trust is never handed over.
 */
import type { ProfileSettings } from '../../core/config/settings.js';
import { ConfigError } from '../../core/errors.js';

/** The CA bundle's path and where it was named (the variable or the setting), or undefined. */
export function caFileOf(env: NodeJS.ProcessEnv, settings: ProfileSettings): { file: string; from: 'LANYARD_CA_FILE' | 'network.caFile' } | undefined {
  if (env.LANYARD_CA_FILE) return { file: env.LANYARD_CA_FILE, from: 'LANYARD_CA_FILE' };
  const file = settings['network.caFile'];
  return file ? { file, from: 'network.caFile' } : undefined;
}

/** Whether this Node keeps NODE_EXTRA_CA_CERTS in a secure context that CA certificates are added to (22.15, 23.5 and later). */
export function keepsExtraCaCerts(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major >= 24 || (major === 23 && minor >= 5) || (major === 22 && minor >= 15);
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[^-]*-----END CERTIFICATE-----/g;

/** The PEM certificate blocks of a text. */
export function certificateBlocks(pem: string): string[] {
  return pem.match(PEM_BLOCK) ?? [];
}

/** Whether a PEM block is a certificate this Node can read. */
export function parsesWith(X509: typeof import('node:crypto').X509Certificate): (block: string) => boolean {
  return (block) => {
    try {
      new X509(block);
      return true;
    } catch {
      return false;
    }
  };
}

/** The certificates of a CA bundle that can be read, or exit 2 naming the file when there is none (a corrupt block is left out). */
export function usableCertificates(pem: string, named: string, parses: (block: string) => boolean): string {
  const blocks = certificateBlocks(pem);
  if (!blocks.length) throw new ConfigError(`${named} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  const good = blocks.filter(parses);
  if (!good.length)
    throw new ConfigError(
      `${named} holds no usable certificate (${blocks.length === 1 ? 'its one certificate block does not parse' : `none of its ${blocks.length} certificate blocks parses`})`,
    );
  return good.join('\n');
}
