/**
 * The network settings of the HTTP client from the environment and the
 * profile (docs/networks.md): proxies. The proxy's password (from the
 * variable's user-info) is remembered as a secret, so no diagnostic shows it.
 */
import type { ProfileSettings } from '../core/config/settings.js';
import type { HttpClientOptions } from '../core/http/types.js';
import { PROXY_VARIABLES, proxySettings } from '../core/http/proxy.js';
import { rememberSecret } from './safe-text.js';

export function networkOptions(env: NodeJS.ProcessEnv, settings: ProfileSettings): Pick<HttpClientOptions, 'proxy'> {
  for (const name of [...PROXY_VARIABLES.httpsProxy, ...PROXY_VARIABLES.httpProxy, ...PROXY_VARIABLES.allProxy]) rememberProxyPassword(env[name]);
  const proxy = proxySettings(env, { proxy: settings['network.proxy'], noProxy: settings['network.noProxy'] });
  return Object.keys(proxy).length ? { proxy } : {};
}

function rememberProxyPassword(text: string | undefined): void {
  const m = text ? /^[a-z][a-z0-9+.-]*:\/\/[^/@]*:([^/@]+)@/i.exec(text.trim()) : null;
  if (!m) return;
  rememberSecret(m[1]!);
  try {
    rememberSecret(decodeURIComponent(m[1]!));
  } catch {
    /* not percent-encoded */
  }
}
