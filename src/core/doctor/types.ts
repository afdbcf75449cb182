/** The shapes of `lanyard doctor`'s report (core/doctor): checks, problems, a service's report, what a target and the checks need. */
import type { Clock } from '../deps.js';
import type { Remedy, ServiceName } from '../errors.js';
import type { ProxySettings } from '../http/proxy.js';
import type { CredentialProvider, HttpResponse, RequestSpec } from '../http/types.js';

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
  | 'keychain-binding'
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

export interface DoctorReport {
  ok: boolean;
  keychain: Check;
  services: ServiceReport[];
}
