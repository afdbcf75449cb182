/**
 * The network settings of the HTTP client from the environment and the
 * profile (docs/networks.md): proxies and trust. The proxy's password (from
 * the variable's user-info) is remembered as a secret, so no diagnostic shows it.
 */
import type { ProfileSettings } from '../../core/config/settings.js';
import { ConfigError } from '../../core/errors.js';
import type { HttpClientOptions } from '../../core/http/types.js';
import { PROXY_VARIABLES, proxySettings } from '../../core/http/proxy.js';
import type { Secrets } from '../terminal/terminal-text.js';

const truthy = (v: string | undefined) => v !== undefined && /^(1|true|yes|on)$/i.test(v.trim());

export async function networkOptions(
  env: NodeJS.ProcessEnv,
  settings: ProfileSettings,
  warnOnce: (key: string, text: string) => void,
  secrets: Secrets,
): Promise<Pick<HttpClientOptions, 'proxy' | 'trust'>> {
  for (const name of [...PROXY_VARIABLES.httpsProxy, ...PROXY_VARIABLES.httpProxy, ...PROXY_VARIABLES.allProxy]) rememberProxyPassword(env[name], secrets);
  const proxy = proxySettings(env, { proxy: settings['network.proxy'], noProxy: settings['network.noProxy'] });
  const out: Pick<HttpClientOptions, 'proxy' | 'trust'> = Object.keys(proxy).length ? { proxy } : {};
  const caFile = env.LANYARD_CA_FILE || settings['network.caFile'];
  const systemCa = env.LANYARD_SYSTEM_CA !== undefined && env.LANYARD_SYSTEM_CA !== '' ? truthy(env.LANYARD_SYSTEM_CA) : truthy(settings['network.systemCa']);
  if (!caFile && !systemCa) return out;
  const extraCa: string[] = [];
  if (caFile) {
    const { readFile } = await import('node:fs/promises');
    const from = env.LANYARD_CA_FILE ? 'LANYARD_CA_FILE' : 'network.caFile';
    let pem: string;
    try {
      pem = await readFile(caFile, 'utf8');
    } catch (err) {
      throw new ConfigError(`${from}: cannot read ${caFile} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new ConfigError(`${from}: ${caFile} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
    extraCa.push(pem);
    // An explicit trust list replaces Node's defaults: NODE_EXTRA_CA_CERTS is kept by adding it too.
    if (env.NODE_EXTRA_CA_CERTS) extraCa.push(await readFile(env.NODE_EXTRA_CA_CERTS, 'utf8').catch(() => ''));
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
  const m = text ? /^[a-z][a-z0-9+.-]*:\/\/[^/@]*:([^/@]+)@/i.exec(text.trim()) : null;
  if (!m) return;
  secrets.remember(m[1]!);
  try {
    secrets.remember(decodeURIComponent(m[1]!));
  } catch {
    /* not percent-encoded */
  }
}
