/** One service's checks, in the order `diagnoseService` runs them, filling its report. */
import { CancelledError, LanyardError } from '../errors.js';
import { proxyDisplay, proxyFor } from '../http/proxy.js';
import type { CredentialProvider, HttpResponse } from '../http/types.js';
import { parseServerDate } from '../ratelimit/headers.js';
import { tokenClaims } from '../auth/token-claims.js';
import { DEFAULT_LIMIT_MS, LimitReached, withinLimit } from './limit.js';
import { defaultLookup, endpointFailure, endpointSummary, sendProbe, type Answer } from './endpoint.js';
import type { Check, CheckStatus, CredentialOrigin, DoctorDeps, DoctorTarget, Probe, RateLimitBudget, ServiceReport } from './types.js';

/** A clock this far off the server's is a warning; this far, a failure (token validity, TLS, signed requests). */
export const SKEW_WARN_MS = 30_000;
export const SKEW_FAIL_MS = 5 * 60_000;
/** A credential expiring within this is a warning (a command started now may outlive it). */
export const EXPIRY_WARN_MS = 10 * 60_000;

export const worst = (checks: readonly Check[]): CheckStatus =>
  checks.some((c) => c.status === 'fail') ? 'fail' : checks.some((c) => c.status === 'warn') ? 'warn' : 'ok';

/** Where a provider's credential comes from, in words a report shows. */
export function credentialOrigin(source: string, storeKind = 'store'): CredentialOrigin {
  if (source.startsWith('env:')) return { from: 'environment', source, variable: source.slice(4) };
  if (source === 'environment') return { from: 'environment', source };
  if (source === 'anonymous') return { from: 'none', source };
  if (source === 'basic-client') return { from: 'client', source };
  if (source === 'store') return { from: storeKind, source };
  return { from: source, source };
}

/** The credential's expiry: the provider's, else a JWT's `exp` claim. */
async function expiryOf(provider: CredentialProvider, sent: { scheme: string; token?: string }): Promise<number | undefined> {
  const own = provider.expiresAt?.();
  if (own !== undefined) return own;
  if (sent.scheme !== 'bearer' || !sent.token) return undefined;
  const exp = tokenClaims(sent.token)?.exp;
  return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
}

/** One service's checks under way: the report they fill, in the order `diagnoseService` runs them. */
export class Diagnosis {
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
