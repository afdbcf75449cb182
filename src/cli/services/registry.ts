/**
 * The services, one entry each: where a profile keeps a service's base URL,
 * which credential its own commands use, what `lanyard exec` hands over, how
 * to sign in to it and which credential it refused — in one place instead of
 * a switch in every command. Adding a service adds an entry here (see
 * docs/adding-a-service.md). Each service's code loads only when its entry
 * is used.
 */
import type { Context } from '../context.js';
import { type CredentialProvider, fixedCredential } from '../../core/auth/provider.js';
import { type ProfileSettings, requireSetting } from '../../core/config/settings.js';
import type { ServiceName } from '../../core/errors.js';
import { pathSegment } from '../../core/path-segment.js';
import type { Probe } from '../../core/doctor/checks.js';
import { Echo, Health } from '../../shared/constants.js';
import { mailboxApiUrl } from '../../core/mailbox/target.js';
import { mailboxTarget } from './mailbox.js';
import { UsageError } from '../usage-error.js';

/** How a sign-in is asked for (the fields of the library's `sign-in` remedy). */
export interface SignInAsk {
  again?: boolean;
  flow?: 'web';
  serverUrl?: string;
  scopes?: string;
}

export interface ServiceEntry {
  /** The base URL of the service in a profile (a ConfigError naming the setting when it is missing). */
  base(settings: ProfileSettings, profile: string): string;
  /** The credential the service's own commands would use; `o.login` picks a stored hosting account. */
  provider(ctx: Context, settings: ProfileSettings, profile: string, o: { login?: string }): Promise<CredentialProvider>;
  /** `lanyard exec`: how to get a credential to hand over, and the variables its secret goes under. */
  exec?: {
    signIn: string;
    /** How to get a credential a program can use when the stored one is bound to a key that never leaves Lanyard (DPoP). */
    unbound?: string;
    variables(secret: string, settings: ProfileSettings, profile: string): Record<string, string>;
  };
  /** The advice that gets a credential of this service; undefined when it has none. */
  signIn(ask: SignInAsk): string | undefined;
  /** After a 401 on a request of `lanyard api`: which credential was refused (its source, whose) and what to do. */
  refused(source: string, login?: string): string;
  /**
   * `lanyard doctor`: the endpoint it checks (default: `base`) and the cheap
   * authenticated call that tells whether the service accepts the credential.
   */
  doctor: { url?(settings: ProfileSettings, profile: string): string; probe(url: string, settings: ProfileSettings): Probe };
}

const under = (base: string, path: string) => `${base.replace(/\/+$/, '')}${path}`;

/** `the token from LANYARD_TOKEN was refused: …`: a credential of the environment. */
const fromEnv = (name: string, what: string, fix: string) => `the ${what} from ${name} was refused: set a valid one, or unset it and ${fix}`;

const NONE = (): CredentialProvider => fixedCredential({ scheme: 'none' }, 'anonymous');

const hosting: ServiceEntry = {
  base: (settings, profile) => requireSetting(settings, 'hosting.apiUrl', profile),
  provider: async (ctx, settings, profile, o) => (await import('./hosting.js')).hostingAuth(ctx, { name: profile, settings }, o),
  exec: {
    signIn: 'lanyard auth device (or set LANYARD_TOKEN)',
    variables(secret, settings, profile) {
      const vars: Record<string, string> = {
        LANYARD_TOKEN: secret,
        GH_TOKEN: secret,
        GITHUB_TOKEN: secret,
        LANYARD_API_URL: requireSetting(settings, 'hosting.apiUrl', profile),
      };
      const web = settings['hosting.webUrl'];
      const host = web ? new URL(web).host : undefined;
      if (host && host !== 'github.com') Object.assign(vars, { GH_HOST: host, GH_ENTERPRISE_TOKEN: secret, GITHUB_ENTERPRISE_TOKEN: secret });
      return vars;
    },
  },
  signIn: ({ again, flow }) => {
    if (flow === 'web') return again ? 'run `lanyard auth login` again, or `lanyard auth device`' : 'sign in with `lanyard auth login` (web flow)';
    return again ? 'run `lanyard auth device` again' : 'sign in with `lanyard auth device`';
  },
  refused(source, login) {
    const fix = 'sign in with `lanyard auth device`';
    if (source === 'env:LANYARD_TOKEN') return fromEnv('LANYARD_TOKEN', 'token', fix);
    if (source === 'env:WORKFLOW_TOKEN') return fromEnv('WORKFLOW_TOKEN', 'token', fix);
    if (source === 'basic-client') return "the client id and secret were refused: check the profile's hosting.clientId and LANYARD_CLIENT_SECRET";
    if (source === 'anonymous') return 'authentication needed: no token was sent; sign in with `lanyard auth device` (or set LANYARD_TOKEN)';
    return `the stored token of ${login ?? 'this account'} was refused (revoked or expired): sign in again with \`lanyard auth device\``;
  },
  // GET /rate_limit: every credential may call it, it costs no budget, and its headers carry the budget.
  doctor: { probe: (url) => ({ url: under(url, '/rate_limit') }) },
};

const health: ServiceEntry = {
  base: (settings, profile) => requireSetting(settings, 'health.managementUrl', profile),
  provider: async (ctx, settings) => (await import('./health.js')).healthAuth(ctx, settings),
  exec: {
    signIn: 'lanyard auth login --health (or set LANYARD_HEALTH_TOKEN)',
    variables: (secret) => ({ LANYARD_HEALTH_TOKEN: secret }),
  },
  signIn: ({ again }) => (again ? 'run `lanyard auth login --health` again' : 'run `lanyard auth login --health` (or set LANYARD_HEALTH_TOKEN)'),
  refused(source) {
    const fix = 'sign in with `lanyard auth login --health`';
    if (source === 'environment' || source === 'env:LANYARD_HEALTH_TOKEN') return fromEnv('LANYARD_HEALTH_TOKEN', 'health token', fix);
    return `the stored health token was refused (revoked or expired): ${fix.replace('sign in', 'sign in again')}`;
  },
  // The first page of the default subscription's events.
  doctor: {
    probe: (url, settings) => ({
      url: under(
        url,
        `/subscriptions/${pathSegment(requireSetting(settings, 'health.subscriptionId', 'this'), 'subscription')}/providers/${pathSegment(settings['health.vendor'] || Health.defaultVendor, 'vendor')}.ResourceHealth/events?api-version=${Health.defaultApiVersion}`,
      ),
    }),
  },
};

const echo: ServiceEntry = {
  base: (settings, profile) => requireSetting(settings, 'echo.baseUrl', profile),
  provider: async (ctx, settings, profile) => (await (await import('./echo.js')).echoAuth(ctx, echo.base(settings, profile))) ?? NONE(),
  exec: {
    signIn: 'lanyard echo key set (or set LANYARD_API_KEY)',
    variables: (secret, settings, profile) => ({ LANYARD_API_KEY: secret, LANYARD_ECHO_URL: requireSetting(settings, 'echo.baseUrl', profile) }),
  },
  signIn: () => 'set LANYARD_API_KEY, or store a key with `lanyard echo key set`',
  refused(source) {
    if (source === 'env:LANYARD_API_KEY') return fromEnv('LANYARD_API_KEY', 'API key', 'store one with `lanyard echo key set`');
    if (source === 'anonymous') return 'authentication needed: no API key was sent; set LANYARD_API_KEY or store one with `lanyard echo key set`';
    return 'the stored echo API key was refused: store a valid one with `lanyard echo key set`';
  },
  // The API's one call that takes the key: an echo of a short message.
  doctor: { probe: (url) => ({ method: 'POST', url: under(url, Echo.paths.echo), json: { message: 'lanyard doctor' } }) },
};

const protocol: ServiceEntry = {
  /** Requests of `lanyard api` go to the origin of the server URL. */
  base: (settings, profile) => new URL(requireSetting(settings, 'protocol.serverUrl', profile)).origin,
  async provider(ctx, settings, profile) {
    // The stored tokens, refreshed when they expire and once more after a
    // 401 (as `protocol request` does); no sign-in from here: without
    // tokens the request goes out bare.
    const [{ protocolAuth }, { protocolDeps }] = await Promise.all([import('../../core/protocol/credential.js'), import('./protocol.js')]);
    return protocolAuth(await protocolDeps(ctx), requireSetting(settings, 'protocol.serverUrl', profile));
  },
  exec: {
    signIn: 'lanyard auth login --server URL',
    unbound: 'sign in without DPoP for a bearer token: `LANYARD_DPOP=0 lanyard auth login --server URL` (or `--no-dpop`)',
    variables: (secret, settings, profile) => ({
      LANYARD_PROTOCOL_TOKEN: secret,
      LANYARD_PROTOCOL_URL: requireSetting(settings, 'protocol.serverUrl', profile),
    }),
  },
  signIn: ({ serverUrl, scopes }) => {
    const server = serverUrl ?? '<url>';
    if (scopes) return `run \`lanyard auth login --server ${server} --scopes "${scopes}"\``;
    return `run \`lanyard auth login --server ${server}\` to sign in again`;
  },
  refused(source) {
    const fix = 'sign in with `lanyard auth login --server <url>` (or run `lanyard protocol request`)';
    if (source === 'anonymous') return `authentication needed: no protocol token was sent; ${fix}`;
    return `the stored protocol token was refused after a refresh: ${fix.replace('sign in', 'sign in again')}`;
  },
  // A JSON-RPC ping to the server URL: a token that passes the server's check gets any answer but 401 (without a session, 400).
  doctor: {
    url: (settings, profile) => requireSetting(settings, 'protocol.serverUrl', profile),
    probe: (url) => ({
      method: 'POST',
      url,
      headers: { accept: 'application/json, text/event-stream' },
      json: { jsonrpc: '2.0', id: 1, method: 'ping' },
      accepted: (status) => status < 500 && status !== 403,
    }),
  },
};

const mailbox: ServiceEntry = {
  base: (settings, profile) => mailboxApiUrl(mailboxTarget(settings, profile)),
  // The mailbox API defines no authentication.
  provider: async () => NONE(),
  signIn: () => undefined,
  refused: () => 'the mailbox API refused the request (it defines no authentication of its own)',
  // The message list of the profile's mailbox.
  doctor: { probe: (url) => ({ url }) },
};

/** Every service, by name: the one table the CLI consults about a service. */
export const SERVICES: Readonly<Record<ServiceName, ServiceEntry>> = { hosting, echo, protocol, mailbox, health };

/** The provider a service's own commands would use (its code loaded only then); `o.login` picks a stored hosting account. */
export async function providerFor(
  ctx: Context,
  service: ServiceName,
  settings: ProfileSettings,
  profile: string,
  o: { login?: string } = {},
): Promise<CredentialProvider> {
  if (o.login !== undefined && service !== 'hosting') throw new UsageError(`--user picks a hosting account; this request goes to the ${service} service`);
  return SERVICES[service].provider(ctx, settings, profile, o);
}
