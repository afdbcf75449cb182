/** A private certificate authority made by the test (openssl), and server certificates it signs. */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface PrivateCa {
  /** The CA certificate (PEM file): what a client must trust. */
  caFile: string;
  /** A server certificate and key signed by the CA, for `names` (DNS) and 127.0.0.1. */
  issue(name: string, names: string[]): { cert: string; key: string };
  /** The same, valid only in January 2020: expired (`openssl ca`, whose -startdate/-enddate OpenSSL 3.0's x509 lacks). */
  issueExpired(name: string, names: string[]): { cert: string; key: string };
}

const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });

export function privateCa(dir: string): PrivateCa {
  const caKey = join(dir, 'ca-key.pem');
  const caFile = join(dir, 'ca.pem');
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', caKey, '-out', caFile, '-days', '2', '-subj', '/CN=Lanyard Test Private CA']);
  return {
    caFile,
    issue(name, names) {
      const key = join(dir, `${name}-key.pem`);
      const csr = join(dir, `${name}.csr`);
      const cert = join(dir, `${name}.pem`);
      const ext = join(dir, `${name}.ext`);
      writeFileSync(ext, `subjectAltName=${[...names.map((n) => `DNS:${n}`), 'IP:127.0.0.1'].join(',')}\n`);
      openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', csr, '-subj', `/CN=${names[0] ?? '127.0.0.1'}`]);
      openssl(['x509', '-req', '-in', csr, '-CA', caFile, '-CAkey', caKey, '-CAcreateserial', '-out', cert, '-extfile', ext, '-days', '2']);
      return { cert, key };
    },
    issueExpired(name, names) {
      const key = join(dir, `${name}-key.pem`);
      const csr = join(dir, `${name}.csr`);
      const cert = join(dir, `${name}.pem`);
      const ext = join(dir, `${name}.ext`);
      const conf = join(dir, `${name}-ca.cnf`);
      writeFileSync(ext, `subjectAltName=${[...names.map((n) => `DNS:${n}`), 'IP:127.0.0.1'].join(',')}\n`);
      writeFileSync(join(dir, `${name}-index.txt`), '');
      writeFileSync(join(dir, `${name}-serial`), '01\n');
      writeFileSync(
        conf,
        `[ca]\ndefault_ca=d\n[d]\ndatabase=${join(dir, `${name}-index.txt`)}\nnew_certs_dir=${dir}\nserial=${join(dir, `${name}-serial`)}\ndefault_md=sha256\npolicy=p\nunique_subject=no\n[p]\ncommonName=supplied\n`,
      );
      openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', csr, '-subj', `/CN=${names[0] ?? '127.0.0.1'}`]);
      openssl(
        ['ca', '-batch', '-config', conf, '-in', csr, '-out', cert, '-cert', caFile, '-keyfile', caKey, '-notext', '-extfile', ext].concat([
          '-startdate',
          '20200101000000Z',
          '-enddate',
          '20200201000000Z',
        ]),
      );
      return { cert, key };
    },
  };
}
