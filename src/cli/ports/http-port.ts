/**
 * The context's HTTP client, built from the profile, the environment and the
 * root options: network settings, rate-limit waiting, the deadline, pacing
 * across processes, and the CI events and warnings it reports.
 */
import { join } from 'node:path';
import type { Clock } from '../../core/deps.js';
import type { HttpClient, HttpClientOptions } from '../../core/http/client.js';
import type { Preconnected } from '../../core/http/transport.js';
import type { CredentialLock } from '../../core/credentials/lock.js';
import type { ProfileSettings } from '../../core/config/settings.js';
import type { RateLimitState } from '../../core/ratelimit/headers.js';
import type { IO } from '../io.js';
import { parseDuration } from '../option-parse.js';
import { ciEvent, eventUrl } from '../ci.js';
import { UsageError } from '../errors/usage-error.js';
import type { Secrets } from '../terminal/terminal-text.js';

/** What the client is built from. */
export interface HttpPortEnv {
  io: IO;
  env: NodeJS.ProcessEnv;
  clock: Clock;
  version: string;
  /** The root options it reads: --wait, --max-wait, --timeout. */
  globals: { wait?: boolean; maxWait?: string; timeout?: string };
  /** The selected profile's settings ({} when it does not exist: the command that needs it reports that). */
  settings: ProfileSettings;
  /** Where pacing.json lives; none: pacing is counted in this process (a context with nothing on disk). */
  configDir: string | undefined;
  lock: CredentialLock;
  /** The --debug trace, when on. */
  trace?: (line: string) => void;
  rateLimits: Map<string, RateLimitState>;
  warn(text: string): void;
  warnOnce(key: string, text: string): void;
  /** Every credential sent, and the proxy's and the pacing store's passwords, are remembered here for redaction. */
  secrets: Secrets;
  /** The run's signal (Ctrl-C, SIGTERM): ends the reads of files the network settings name. */
  signal?: AbortSignal;
  /** The API's connection, when bin/lanyard.js opened it before the CLI loaded (connection-prefetch.ts). */
  preconnected?: Preconnected;
}

export async function buildHttpClient(h: HttpPortEnv): Promise<HttpClient> {
  const [{ HttpClient }, { parsePlainHttpHosts }, { networkOptions }, { defaultRateLimitPolicy, DEFAULT_SERVER_WAIT_MS, waitBoundMs }, { ssoHook }] =
    await Promise.all([
      import('../../core/http/client.js'),
      import('../../core/http/plain-http.js'),
      import('./network.js'),
      import('../../core/ratelimit/policy.js'),
      import('../../core/hosting/sso.js'),
    ]);
  const g = h.globals;
  // An empty --max-wait is an error; an empty variable is as good as unset.
  const maxWaitText = g.maxWait ?? (h.env.LANYARD_RATE_LIMIT_MAX_WAIT || undefined);
  const maxWaitMs = maxWaitText !== undefined ? parseDuration(maxWaitText, '--max-wait') : undefined;
  const hostingApi = h.settings['hosting.apiUrl'];
  const deadline = requestDeadlineMs(g.timeout ?? (h.env.LANYARD_TIMEOUT || undefined));
  // --max-wait bounds every wait: with --wait (default 1 h), and without it the waits a server asks for and pacing's (default 1 min).
  const rateLimitPolicy = {
    ...defaultRateLimitPolicy,
    wait: !!g.wait || h.env.LANYARD_RATE_LIMIT_WAIT === '1',
    maxWaitMs: maxWaitMs ?? defaultRateLimitPolicy.maxWaitMs,
    serverWaitMs: maxWaitMs ?? DEFAULT_SERVER_WAIT_MS,
  };
  return new HttpClient({
    clock: h.clock,
    userAgent: `lanyard/${h.version}`,
    plainHttpHosts: parsePlainHttpHosts(h.env.LANYARD_ALLOW_PLAIN_HTTP),
    ...(await networkOptions(h.env, h.settings, h.warnOnce, h.secrets, h.signal)),
    // A download's (requestStream) bounds its head and its body's silence, not the body's length.
    ...(deadline === undefined ? {} : { timeouts: { totalMs: deadline } }),
    trace: h.trace,
    ...(h.preconnected ? { preconnected: h.preconnected } : {}),
    onCredential: (forms) => {
      for (const form of forms) h.secrets.remember(form);
    },
    // The code host's secondary limits are enforced on its API only (the profile's; the public one without).
    ...(hostingApi ? { hostingApis: [hostingApi] } : {}),
    rateLimitPolicy,
    onRateLimit: (state) => h.rateLimits.set(state.resource ?? 'core', state),
    // The code host's single sign-on header (its 403 refusal, its partial listings).
    responseHooks: [
      ssoHook((organizations, url) =>
        h.warn(
          `results are partial: single sign-on left out the organisation${organizations.length > 1 ? 's' : ''} ${organizations.join(', ')} (${url}); authorise the token for ${organizations.length > 1 ? 'them' : 'it'} to see everything`,
        ),
      ),
    ],
    ...(await pacingOptions(h, rateLimitPolicy.wait, waitBoundMs(rateLimitPolicy))),
  });
}

/** Waits and retries said as CI events (or warnings), and content-creating requests paced across every process of this config directory. */
async function pacingOptions(
  h: HttpPortEnv,
  wait: boolean,
  boundMs: number,
): Promise<Pick<HttpClientOptions, 'onRateLimitWait' | 'pacing' | 'onPacingWait' | 'onRetry' | 'contentCreatingWindows' | 'pacingMarginMs'>> {
  const [{ FilePacing, MemoryPacing, CONTENT_CREATING_WINDOWS }, { cliPacing, describeWindows, pacingMargin, pacingWindows }] = await Promise.all([
    import('../../core/http/pacing.js'),
    import('../pacing.js'),
  ]);
  const windows = pacingWindows(h.env, h.settings);
  const pacingMarginMs = pacingMargin(h.env, h.settings);
  const limits = describeWindows(windows ?? CONTENT_CREATING_WINDOWS);
  const event = (name: string, fields: Record<string, unknown>) => ciEvent(h.io, h.env, h.clock.now(), name, fields);
  return {
    onRateLimitWait: ({ kind, status, waitMs, resetAt, url, boundMs }) => {
      const fields = { kind, status, wait_ms: Math.round(waitMs), bound_ms: boundMs, reset_at: new Date(resetAt).toISOString(), url: eventUrl(url) };
      if (!event('rate_limit_wait', fields))
        h.warn(rateLimitWaitLine(kind, status, waitMs, url, h.globals.wait || h.env.LANYARD_RATE_LIMIT_WAIT === '1', boundMs));
    },
    // 80 a minute, 500 an hour per API origin (LANYARD_PACING_LIMITS, pacing.limits), each counted a margin longer (LANYARD_PACING_MARGIN, pacing.margin).
    ...(windows ? { contentCreatingWindows: windows } : {}),
    ...(pacingMarginMs === undefined ? {} : { pacingMarginMs }),
    pacing: await cliPacing({
      env: h.env,
      settings: h.settings,
      clock: h.clock,
      local:
        h.configDir === undefined
          ? new MemoryPacing()
          : new FilePacing(join(h.configDir, 'pacing.json'), h.lock, { onFallback: (why) => h.warnOnce('pacing', why) }),
      warnOnce: h.warnOnce,
      secrets: h.secrets,
      trace: h.trace,
    }),
    // Within the bound (--max-wait): said, and Ctrl-C ends it; past it the client fails at once (exit 3).
    onPacingWait: ({ waitMs, url }) => {
      if (!event('pacing_wait', { wait_ms: Math.round(waitMs), bound_ms: boundMs, url: eventUrl(url) }) && waitMs >= 1000)
        h.warn(
          `pacing content-creating requests to ${new URL(url).origin} (${limits}, counted across Lanyard processes): waiting ${Math.ceil(waitMs / 1000)} s (${waitWhy(wait, boundMs)})`,
        );
    },
    onRetry: ({ reason, attempt, waitMs, url }) => event('retry', { reason, attempt, wait_ms: Math.round(waitMs), url: eventUrl(url) }),
  };
}

/**
 * The line that announces a rate-limit wait: what refused, how long, and why
 * it waits — `--wait`, or the server asked for no longer than the bound.
 */
export function rateLimitWaitLine(kind: string, status: number | undefined, waitMs: number, url: string, wait: boolean | undefined, boundMs?: number): string {
  const what = kind === 'server' ? `${new URL(url).origin} answered HTTP ${status ?? 429} with Retry-After` : `${kind} rate limit reached`;
  return `${what}; waiting ${Math.ceil(waitMs / 1000)} s (${wait ? '--wait' : `as the server asks; ${waitWhy(false, boundMs)}`})`;
}

/** Why a wait is waited: `--wait`, or within the bound without it. */
function waitWhy(wait: boolean | undefined, boundMs = 60_000): string {
  return wait ? '--wait' : `at most ${Math.ceil(boundMs / 1000)} s without --wait, Ctrl-C to stop`;
}

/** The longest deadline a timer holds (about 24 days); beyond it Node would fire at once. */
const MAX_DEADLINE_MS = 2 ** 31 - 1;

/** `--timeout` / LANYARD_TIMEOUT in ms (0: none), or undefined for the client's defaults. */
export function requestDeadlineMs(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseDuration(text, '--timeout');
  if (ms > MAX_DEADLINE_MS) throw new UsageError(`--timeout: at most 24d, got "${text}" (0 for no deadline)`);
  return ms;
}
