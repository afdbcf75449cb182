/**
 * Profile settings: the endpoints of every service. Secrets never live here.
 * Keys are dotted (`hosting.apiUrl`); this table is the single list of them.
 */
import { ConfigError } from '../errors.js';
import { isSecretField } from '../http/redact.js';
import { describePacingUrl, parsePacingUrl } from '../http/redis-pacing.js';
import { formatPacingLimits, parsePacingLimits, parsePacingMargin } from '../ratelimit/pacing-limits.js';

export type SettingKind = 'url' | 'redis-url' | 'string' | 'boolean' | 'duration' | 'pacing-limits';

export interface SettingSpec {
  kind: SettingKind;
  description: string;
}

export const SETTINGS = {
  'hosting.webUrl': { kind: 'url', description: 'Browser-facing and OAuth host of the code host' },
  'hosting.apiUrl': { kind: 'url', description: 'REST API root of the code host' },
  'hosting.clientId': { kind: 'string', description: 'OAuth app client id used by `auth login`/`auth device`' },
  'echo.baseUrl': { kind: 'url', description: 'Echo API base URL' },
  'echo.audience': { kind: 'string', description: 'Default audience of minted JWTs' },
  'echo.idpUrl': { kind: 'url', description: 'Identity provider (id-token scheme) base URL' },
  'echo.idpClientId': { kind: 'string', description: 'OAuth client id at the identity provider' },
  'echo.appPlatformUrl': { kind: 'url', description: 'App platform sign-in base URL' },
  'echo.appPlatformProject': { kind: 'string', description: 'Default project of the app-platform scheme (--project)' },
  'mailbox.baseUrl': { kind: 'url', description: 'Mailbox service host and port' },
  'mailbox.domain': { kind: 'string', description: 'Mailbox domain' },
  'mailbox.user': { kind: 'string', description: 'Mailbox user' },
  'health.managementUrl': { kind: 'url', description: 'Cloud management host' },
  'health.authUrl': { kind: 'url', description: 'Cloud sign-in host' },
  'health.clientId': { kind: 'string', description: 'OAuth client id for the implicit flow' },
  'health.subscriptionId': { kind: 'string', description: 'Default subscription' },
  'health.vendor': { kind: 'string', description: 'Vendor segment of the provider path (default Microsoft)' },
  'protocol.serverUrl': { kind: 'url', description: 'Default context-protocol server URL' },
  'pacing.url': {
    kind: 'redis-url',
    description: 'Redis or Valkey server shared by a fleet for pacing and rate-limit state (redis://host:port; password in LANYARD_PACING_PASSWORD)',
  },
  'pacing.required': {
    kind: 'boolean',
    description: 'true: fail (exit 1) before sending when the shared pacing server cannot be used, instead of pacing on this machine',
  },
  'pacing.limits': {
    kind: 'pacing-limits',
    description: "The code host's content-creating limits when not 80/1m,500/1h (COUNT/DURATION,…; LANYARD_PACING_LIMITS wins)",
  },
  'pacing.margin': {
    kind: 'duration',
    description: "How much longer than the limits' windows requests are counted, for latency and clock skew (default 1s; LANYARD_PACING_MARGIN wins)",
  },
  'network.proxy': {
    kind: 'url',
    description: 'Proxy of every request (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY win; its user:password only in those variables)',
  },
  'network.noProxy': { kind: 'string', description: 'Hosts, .domains, IPs, CIDR ranges (with :port) that bypass the proxy (NO_PROXY wins)' },
  'network.caFile': { kind: 'string', description: 'PEM bundle of CAs added to the default trust (LANYARD_CA_FILE wins)' },
  'network.systemCa': { kind: 'boolean', description: 'Also trust the OS trust store, where this Node can read it (LANYARD_SYSTEM_CA turns it on too)' },
  keychain: { kind: 'string', description: '"required": credentials only in the OS keychain, never the 0600 file (LANYARD_KEYCHAIN wins)' },
  pager: { kind: 'string', description: 'Pager of long output on a terminal (after LANYARD_PAGER, before PAGER; "cat": none)' },
} as const satisfies Record<string, SettingSpec>;

export type SettingKey = keyof typeof SETTINGS;
export type ProfileSettings = Partial<Record<SettingKey, string>>;

export function isSettingKey(key: string): key is SettingKey {
  return Object.hasOwn(SETTINGS, key);
}

/** Validates and normalises a value for `config set`. */
export function normaliseSetting(key: string, value: string): string {
  if (!isSettingKey(key)) {
    throw new ConfigError(`unknown setting "${key}"`, { hint: `known settings: ${Object.keys(SETTINGS).join(', ')}` });
  }
  const spec: SettingSpec = SETTINGS[key];
  if (spec.kind === 'url') {
    let u: URL;
    try {
      u = new URL(value);
    } catch {
      throw new ConfigError(`${key} must be an absolute http(s) URL, got "${value}"`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ConfigError(`${key} must be an http(s) URL`);
    // A DNS name (RFC 1035 §2.3.4): labels of at most 63 octets, 253 in all; no resolver would find a longer one.
    if (!u.hostname.startsWith('[') && (u.hostname.length > 253 || u.hostname.split('.').some((l) => l.length > 63)))
      throw new ConfigError(`${key}: "${u.hostname.slice(0, 40)}…" is not a valid host name (labels of at most 63 characters, 253 in all)`);
    // The config file is not a place for secrets: no user:password@, no ?token=.
    if (u.username || u.password) {
      throw new ConfigError(
        `${key}: the URL holds a user name or password, and the config file never holds a secret`,
        // A proxy's password has its own place (the sign-in commands' hint would not apply).
        key === 'network.proxy'
          ? { hint: 'set the proxy here without "user:password@", and the URL with its password in HTTPS_PROXY / HTTP_PROXY (percent-encoded)' }
          : { remedy: { kind: 'secret-in-config', in: 'url' } },
      );
    }
    const secretParam = [...u.searchParams.keys()].find((k) => isSecretField(k));
    if (secretParam) throw new ConfigError(`${key}: the URL holds a secret parameter "${secretParam}", and the config file never holds a secret`);
    return value.replace(/\/+$/, '');
  }
  if (spec.kind === 'redis-url') {
    const u = parsePacingUrl(value);
    if (u.username || u.password) {
      throw new ConfigError(`${key}: the URL holds a user name or password, and the config file never holds a secret`, {
        hint: 'give the URL without "user:password@" and the password in LANYARD_PACING_PASSWORD (or the whole URL in LANYARD_PACING_URL)',
      });
    }
    return describePacingUrl(u);
  }
  if (spec.kind === 'pacing-limits') return formatPacingLimits(parsePacingLimits(value, key));
  if (spec.kind === 'duration') {
    parsePacingMargin(value, key);
    return value.trim();
  }
  if (spec.kind === 'boolean') {
    if (/^(true|yes|1|on)$/i.test(value.trim())) return 'true';
    if (/^(false|no|0|off)$/i.test(value.trim())) return 'false';
    throw new ConfigError(`${key} must be true or false, got "${value}"`);
  }
  const v = value.trim();
  if (!v) throw new ConfigError(`${key} must not be empty`);
  if (/[\u0000-\u001f\u007f]/.test(v)) throw new ConfigError(`${key} must not contain control characters`);
  if (looksLikeSecret(v)) {
    throw new ConfigError(`${key}: the value looks like a token or key, and the config file never holds a secret`, {
      remedy: { kind: 'secret-in-config', in: 'value' },
    });
  }
  return v;
}

/**
 * Values shaped like a credential: the code host's token prefixes, a JWT, a
 * PEM private key, an `Authorization` header value.
 */
export function looksLikeSecret(v: string): boolean {
  return (
    /^(gh[opusr]_|github_pat_|ly[opusrw]_)[A-Za-z0-9_-]{16,}$/.test(v) ||
    /^eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*$/.test(v) ||
    /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(v) ||
    /^(bearer|basic|token)\s+\S{8,}$/i.test(v)
  );
}

/** The value of a setting, or a ConfigError naming the `config set` to run (exit 2). */
export function requireSetting(settings: ProfileSettings, key: SettingKey, profileName: string): string {
  const v = settings[key];
  if (v) return v;
  const example = SETTINGS[key].kind === 'url' || SETTINGS[key].kind === 'redis-url' ? '<url>' : '<value>';
  throw new ConfigError(`profile "${profileName}" has no ${key}`, {
    remedy: { kind: 'set-setting', setting: key, example, profile: profileName },
  });
}
