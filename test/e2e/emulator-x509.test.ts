/**
 * The X.509 certificates the emulator publishes (a service account's, the
 * platform's default account's, the app platform's signer's) and its own TLS
 * certificate: every name value is a UTF8String. A PrintableString cannot
 * hold the `@` of the owners' e-mail-like ids; strict parsers (Python's
 * `cryptography`, so google-auth) refuse such a certificate, while Node's
 * and the emulator's own gateway accept it. The Python clients' test
 * (test/interop-py/) loads the same documents with `cryptography` itself.
 */
import forge from 'node-forge';
import { describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../../src/emulator/tls.js';
import { useInProcessEmulator } from './in-process-emulator.js';

const ref = useInProcessEmulator();

/** Each attribute of the certificate's subject and issuer: its short name, value and ASN.1 string type. */
function nameValues(pem: string): Array<{ field: string; value: string; type: number }> {
  const cert = forge.pki.certificateFromPem(pem);
  return [...cert.subject.attributes, ...cert.issuer.attributes].map((a) => ({
    field: String(a.shortName ?? a.name),
    value: String(a.value),
    type: a.valueTagClass as number,
  }));
}

const UTF8 = forge.asn1.Type.UTF8;

describe('published X.509 certificates encode their names as UTF8String', () => {
  it('the service account, the platform default account and the app platform signer', async () => {
    const info = (await (await fetch(`${ref.emu.urls.admin}/info`)).json()) as {
      echo: { serviceAccounts: Array<{ email: string; jwksUrls: { x509: string } }> };
    };
    const owners = ['echo-client@lanyard-client.iam.lanyard.test', 'lanyard-client@appspot.lanyard.test', 'securetoken@system.lanyard.test'];
    const urls = owners.map(
      (o) => info.echo.serviceAccounts.find((a) => a.email === o)?.jwksUrls.x509 ?? `${ref.emu.urls.echo.base}/service_accounts/v1/metadata/x509/${o}`,
    );
    for (const [i, url] of urls.entries()) {
      const doc = (await (await fetch(url)).json()) as Record<string, string>;
      const pems = Object.values(doc);
      expect(pems.length, url).toBeGreaterThan(0);
      for (const pem of pems) {
        const names = nameValues(pem);
        expect(names.find((n) => n.field === 'CN')?.value).toBe(owners[i]);
        expect(
          names.filter((n) => n.type !== UTF8),
          url,
        ).toEqual([]);
      }
    }
  });

  it('the emulator’s own TLS certificate too', () => {
    expect(nameValues(selfSignedCertificate('127.0.0.1').cert).filter((n) => n.type !== UTF8)).toEqual([]);
  });
});
