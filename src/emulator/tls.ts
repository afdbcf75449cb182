/**
 * A self-signed certificate for serving the emulator over HTTPS on loopback
 * without openssl: valid for 127.0.0.1, ::1 and localhost, usable as its own
 * trust anchor (NODE_EXTRA_CA_CERTS for Node, SSL_CERT_FILE for Go programs
 * such as the code host's CLI).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import forge from 'node-forge';

export interface EmulatorCertificate {
  /** PEM certificate (also the CA to trust). */
  cert: string;
  /** PEM private key (PKCS#8). */
  key: string;
}

/** For `host` (an IP address or a name) besides 127.0.0.1, ::1 and localhost. */
export function selfSignedCertificate(host = '127.0.0.1', nowMs = Date.now(), days = 30): EmulatorCertificate {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }) as string);
  cert.serialNumber = '01' + randomBytes(8).toString('hex');
  cert.validity.notBefore = new Date(nowMs - 5 * 60_000);
  cert.validity.notAfter = new Date(nowMs + days * 86_400_000);
  const name = [
    { name: 'commonName', value: host },
    { name: 'organizationName', value: 'Lanyard emulator' },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, keyCertSign: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectKeyIdentifier' },
    {
      name: 'subjectAltName',
      altNames: [
        ...[...new Set([host, '127.0.0.1', '::1'])].filter((h) => isIP(h)).map((ip) => ({ type: 7, ip })),
        ...[...new Set([host, 'localhost'])].filter((h) => !isIP(h)).map((value) => ({ type: 2, value })),
      ],
    },
  ]);
  cert.sign(forge.pki.privateKeyFromPem(key) as forge.pki.rsa.PrivateKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert).replace(/\r\n/g, '\n'), key };
}
