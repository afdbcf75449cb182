/**
 * The API's TLS connection for `lanyard api`, opened by bin/lanyard.js before
 * it loads the CLI (built on its own as dist/connection-prefetch.cjs). Over
 * TLS a request first waits for the connection and the handshake: the
 * server's share of it, the round trips, and on this side Node's loading of
 * its root certificates on a thread of its own. Opened first, that waiting
 * overlaps with reading and compiling the CLI instead of following it. `main`
 * hands the connection to the context; the HTTP transport's agent takes it
 * for its first connection to that origin (core/http/transport.ts).
 *
 * Only where the CLI would connect the same way: the profile's hosting API
 * (no --service, no full URL), https, no proxy for it, Node's default trust
 * or that trust with the CA bundle of LANYARD_CA_FILE or network.caFile added
 * (read here as the CLI reads it: the CLI takes the connection only when its
 * own reading gives the same certificates; not with LANYARD_SYSTEM_CA or its
 * setting). Nothing is sent
 * but the TLS handshake: no credential, no request. A wrong guess costs a
 * connection, never a result: a connection not taken is closed when the
 * command ends, one that failed is not handed over (the CLI's own connection
 * then meets, and reports, what failed).
 */
import { readFileSync, statSync } from 'node:fs';
import { isIP, connect as netConnect } from 'node:net';
import type { SecureContext, TLSSocket } from 'node:tls';
import { selectProfile } from '../core/config/bindings.js';
import type { ProfileSettings } from '../core/config/settings.js';
import { ConfigReader } from '../core/config/store.js';
import { proxyFor, proxySettings } from '../core/http/proxy.js';
import { contextWithAdded } from '../core/http/trust-context.js';
import type { TrustSettings } from '../core/http/trust.js';
import type { Preconnected } from '../core/http/transport.js';
import { caFileOf, keepsExtraCaCerts, parsesWith, usableCertificates } from './ports/ca-bundle.js';
import { USER_FILE_CAPS } from './user-file.js';

/** The opened connection, its TLS handshake, and its end when the command did not take it. */
export interface ConnectionPrefetch extends Preconnected {
  /** Starts the TLS handshake over the TCP connection (the launcher: once the CLI is compiled, see open()). */
  handshake(): void;
  discard(): void;
}

/** Options taking a value (the root's and `api`'s): the word after them is neither a target nor an option. */
const VALUE_OPTIONS: ReadonlySet<string> = new Set([
  ...['-p', '--profile', '--max-wait', '--timeout'],
  ...[
    '-X',
    '--method',
    '-H',
    '--header',
    '-f',
    '--raw-field',
    '-F',
    '--field',
    '--input',
    '--checkpoint',
    '--service',
    '--user',
    '-q',
    '--jq',
    '-t',
    '--template',
  ],
]);

/** What `lanyard api` is asked, as far as the connection goes: --profile, --service, and whether the target is a full URL (or help). */
export function apiWords(args: readonly string[]): { profile?: string; service: string; url: boolean; help: boolean } {
  const out: { profile?: string; service: string; url: boolean; help: boolean } = { service: 'hosting', url: false, help: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') break;
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const name = eq > 0 ? a.slice(0, eq) : a;
    const value = () => (eq > 0 ? a.slice(eq + 1) : args[++i]);
    if (name === '-h' || name === '--help') out.help = true;
    else if (name === '-p' || name === '--profile') out.profile = value();
    else if (/^-p./.test(a)) out.profile = a.slice(2);
    else if (name === '--service') out.service = value() ?? '';
    else if (VALUE_OPTIONS.has(name)) value();
    else if (/^[a-z][a-z0-9+.-]*:/i.test(a)) out.url = true;
  }
  return out;
}

/**
 * The https origin the CLI's first request of `lanyard api ARGS` goes to
 * directly, as the arguments, the environment and the selected profile (the
 * CLI's own selection: --profile, LANYARD_PROFILE, the directory's binding,
 * the active profile) say; else undefined.
 */
export function apiOrigin(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): URL | undefined {
  return apiTarget(args, env, cwd)?.url;
}

/** apiOrigin's URL and the selected profile's settings; undefined with LANYARD_SYSTEM_CA or its setting (trust this cannot tell in advance). */
function apiTarget(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): { url: URL; settings: ProfileSettings } | undefined {
  const words = apiWords(args);
  if (words.help || words.url || words.service !== 'hosting') return undefined;
  const reader = ConfigReader.at({ dir: env.LANYARD_CONFIG_DIR || undefined });
  const { name } = selectProfile({ flag: words.profile, env, bindings: reader.bindings(), active: reader.activeProfile, cwd });
  const settings = reader.profile(name);
  const base = settings?.['hosting.apiUrl'];
  if (!settings || !base) return undefined;
  const url = new URL(base);
  if (url.protocol !== 'https:') return undefined;
  if (env.LANYARD_SYSTEM_CA || settings['network.systemCa']) return undefined;
  if (proxyFor(url, proxySettings(env, { proxy: settings['network.proxy'], noProxy: settings['network.noProxy'] }))) return undefined;
  return { url, settings };
}

/**
 * The trust the CLI's HTTP client will use (src/cli/ports/network.ts): none
 * beyond Node's defaults (undefined), or the CA bundle's usable certificates
 * added; null when this cannot tell it (a bundle that is no regular file,
 * too large or unusable, which the CLI reports; NODE_EXTRA_CA_CERTS on a
 * Node that leaves it out of added trust).
 */
export function prefetchTrust(env: NodeJS.ProcessEnv, settings: ProfileSettings): TrustSettings | undefined | null {
  const ca = caFileOf(env, settings);
  if (!ca) return undefined;
  if (env.NODE_EXTRA_CA_CERTS && !keepsExtraCaCerts(process.versions.node)) return null;
  try {
    // Only a regular file under the CLI's cap: a FIFO or a device could block, and the CLI bounds those itself.
    const st = statSync(ca.file);
    if (!st.isFile() || st.size > USER_FILE_CAPS.caBundle) return null;
    const { X509Certificate } = process.getBuiltinModule('node:crypto');
    return { extraCa: [usableCertificates(readFileSync(ca.file, 'utf8'), ca.file, parsesWith(X509Certificate))] };
  } catch {
    return null;
  }
}

/**
 * The oldest a finished handshake may be when the command takes the
 * connection. The command's first request normally follows it within a
 * fraction of a second; a later one (a pacing wait up to --max-wait, a
 * keychain prompt, a slow `-F x=@-` on stdin) would go over a connection
 * nothing has used, which a server or a middlebox may have dropped meanwhile
 * (without a FIN, or with one still on the way), and a POST or PATCH is not
 * retried. 2 s: below the shortest idle limits met in the field (Node's
 * keep-alive 5 s; undici, like this, allows a 2 s margin under a server's
 * hint), far above the usual gap.
 */
export const PREFETCH_MAX_AGE_MS = 2_000;

/** Opens the API's connection when `group` is `api` and its origin is known (see apiOrigin); else undefined. Never throws. `now`: the clock take() ages the connection by. */
export function prefetchConnection(
  group: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
  now: () => number = Date.now,
): ConnectionPrefetch | undefined {
  if (group !== 'api' || ['0', 'off', 'false'].includes(env.LANYARD_CONNECT_PREFETCH ?? '')) return undefined;
  let target: ReturnType<typeof apiTarget>;
  try {
    target = apiTarget(args, env, cwd);
  } catch {
    return undefined; // the CLI reports a config it cannot read
  }
  if (!target) return undefined;
  // node:tls (and with it node:crypto) only now: over plain http, `api` loads neither (test/e2e/startup-commands.test.ts).
  process.getBuiltinModule('node:tls');
  const trust = prefetchTrust(env, target.settings);
  return trust === null ? undefined : open(target.url, now, trust);
}

/**
 * The connection an https agent would open for a request to `url` (its host,
 * port and server name: none for an IP address, the host for the
 * certificate's check). The TCP connection first (its round trip and any DNS
 * lookup overlap with the CLI's compiling, as does Node's loading of its root
 * certificates, which loading node:tls starts on a thread of its own); the
 * TLS handshake over it on handshake(), when those certificates are read:
 * made at once, the secure context would wait for them on this thread.
 */
function open(url: URL, now: () => number, trust: TrustSettings | undefined): ConnectionPrefetch {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || 443);
  const servername = isIP(host) ? '' : host;
  const tcp = netConnect({ host, port });
  let tls: TLSSocket | undefined;
  let failed = false;
  let secureAt: number | undefined;
  const fail = () => (failed = true);
  tcp.on('error', fail);
  // Until taken it keeps no command alive.
  tcp.unref();
  let taken = false;
  let secureContext: SecureContext | undefined;
  const prefetch: ConnectionPrefetch = {
    ...(trust ? { trust } : {}),
    get secureContext() {
      return secureContext;
    },
    handshake() {
      if (tls || failed || tcp.destroyed) return;
      const tlsModule = process.getBuiltinModule('node:tls');
      // The CLI's context for this trust, made the same way (core/http/trust.ts): it takes this one over.
      if (trust?.extraCa) secureContext = contextWithAdded(tlsModule, trust.extraCa);
      tls = tlsModule.connect({ socket: tcp, host, port, ...(servername ? { servername } : {}), ...(secureContext ? { secureContext } : {}) });
      tls.on('error', fail);
      tls.once('secureConnect', () => (secureAt = now()));
    },
    take(h, p, name) {
      if (h !== host || p !== port || name !== servername) return undefined;
      prefetch.handshake();
      if (taken || failed || !tls || !usable(tls)) return undefined;
      // Too old to trust (see PREFETCH_MAX_AGE_MS): closed now, the agent opens a fresh one.
      if (secureAt !== undefined && now() - secureAt > PREFETCH_MAX_AGE_MS) return void prefetch.discard();
      taken = true;
      tcp.ref();
      return tls;
    },
    discard() {
      if (!taken) (tls ?? tcp).destroy();
    },
  };
  return prefetch;
}

/** Still open both ways, and nothing came from the server (before a request, anything it sends is a close or an error: the connection is not reused). */
function usable(tls: TLSSocket): boolean {
  return !tls.destroyed && !tls.readableEnded && tls.readable && tls.writable && tls.readableLength === 0;
}
