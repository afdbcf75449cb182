/**
 * The network settings of the HTTP client from the environment and the
 * profile (docs/networks.md): proxies and trust. The proxy's password (from
 * the variable's user-info) is remembered as a secret, so no diagnostic shows it.
 */
import type { ProfileSettings } from '../../core/config/settings.js';
import { ValidationError } from '../../core/errors.js';
import type { HttpClientOptions } from '../../core/http/types.js';
import { PROXY_VARIABLES, ProxyError, parseProxyUrl, proxyCredentialForms, proxySettings } from '../../core/http/proxy.js';
import type { Secrets } from '../terminal/terminal-text.js';
import { caFileOf, certificateBlocks, keepsExtraCaCerts, parsesWith, usableCertificates } from './ca-bundle.js';

const truthy = (v: string | undefined) => v !== undefined && /^(1|true|yes|on)$/i.test(v.trim());

export async function networkOptions(
  env: NodeJS.ProcessEnv,
  settings: ProfileSettings,
  warnOnce: (key: string, text: string) => void,
  secrets: Secrets,
  signal?: AbortSignal,
): Promise<Pick<HttpClientOptions, 'proxy' | 'trust'>> {
  for (const name of [...PROXY_VARIABLES.httpsProxy, ...PROXY_VARIABLES.httpProxy, ...PROXY_VARIABLES.allProxy]) {
    rememberProxyPassword(env[name], secrets);
    checkProxyVariable(name, env[name]);
  }
  const proxy = proxySettings(env, { proxy: settings['network.proxy'], noProxy: settings['network.noProxy'] });
  const out: Pick<HttpClientOptions, 'proxy' | 'trust'> = Object.keys(proxy).length ? { proxy } : {};
  const ca = caFileOf(env, settings);
  const systemCa = env.LANYARD_SYSTEM_CA !== undefined && env.LANYARD_SYSTEM_CA !== '' ? truthy(env.LANYARD_SYSTEM_CA) : truthy(settings['network.systemCa']);
  if (!ca && !systemCa) return out;
  const extraCa: string[] = [];
  if (ca) {
    const { file: caFile, from } = ca;
    // node:crypto only here: a command without a CA file does not load it (test/e2e/startup.test.ts).
    const [{ readUserFile, USER_FILE_CAPS }, { X509Certificate }] = await Promise.all([import('../user-file.js'), import('node:crypto')]);
    const parses = parsesWith(X509Certificate);
    extraCa.push(usableCertificates(await readUserFile(caFile, from, { maxBytes: USER_FILE_CAPS.caBundle, signal }), `${from}: ${caFile}`, parses));
    // NODE_EXTRA_CA_CERTS is added too where Node leaves it out of a context whose trust is added to (core/http/trust.ts):
    // Node 20. Newer Node keeps it, and parsing it again would cost as much as the defaults (often the whole system bundle).
    if (env.NODE_EXTRA_CA_CERTS && !keepsExtraCaCerts(process.versions.node)) {
      const extra = await readUserFile(env.NODE_EXTRA_CA_CERTS, 'NODE_EXTRA_CA_CERTS', { maxBytes: USER_FILE_CAPS.caBundle, signal }).catch((err: unknown) => {
        if ((err as { code?: string }).code === 'cancelled') throw err;
        return '';
      });
      // Node itself only warns about a bad NODE_EXTRA_CA_CERTS: so does this, by leaving it out.
      extraCa.push(certificateBlocks(extra).filter(parses).join('\n'));
    }
  }
  const { systemCaAvailable } = await import('../../core/http/trust.js');
  if (systemCa && !(await systemCaAvailable())) {
    warnOnce(
      'system-ca',
      `this Node (${process.version}) cannot read the OS trust store (Node 22.15 or later can): the default trust is used; add your CA with LANYARD_CA_FILE instead`,
    );
  }
  return { ...out, trust: { extraCa: extraCa.filter(Boolean), systemCa } };
}

function rememberProxyPassword(text: string | undefined, secrets: Secrets): void {
  const m = text ? /^[a-z][a-z0-9+.-]*:\/\/([^/@:]*):([^/@]+)@/i.exec(text.trim()) : null;
  if (!m) return;
  secrets.remember(m[2]!);
  // As a request carries it too: decoded, and in Proxy-Authorization (base64 of user:password).
  let forms: string[] = [];
  try {
    forms = proxyCredentialForms(new URL(`http://${m[1]}:${m[2]}@proxy.invalid`));
  } catch {
    /* not a URL: refused by checkProxyVariable */
  }
  for (const form of forms) secrets.remember(form);
}

/** A proxy variable that cannot be used: exit 2 naming it, before any request. */
function checkProxyVariable(name: string, text: string | undefined): void {
  if (text === undefined || text.trim() === '') return;
  try {
    parseProxyUrl(text);
  } catch (err) {
    if (err instanceof ProxyError) throw new ValidationError(`${name}: ${err.message}`, { hint: err.hint });
    throw err;
  }
}
