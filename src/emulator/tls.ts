/**
 * A self-signed certificate for serving the emulator over HTTPS on loopback
 * without openssl: valid for 127.0.0.1, ::1 and localhost (and the names it is
 * reached by: its address, a `--public-host` name), usable as its own
 * trust anchor (NODE_EXTRA_CA_CERTS for Node, SSL_CERT_FILE for Go programs
 * such as the code host's CLI).
 */
import { createPrivateKey, generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import forge from 'node-forge';

export interface EmulatorCertificate {
  /** PEM certificate (also the CA to trust). */
  cert: string;
  /** PEM private key (PKCS#8). */
  key: string;
}

/**
 * A certificate's subject or issuer name with every value a UTF8String, as
 * RFC 5280 (4.1.2.4) has new certificates encode a DirectoryString. node-forge
 * writes a PrintableString unless told otherwise, which cannot hold `@`, `_`
 * or `*`: strict parsers (Python's `cryptography`) refuse such a certificate.
 */
export function directoryName(fields: ReadonlyArray<{ name: string; value: string }>): forge.pki.CertificateField[] {
  return fields.map((f) => ({ ...f, valueTagClass: forge.asn1.Type.UTF8 as unknown as forge.asn1.Class }));
}

/** The names a certificate for `hosts` covers: those, 127.0.0.1, ::1 and localhost (names in lower case). */
function coveredNames(hosts: string | readonly string[]): string[] {
  const given = typeof hosts === 'string' ? [hosts] : hosts;
  return [...new Set([...given, '127.0.0.1', '::1', 'localhost'].map((h) => (isIP(h) ? h : h.toLowerCase())))];
}

/**
 * For `hosts` (IP addresses or names; the first is the subject's common name)
 * besides 127.0.0.1, ::1 and localhost.
 */
export function selfSignedCertificate(hosts: string | readonly string[] = '127.0.0.1', nowMs = Date.now(), days = 30): EmulatorCertificate {
  const names = coveredNames(hosts);
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }) as string);
  cert.serialNumber = '01' + randomBytes(8).toString('hex');
  cert.validity.notBefore = new Date(nowMs - 5 * 60_000);
  cert.validity.notAfter = new Date(nowMs + days * 86_400_000);
  const name = directoryName([
    { name: 'commonName', value: names[0]! },
    { name: 'organizationName', value: 'Lanyard emulator' },
  ]);
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectKeyIdentifier' },
    {
      name: 'subjectAltName',
      altNames: [...names.filter((h) => isIP(h)).map((ip) => ({ type: 7, ip })), ...names.filter((h) => !isIP(h)).map((value) => ({ type: 2, value }))],
    },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(key) as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert).replace(/\r\n/g, '\n'), key };
}

/** File names of the self-signed certificate in the emulator's data directory. */
export const CA_FILE = 'emulator-ca.pem';
const KEY_FILE = 'emulator-tls-key.pem';

/** A certificate kept in a data directory is made again this long before it expires. */
const RENEW_BEFORE_MS = 86_400_000;

/**
 * The self-signed certificate of the data directory `dir`: the one kept there
 * when it is still valid for a day and covers every one of `hosts` (the
 * address it listens on, the name it is reached by) (so a client told to
 * trust it once, gh's SSL_CERT_FILE say, keeps trusting an emulator restarted
 * on the same `--data-dir`), else a new one, written there: the certificate
 * as `emulator-ca.pem` (0644, the file to trust), the key beside it (0600).
 */
export async function dataDirCertificate(
  dir: string,
  hosts: string | readonly string[],
  nowMs = Date.now(),
): Promise<EmulatorCertificate & { caFile: string; reused: boolean }> {
  const caFile = join(dir, CA_FILE);
  const keyFile = join(dir, KEY_FILE);
  const kept = await Promise.all([readFile(caFile, 'utf8'), readFile(keyFile, 'utf8')]).catch(() => undefined);
  if (kept && stillServes(kept[0], kept[1], hosts, nowMs)) return { cert: kept[0], key: kept[1], caFile, reused: true };
  const made = selfSignedCertificate(hosts, nowMs);
  // The key first: a certificate on disk always has its key beside it.
  await writeFile(keyFile, made.key, { mode: 0o600 });
  await chmod(keyFile, 0o600); // a key file left by someone else keeps its mode through writeFile
  await writeFile(caFile, made.cert, { mode: 0o644 });
  return { ...made, caFile, reused: false };
}

function stillServes(certPem: string, keyPem: string, hosts: string | readonly string[], nowMs: number): boolean {
  try {
    const x509 = new X509Certificate(certPem);
    if (Date.parse(x509.validTo) - nowMs < RENEW_BEFORE_MS || Date.parse(x509.validFrom) > nowMs) return false;
    if (!x509.checkPrivateKey(createPrivateKey(keyPem))) return false;
    // Every name a client may check: a certificate made before `--public-host` was given does not cover it.
    return coveredNames(hosts).every((h) => (isIP(h) ? x509.checkIP(h) !== undefined : x509.checkHost(h, { wildcards: false }) !== undefined));
  } catch {
    return false; // unreadable: make a new one
  }
}
