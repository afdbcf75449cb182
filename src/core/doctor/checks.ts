/**
 * What `lanyard doctor` checks, as a library function returning structured
 * results: for each service of a profile, its endpoint (DNS, then TCP and TLS
 * through the proxy when one applies), the credential a command would use and
 * where it comes from, whether the service accepts it (one cheap
 * authenticated call) and when it expires, the clock skew against the
 * server's `Date`, and the rate-limit budget the answer carries; and the
 * credential store (keychain, or the 0600 file and why). No advice here: each
 * problem has a `code` (and, where one exists, a `remedy`) that the caller
 * turns into its own fix line. Every check of a service runs under a time
 * limit, so a dead endpoint cannot hang the report.
 */
import type { Clock } from '../deps.js';
import { CancelledError, LanyardError, type Remedy, type ServiceName } from '../errors.js';
import { proxyDisplay, proxyFor, type ProxySettings } from '../http/proxy.js';
import type { CredentialProvider, HttpResponse, RequestSpec } from '../http/types.js';
import { parseServerDate } from '../ratelimit/headers.js';
import { tokenClaims } from '../auth/token-claims.js';

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

/** What a check found wrong, for the caller's fix line. A closed set (documented in docs/doctor.md). */
export type ProblemCode =
  | 'not-configured'
  | 'bad-url'
  | 'dns'
  | 'connect'
  | 'tls'
  | 'proxy'
  | 'timeout'
  | 'network'
  | 'no-credential'
  | 'credential-unavailable'
  | 'refused'
  | 'forbidden'
  | 'server-error'
  | 'expired'
  | 'expires-soon'
  | 'clock-skew'
  | 'rate-limited'
  | 'rate-limit-low'
  | 'keychain-fallback'
  | 'keychain-required';

export interface Check {
  /** `endpoint`, `credential`, `accepted`, `expiry`, `clock`, `rate-limit` (per service), `keychain` (the store). */
  name: 'endpoint' | 'credential' | 'accepted' | 'expiry' | 'clock' | 'rate-limit' | 'keychain';
  status: CheckStatus;
  /** What was found, one line, never a secret. */
  summary: string;
  problem?: ProblemCode;
  /** What to do, where the library has a remedy (the caller turns it into advice). */
  remedy?: Remedy;
}

/** Where the credential a command would use comes from. */
export interface CredentialOrigin {
  /** `environment`, `keychain`, `file`, `memory`, `none` (anonymous), or `client` (Basic client credentials). */
  from: string;
  /** The provider's own source (`env:LANYARD_TOKEN`, `keychain`, `store`, `anonymous`, …). */
  source: string;
  /** The environment variable, when it comes from one. */
  variable?: string;
}

export interface RateLimitBudget {
  resource: string;
  limit: number;
  remaining: number;
  /** ISO time the budget resets (server clock). */
  resetAt?: string;
}

export interface ServiceReport {
  service: ServiceName;
  /** The endpoint checked (the service's base URL), without credentials. */
  url?: string;
  /** `fail` when any check failed, else `warn` when any warned, else `ok` (`skip`: not configured). */
  status: CheckStatus;
  /** The proxy the requests go through, without its password; absent for a direct connection. */
  proxy?: string;
  /** The addresses the host resolved to (direct connections only). */
  addresses?: string[];
  credential?: CredentialOrigin;
  /** When the credential expires (ISO), when known. */
  expiresAt?: string;
  /** Server clock minus this machine's (ms), from the answer's Date header. */
  skewMs?: number;
  rateLimit?: RateLimitBudget;
  checks: Check[];
}

/** The cheap authenticated call of a service. */
export interface Probe {
  method?: string;
  url: string;
  json?: unknown;
  headers?: Readonly<Record<string, string>>;
  /** Statuses that mean the credential passed (default: 2xx). 401 always means refused. */
  accepted?: (status: number) => boolean;
}

export interface DoctorTarget {
  service: ServiceName;
  /** The service's base URL; a function that throws (a missing setting) marks it not configured. */
  url: () => string;
  probe: (base: string) => Probe;
  /** The credential a command would use (throws a LanyardError when it cannot be had); absent: the service has none. */
  credential?: () => Promise<CredentialProvider>;
  /** Whether a missing credential is a problem (false for a service without authentication). */
  needsCredential?: boolean;
}

export interface DoctorDeps {
  http: { request(spec: RequestSpec): Promise<HttpResponse> };
  clock: Clock;
  /** Proxies as the HTTP client has them (to say which one applies). */
  proxy?: ProxySettings;
  /** Host name resolution (default node:dns lookup); a seam for tests. */
  lookup?: (host: string) => Promise<string[]>;
  /** Time limit of each check (ms; default 10 s). */
  limitMs?: number;
  signal?: AbortSignal;
  /** The kind of the credential store in use (`keychain`, `file`), for stored credentials. */
  storeKind?: string;
}

export const DEFAULT_LIMIT_MS = 10_000;
/** A clock this far off the server's is a warning; this far, a failure (token validity, TLS, signed requests). */
export const SKEW_WARN_MS = 30_000;
export const SKEW_FAIL_MS = 5 * 60_000;
/** A credential expiring within this is a warning (a command started now may outlive it). */
export const EXPIRY_WARN_MS = 10 * 60_000;

class LimitReached extends Error {}

/** Runs `f` with an abort signal of its own, for at most `ms` on `clock` (LimitReached after). */
export async function withinLimit<T>(clock: Clock, ms: number, outer: AbortSignal | undefined, f: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ac = new AbortController();
  const timer = new AbortController();
  const onOuter = () => ac.abort();
  outer?.addEventListener('abort', onOuter, { once: true });
  const limit = clock.sleep(ms, timer.signal).then(
    () => {
      ac.abort();
      throw new LimitReached();
    },
    () => new Promise<never>(() => {}),
  );
  try {
    return await Promise.race([f(ac.signal), limit]);
  } catch (err) {
    if (outer?.aborted) throw new CancelledError();
    if (ac.signal.aborted && !(err instanceof LimitReached)) throw new LimitReached();
    throw err;
  } finally {
    timer.abort();
    outer?.removeEventListener('abort', onOuter);
  }
}

/** Where a provider's credential comes from, in words a report shows. */
export function credentialOrigin(source: string, storeKind = 'store'): CredentialOrigin {
  if (source.startsWith('env:')) return { from: 'environment', source, variable: source.slice(4) };
  if (source === 'environment') return { from: 'environment', source };
  if (source === 'anonymous') return { from: 'none', source };
  if (source === 'basic-client') return { from: 'client', source };
  if (source === 'store') return { from: storeKind, source };
  return { from: source, source };
}

const worst = (checks: readonly Check[]): CheckStatus =>
  checks.some((c) => c.status === 'fail') ? 'fail' : checks.some((c) => c.status === 'warn') ? 'warn' : 'ok';

const errno = (err: unknown): string | undefined => {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
  }
  return undefined;
};

/** A failed request as the endpoint check's result: which step failed. */
function endpointFailure(err: unknown, host: string, limitMs: number): Check {
  const fail = (problem: ProblemCode, summary: string, remedy?: Remedy): Check => ({
    name: 'endpoint',
    status: 'fail',
    summary,
    problem,
    ...(remedy ? { remedy } : {}),
  });
  if (err instanceof LimitReached) return fail('timeout', `no answer from ${host} within ${Math.ceil(limitMs / 1000)} s`);
  const code = err instanceof LanyardError ? err.code : undefined;
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'tls_error') return fail('tls', message, (err as LanyardError).remedy);
  if (code === 'proxy_error') return fail('proxy', message);
  if (code === 'timeout') return fail('timeout', message);
  if (code === 'insecure_transport') return fail('bad-url', message, (err as LanyardError).remedy);
  const e = errno(err);
  if (e === 'ENOTFOUND' || e === 'EAI_AGAIN' || e === 'EAI_NONAME') return fail('dns', `DNS: ${host} not found (${e})`);
  if (e === 'ECONNREFUSED' || e === 'EHOSTUNREACH' || e === 'ENETUNREACH' || e === 'ETIMEDOUT' || e === 'ECONNRESET')
    return fail('connect', `TCP: cannot connect to ${host} (${e})`);
  return fail('network', message);
}

/** The credential's expiry: the provider's, else a JWT's `exp` claim. */
async function expiryOf(provider: CredentialProvider, sent: { scheme: string; token?: string }): Promise<number | undefined> {
  const own = provider.expiresAt?.();
  if (own !== undefined) return own;
  if (sent.scheme !== 'bearer' || !sent.token) return undefined;
  const exp = tokenClaims(sent.token)?.exp;
  return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
}

/** The checks of one service, in turn; each under the time limit. */
export async function diagnoseService(t: DoctorTarget, deps: DoctorDeps): Promise<ServiceReport> {
  const d = new Diagnosis(t, deps);
  const target = d.target();
  if (!target) return d.end('skip');
  // DNS (direct connections: through a proxy, the proxy resolves the name).
  if (!d.report.proxy && !(await d.resolve(target.url))) return d.end('fail');
  const provider = await d.credential();
  const sent = provider ? await provider.credential() : { scheme: 'none' as const };
  if (provider) d.origin(provider, sent);
  const answer = await d.call(target.probe, provider);
  if (!answer) return d.report;
  if (answer.res.status >= 500) d.serverError(answer.res.status);
  else if (provider && sent.scheme !== 'none') {
    d.acceptance(answer.res.status, target.probe);
    await d.expiry(provider, sent as { scheme: string; token?: string });
  }
  d.clock(answer);
  d.rateLimit(answer.res);
  return d.end(worst(d.checks));
}

/** The probe's answer, and when it was sent and came (the clock check's bounds). */
interface Answer {
  res: HttpResponse;
  sentAt: number;
  answeredAt: number;
}

/** One service's checks under way: the report they fill, in the order `diagnoseService` runs them. */
class Diagnosis {
  readonly checks: Check[] = [];
  readonly report: ServiceReport;
  readonly #limitMs: number;
  #host = '';

  constructor(
    private readonly t: DoctorTarget,
    private readonly deps: DoctorDeps,
  ) {
    this.report = { service: t.service, status: 'ok', checks: this.checks };
    this.#limitMs = deps.limitMs ?? DEFAULT_LIMIT_MS;
  }

  end(status: CheckStatus): ServiceReport {
    this.report.status = status;
    return this.report;
  }

  #within<T>(f: (signal: AbortSignal) => Promise<T>): Promise<T> {
    return withinLimit(this.deps.clock, this.#limitMs, this.deps.signal, f);
  }

  /** The endpoint and its probe, and the proxy that applies; undefined (and a `skip` check) when the service is not configured. */
  target(): { url: URL; probe: Probe } | undefined {
    let url: URL;
    let probe: Probe;
    try {
      const base = this.t.url();
      url = new URL(base);
      probe = this.t.probe(base);
    } catch (err) {
      this.checks.push({ name: 'endpoint', status: 'skip', summary: `not configured: ${(err as Error).message}`, problem: 'not-configured' });
      return undefined;
    }
    this.report.url = `${url.origin}${url.pathname}`;
    this.#host = url.host;
    const proxy = this.deps.proxy ? proxyFor(url, this.deps.proxy) : undefined;
    if (proxy) this.report.proxy = proxyDisplay(proxy);
    return { url, probe };
  }

  /** The addresses of a direct connection's host; false (and the endpoint's failure) when they cannot be had. */
  async resolve(url: URL): Promise<boolean> {
    const lookup = this.deps.lookup ?? defaultLookup;
    try {
      this.report.addresses = await this.#within(() => lookup(url.hostname.replace(/^\[|\]$/g, '')));
      return true;
    } catch (err) {
      if (err instanceof CancelledError) throw err;
      this.checks.push(endpointFailure(err, this.#host, this.#limitMs));
      return false;
    }
  }

  /** The credential a command would use; undefined (and a check saying why) when it cannot be had. */
  async credential(): Promise<CredentialProvider | undefined> {
    if (!this.t.credential) return undefined;
    try {
      return await this.#within(() => this.t.credential!());
    } catch (err) {
      if (err instanceof CancelledError) throw err;
      const le = err instanceof LanyardError ? err : undefined;
      const missing = le?.code === 'auth_required' || le?.code === 'not_signed_in';
      this.checks.push({
        name: 'credential',
        status: missing ? 'warn' : 'fail',
        summary:
          err instanceof LimitReached
            ? `the credential store did not answer within ${Math.ceil(this.#limitMs / 1000)} s`
            : err instanceof Error
              ? err.message
              : String(err),
        problem: missing ? 'no-credential' : 'credential-unavailable',
        ...(le?.remedy ? { remedy: le.remedy } : {}),
      });
      return undefined;
    }
  }

  /** Where the credential comes from, and whether there is one where one is needed. */
  origin(provider: CredentialProvider, sent: { scheme: string }): void {
    const { report, t } = this;
    report.credential = credentialOrigin(provider.source, this.deps.storeKind);
    const none = sent.scheme === 'none';
    if (none && t.needsCredential === false) report.credential = { from: 'none', source: provider.source };
    this.checks.push(
      !none
        ? { name: 'credential', status: 'ok', summary: `from ${describeOrigin(report.credential)}` }
        : t.needsCredential === false
          ? { name: 'credential', status: 'ok', summary: 'none needed (the service defines no authentication)' }
          : { name: 'credential', status: 'warn', summary: 'none: requests go out anonymous', problem: 'no-credential' },
    );
  }

  /** One cheap authenticated call: the endpoint's check (TCP, TLS, proxy); undefined when it failed (the report is then done). */
  async call(probe: Probe, provider: CredentialProvider | undefined): Promise<Answer | undefined> {
    const { deps, checks } = this;
    const limitMs = this.#limitMs;
    try {
      const answer = await this.#within((signal) => sendProbe(deps, probe, provider, limitMs, signal));
      checks.unshift({ name: 'endpoint', status: 'ok', summary: endpointSummary(this.#host, this.report) });
      return answer;
    } catch (err) {
      if (err instanceof CancelledError) throw err;
      if ((err as LanyardError)?.code === 'rate_limited') {
        checks.push({ name: 'endpoint', status: 'ok', summary: endpointSummary(this.#host, this.report) });
        checks.push({ name: 'rate-limit', status: 'fail', summary: (err as Error).message, problem: 'rate-limited' });
        this.end(worst(checks));
        return undefined;
      }
      checks.unshift(endpointFailure(err, this.#host, this.#limitMs));
      this.end('fail');
      return undefined;
    }
  }

  serverError(status: number): void {
    this.checks.push({ name: 'accepted', status: 'fail', summary: `the service answered HTTP ${status}`, problem: 'server-error' });
  }

  /** Whether the service took the credential, by the probe's status. */
  acceptance(status: number, probe: Probe): void {
    const accepted = probe.accepted ?? ((s: number) => s >= 200 && s < 300);
    if (status === 401)
      this.checks.push({
        name: 'accepted',
        status: 'fail',
        summary: `the service refused the credential from ${describeOrigin(this.report.credential!)} (HTTP 401)`,
        problem: 'refused',
      });
    else if (status === 403)
      this.checks.push({
        name: 'accepted',
        status: 'fail',
        summary: 'the service accepted the credential but refused the call (HTTP 403)',
        problem: 'forbidden',
      });
    else if (accepted(status)) this.checks.push({ name: 'accepted', status: 'ok', summary: `accepted (HTTP ${status})` });
    else this.serverError(status);
  }

  /** When the credential expires, when that can be known. */
  async expiry(provider: CredentialProvider, sent: { scheme: string; token?: string }): Promise<void> {
    const exp = await expiryOf(provider, sent);
    if (exp === undefined) return;
    const at = new Date(exp).toISOString();
    this.report.expiresAt = at;
    const left = exp - this.deps.clock.now();
    // A provider that refreshes renews the credential when due (its acceptance was checked above).
    if (provider.refresh) this.checks.push({ name: 'expiry', status: 'ok', summary: `expires at ${at}; renewed when due` });
    else if (left <= 0) this.checks.push({ name: 'expiry', status: 'fail', summary: `expired at ${at}`, problem: 'expired' });
    else if (left < EXPIRY_WARN_MS)
      this.checks.push({ name: 'expiry', status: 'warn', summary: `expires at ${at} (in ${Math.round(left / 60_000)} min)`, problem: 'expires-soon' });
    else this.checks.push({ name: 'expiry', status: 'ok', summary: `expires at ${at}` });
  }

  /** The skew of this clock against the answer's Date header. */
  clock({ res, sentAt, answeredAt }: Answer): void {
    const serverNow = parseServerDate(res.headers.date);
    if (serverNow === undefined) return;
    // The Date header is whole seconds, stamped between sending and the answer.
    const skew = serverNow - (sentAt + answeredAt) / 2;
    const slack = (answeredAt - sentAt) / 2 + 1000;
    const off = Math.max(0, Math.abs(skew) - slack);
    this.report.skewMs = Math.round(skew);
    const said = `${skew > 0 ? 'behind' : 'ahead of'} the server by ${formatSkew(Math.abs(skew))}`;
    if (off >= SKEW_FAIL_MS) this.checks.push({ name: 'clock', status: 'fail', summary: `this clock is ${said}`, problem: 'clock-skew' });
    else if (off >= SKEW_WARN_MS) this.checks.push({ name: 'clock', status: 'warn', summary: `this clock is ${said}`, problem: 'clock-skew' });
    else this.checks.push({ name: 'clock', status: 'ok', summary: `within ${formatSkew(Math.max(slack, Math.abs(skew)))} of the server` });
  }

  /** The rate-limit budget the answer carries. */
  rateLimit(res: HttpResponse): void {
    const rl = res.rateLimit;
    if (!rl || rl.limit === undefined || rl.remaining === undefined) return;
    const b: RateLimitBudget = {
      resource: rl.resource ?? 'core',
      limit: rl.limit,
      remaining: rl.remaining,
      ...(rl.reset !== undefined ? { resetAt: new Date(rl.reset * 1000).toISOString() } : {}),
    };
    this.report.rateLimit = b;
    const summary = `${b.remaining} of ${b.limit} requests left (${b.resource})${b.resetAt ? `; resets at ${b.resetAt}` : ''}`;
    if (b.remaining === 0) this.checks.push({ name: 'rate-limit', status: 'fail', summary, problem: 'rate-limited' });
    else if (b.remaining < b.limit / 10) this.checks.push({ name: 'rate-limit', status: 'warn', summary, problem: 'rate-limit-low' });
    else this.checks.push({ name: 'rate-limit', status: 'ok', summary });
  }
}

/** The probe sent once (no retry, no redirect), its body read, every status taken. */
async function sendProbe(deps: DoctorDeps, probe: Probe, provider: CredentialProvider | undefined, limitMs: number, signal: AbortSignal): Promise<Answer> {
  const sentAt = deps.clock.now();
  const res = await deps.http.request({
    method: probe.method ?? 'GET',
    url: probe.url,
    ...(probe.json !== undefined ? { json: probe.json } : {}),
    ...(probe.headers ? { headers: probe.headers } : {}),
    ...(provider ? { auth: provider } : {}),
    signal,
    okStatus: () => true,
    redirect: 'manual',
    retry: false,
    timeouts: { connectMs: limitMs, headersMs: limitMs, bodyMs: limitMs, totalMs: limitMs },
  });
  const answeredAt = deps.clock.now();
  await res.dump();
  return { res, sentAt, answeredAt };
}

function endpointSummary(host: string, r: ServiceReport): string {
  if (r.proxy) return `${host} reached through the proxy ${r.proxy}`;
  return `${host} reached${r.addresses?.length ? ` (${r.addresses.join(', ')})` : ''}`;
}

function describeOrigin(o: CredentialOrigin): string {
  if (o.from === 'environment') return o.variable ? `the environment (${o.variable})` : 'the environment';
  if (o.from === 'none') return 'none (anonymous)';
  if (o.from === 'client') return 'the client id and secret (Basic)';
  if (o.from === 'keychain') return 'the OS keychain';
  if (o.from === 'file') return 'the credentials file (0600)';
  return o.from;
}

function formatSkew(ms: number): string {
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 2 * 3600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3600_000).toFixed(1)} h`;
}

async function defaultLookup(host: string): Promise<string[]> {
  const { lookup } = await import('node:dns/promises');
  return (await lookup(host, { all: true })).map((a) => a.address);
}

/** The credential store as opened: the keychain, or the 0600 file and why. */
export function keychainCheck(o: { kind: string; fallbackReason?: string; path?: string; chosen?: boolean }): Check {
  if (o.kind === 'keychain') return { name: 'keychain', status: 'ok', summary: 'the OS keychain (Secret Service) is reachable and unlocked' };
  const where = o.path ? ` (${o.path}, mode 0600)` : ' (mode 0600)';
  if (o.chosen) return { name: 'keychain', status: 'ok', summary: `credentials are kept in a plain file${where}, as chosen` };
  return {
    name: 'keychain',
    status: 'warn',
    summary: `${o.fallbackReason ?? 'the keychain cannot be used'}; credentials fall back to a plain file${where}`,
    problem: 'keychain-fallback',
  };
}

/** A required keychain that cannot be used. */
export function keychainRequiredCheck(err: LanyardError): Check {
  return { name: 'keychain', status: 'fail', summary: err.message, problem: 'keychain-required', remedy: err.remedy ?? { kind: 'keychain-required' } };
}

export interface DoctorReport {
  ok: boolean;
  keychain: Check;
  services: ServiceReport[];
}

/** Every target in turn (one at a time: a report in order, and no burst of requests). */
export async function diagnose(targets: readonly DoctorTarget[], keychain: Check, deps: DoctorDeps): Promise<DoctorReport> {
  const services: ServiceReport[] = [];
  for (const t of targets) services.push(await diagnoseService(t, deps));
  const ok = keychain.status !== 'fail' && services.every((s) => s.status !== 'fail');
  return { ok, keychain, services };
}
