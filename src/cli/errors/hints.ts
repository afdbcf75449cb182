/**
 * The library's errors say what is wrong and what must happen next (a
 * `remedy`), never which command to run: here the CLI turns the remedy into
 * its advice — a `lanyard …` command or a `LANYARD_*` variable — through the
 * service registry.
 */
import type { LanyardError, Remedy, ServiceName } from '../../core/errors.js';
import type { Check } from '../../core/doctor/checks.js';
import { waitWords } from '../../core/ratelimit/policy.js';
import { SERVICES } from '../services/registry.js';

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
    case 'longer-wait': {
      // A --max-wait value that allows it: whole seconds up to 2 minutes, else whole minutes.
      const s = Math.ceil(r.waitMs / 1000);
      const orWait = r.waitingAllowsMs === undefined ? '' : ` (or --wait, which waits up to ${waitWords(r.waitingAllowsMs)})`;
      return `allow it with --max-wait ${s < 120 ? `${s}s` : `${Math.ceil(s / 60)}m`}${orWait}`;
    }
    case 'longer-deadline':
      return 'raise it with --timeout or LANYARD_TIMEOUT, 0 for none';
    case 'trust-ca':
      return `${r.self ? 'trust that very certificate: ' : ''}add your CA's PEM bundle with LANYARD_CA_FILE=/path/ca.pem (or \`lanyard config set network.caFile /path/ca.pem\`), or trust the OS store with LANYARD_SYSTEM_CA=1 (network.systemCa)`;
    case 'certificate-name':
      return 'use the host name the certificate was issued for in the profile URL (`lanyard config get …`); no setting trusts a certificate for another name';
    case 'allow-plain-http':
      return `for a lab setup only, allow this host with LANYARD_ALLOW_PLAIN_HTTP=${r.host}`;
    case 'keychain-binding':
      return 'see `lanyard doctor`; LANYARD_KEYCHAIN=off works with the 0600 file alone';
    case 'keychain-required':
      return 'start or unlock the Secret Service (gnome-keyring, KWallet) of this session, or unset LANYARD_KEYCHAIN (and the profile setting keychain) to allow the 0600 file';
  }
}

/** The hint line printed under an error: the library's own hint (else the CLI's `fallback` words), then the CLI's advice for its remedy. */
export function hintOf(err: LanyardError, fallback?: string): string | undefined {
  const advice = err.remedy && adviceFor(err.remedy);
  const hint = err.hint ?? fallback;
  if (hint && advice) return `${hint}: ${advice}`;
  return hint ?? advice;
}

/** What a proxy or a name that does not resolve asks of the user (the transport's proxy hint, as advice). */
const PROXY_FIX = 'check HTTPS_PROXY / HTTP_PROXY / ALL_PROXY (or `lanyard config set network.proxy URL`) and NO_PROXY';

/**
 * The fix line of a problem `lanyard doctor` found (core/doctor/checks.ts):
 * the remedy's advice when the library gave one, else the CLI's words for
 * the problem, through the service registry for credentials.
 */
export function doctorFix(c: Check, of: { service?: ServiceName; source?: string; url?: string } = {}): string | undefined {
  if (!c.problem || c.status === 'ok' || c.status === 'skip') return undefined;
  const s = of.service ? SERVICES[of.service] : undefined;
  const source = of.source;
  switch (c.problem) {
    case 'refused':
      return s?.refused(source ?? 'anonymous');
    case 'no-credential':
      return (c.remedy && adviceFor(c.remedy)) ?? s?.signIn({ serverUrl: of.url });
    case 'expired':
    case 'expires-soon':
      return s?.signIn({ again: true, serverUrl: of.url }) ?? 'get a new credential';
    case 'dns':
      return `the host name does not resolve here: check the service's URL in the profile (\`lanyard config list\`), or, when only a proxy can resolve it, ${PROXY_FIX}`;
    case 'connect':
      return "nothing answers at that address: start the service (the emulator: `lanyard emulator start`) or fix the service's URL in the profile (`lanyard config list`)";
    case 'timeout':
      return `the host did not answer in time: check the URL (\`lanyard config list\`), the firewall, and ${PROXY_FIX}`;
    case 'proxy':
      return `${PROXY_FIX} (the proxy's user and password go in its URL, percent-encoded)`;
    case 'tls':
      return (c.remedy && adviceFor(c.remedy)) ?? "the server must renew its certificate; also check this machine's clock";
    case 'network':
      return 'check the network connection and the URL (`lanyard --debug doctor` shows the exchange)';
    case 'forbidden':
      return 'the credential lacks access to this resource: check the subscription or scopes, or sign in as another account';
    case 'server-error':
      return 'the service is failing or the URL is not its API: check the URL, try again later (`lanyard --debug doctor` shows the exchange)';
    case 'clock-skew':
      return "set this machine's clock right (turn on time synchronisation: `timedatectl set-ntp true`, or your system's settings)";
    case 'rate-limited':
      return 'wait for the reset (`lanyard ratelimit wait`), or use another account';
    case 'rate-limit-low':
      return 'little budget left: `lanyard ratelimit status` shows it, `lanyard --wait …` waits for the reset';
    case 'keychain-fallback':
      return 'start or unlock the Secret Service of this session (gnome-keyring, KWallet), or choose the file with LANYARD_KEYCHAIN=off';
    case 'keychain-binding':
      return 'reinstall lanyard-cli on this machine (npm installs the @napi-rs/keyring package of its platform; it cannot run from a filesystem mounted noexec), or choose the file with LANYARD_KEYCHAIN=off';
    default:
      return c.remedy ? adviceFor(c.remedy) : undefined;
  }
}
