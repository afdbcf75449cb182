/**
 * The library's errors say what is wrong and what must happen next (a
 * `remedy`), never which command to run: here the CLI turns the remedy into
 * its advice — a `lanyard …` command or a `LANYARD_*` variable — through the
 * service registry.
 */
import type { LanyardError, Remedy } from '../core/errors.js';
import { SERVICES } from './services/registry.js';

/** The advice line of a remedy, or undefined when the CLI has none to give. */
export function adviceFor(r: Remedy): string | undefined {
  switch (r.kind) {
    case 'sign-in':
      return SERVICES[r.service].signIn(r);
    case 'set-setting':
      if (r.profile !== undefined) {
        return `run \`lanyard config set ${r.setting} ${r.example} --profile ${r.profile}\`, or use a profile that has it: \`--profile NAME\` (\`lanyard profile list\`; after \`lanyard emulator start\`: \`--profile emulator\`)`;
      }
      return `${r.option ? `pass ${r.option}, or ` : ''}set ${r.setting} in the profile (\`lanyard config set ${r.setting} ${r.example}\`)`;
    case 'check-setting':
      return `check \`lanyard config get ${r.setting}\``;
    case 'choose-profile':
      return 'see `lanyard profile list`';
    case 'secret-in-config':
      return r.in === 'url'
        ? 'give the URL without "user:password@" and sign in with `lanyard auth login` (or a LANYARD_* variable)'
        : 'store credentials with `lanyard auth token --with-token`, `lanyard echo key set` or a LANYARD_* variable';
    case 'client-secret':
      return 'set LANYARD_CLIENT_SECRET or pipe it on stdin';
    case 'client-id':
      return r.confidential
        ? 'pass --client-id (and its secret via LANYARD_CLIENT_SECRET or stdin for confidential clients) or --client-key'
        : 'pass a pre-registered client with --client-id';
    case 'forget-client':
      return `run \`lanyard protocol forget ${r.serverUrl}\` and sign in again, or pass a registered --client-id`;
    case 'id-token':
      return 'set LANYARD_ID_TOKEN or pipe it on stdin';
    case 'longer-deadline':
      return 'raise it with --timeout or LANYARD_TIMEOUT, 0 for none';
    case 'trust-ca':
      return `${r.self ? 'trust that very certificate: ' : ''}add your CA's PEM bundle with LANYARD_CA_FILE=/path/ca.pem (or \`lanyard config set network.caFile /path/ca.pem\`), or trust the OS store with LANYARD_SYSTEM_CA=1 (network.systemCa)`;
    case 'certificate-name':
      return 'use the host name the certificate was issued for in the profile URL (`lanyard config get …`); no setting trusts a certificate for another name';
    case 'allow-plain-http':
      return `for a lab setup only, allow this host with LANYARD_ALLOW_PLAIN_HTTP=${r.host}`;
    case 'keychain-required':
      return 'start or unlock the Secret Service (gnome-keyring, KWallet) of this session, or unset LANYARD_KEYCHAIN (and the profile setting keychain) to allow the 0600 file';
  }
}

/** The hint line printed under an error: the library's own hint, then the CLI's advice for its remedy. */
export function hintOf(err: LanyardError): string | undefined {
  const advice = err.remedy && adviceFor(err.remedy);
  if (err.hint && advice) return `${err.hint}: ${advice}`;
  return err.hint ?? advice;
}
