/**
 * The emulator as a library, for tests (`lanyard-cli/emulator`):
 *
 * ```ts
 * import { startEmulator } from 'lanyard-cli/emulator';
 * const emu = await startEmulator();            // 127.0.0.1, a free port
 * // ... point any client at emu.urls.hosting.api, emu.urls.health.management, ...
 * await emu.stop();
 * ```
 *
 * Every service of `lanyard emulator start` runs in-process on one ephemeral
 * port; the returned object has its URLs, the seeded fixtures (accounts,
 * tokens, client ids) and admin helpers (reset, clock, faults, budgets).
 *
 * @packageDocumentation
 * @module lanyard-cli/emulator
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EmulatorAdminPrefix, Hosting } from '../shared/constants.js';
import { Health } from '../shared/constants.js';
import type { HostingSecondaryLimits } from '../shared/hosting-ratelimit.js';
import { Mailbox as MailboxPaths, MailboxSeed } from '../shared/mailbox.js';
import type { Fault, FaultType } from './faults.js';
import type { JournalEntry, JournalLimits, JournalQuery } from './journal.js';
export { JOURNAL_LIMITS, type JournalLimits, type TruncatedBody } from './journal.js';
import { isLoopback, startEmulator as startServer, type Emulator } from './server.js';
import { SEED as EchoSeed } from './services/echo/state.js';
import { SEED as HealthSeed } from './services/health/seed.js';
import { SEED as HostingSeed, type HostingApp as EmulatorApp } from './services/hosting/state.js';
import { MCP_PATH } from './services/protocol/oauth.js';
import { SEED_CLIENTS } from './services/protocol/state.js';
import { CA_FILE } from './tls.js';

export type { Fault, FaultType } from './faults.js';
export type { JournalEntry, JournalQuery } from './journal.js';
export type { HostingSecondaryLimits } from '../shared/hosting-ratelimit.js';
/** A seeded OAuth or installable app of the hosting service. */
export type { HostingApp as EmulatorApp } from './services/hosting/state.js';

export interface StartEmulatorOptions {
  /** Port; default 0 (a free port). */
  port?: number;
  /**
   * Loopback address to listen on: 127.0.0.1 (default), any other 127.x.y.z,
   * or ::1. A client that refuses a port in a host name (gh) needs port 443,
   * which another address of 127.0.0.0/8 keeps from clashing with others.
   */
  host?: string;
  /**
   * Serve HTTPS: `true` for a self-signed certificate (its PEM is in
   * `tls.ca`, and in the file `tls.caFile` for SSL_CERT_FILE or
   * NODE_EXTRA_CA_CERTS), or your own PEM certificate and key. The
   * self-signed one is new with a temporary data directory; with `dataDir`
   * it is kept there and used again while it is valid for another day.
   */
  tls?: boolean | { cert: string; key: string };
  /** Keep state (the mailbox store) here; default: a temporary directory removed by stop(). */
  dataDir?: string;
  /**
   * Host names the emulator answers besides loopback names and the names of
   * its certificate: requests with any other `Host` are refused (403), so a
   * web page cannot reach it through DNS rebinding.
   */
  allowedHosts?: string[];
  /** Request log lines (method, path, status, time); default: silent. */
  log?: (line: string) => void;
  /**
   * How much the request journal keeps (`requests()`): the newest
   * `maxEntries` (default 5000) whose estimated size stays under `maxBytes`
   * (default 32 MiB); a body over `maxBodyBytes` (default 64 KiB) is kept
   * truncated, marked `truncated: true`. See `JOURNAL_LIMITS`.
   */
  journal?: Partial<JournalLimits>;
}

export interface EmulatorUrls {
  /** Origin of every service (`http://127.0.0.1:<port>`). */
  base: string;
  /** The admin API (`/_emulator`). */
  admin: string;
  hosting: { web: string; api: string; graphql: string };
  echo: { base: string };
  protocol: { server: string; authorizationServer: string };
  mailbox: { base: string; api: string };
  health: { management: string; auth: string; authorize: string };
}

export interface EmulatorUser {
  login: string;
  password: string;
  name: string;
  email: string;
}

/** The seeded data every start (and every reset) begins with. */
export interface EmulatorFixtures {
  hosting: {
    user: EmulatorUser;
    secondUser: EmulatorUser;
    /** A personal token of `user` with scopes repo, read:org, gist. */
    personalToken: string;
    /** OAuth app with the device flow enabled. */
    app: EmulatorApp;
    /** OAuth app without the device flow. */
    webOnlyApp: EmulatorApp;
    /** Installable app: expiring user tokens with refresh tokens. */
    installableApp: EmulatorApp;
  };
  health: {
    subscriptionId: string;
    /** A long-lived token of `user` for the events API. */
    token: string;
    clientId: string;
    user: { login: string; password: string; name: string };
    /** The official SDK's default api-version, and the one the spec documents. */
    apiVersions: { sdkDefault: string; documented: string };
  };
  echo: { apiKeys: string[]; audience: string; users: Array<{ email: string; password: string; name: string }> };
  protocol: { clients: Array<{ client_id: string; client_secret?: string; grant_types: string[]; redirect_uris: string[] }> };
  mailbox: { domain: string; user: string };
}

export interface BudgetOptions {
  /** Whose bucket: a login, the anonymous bucket of 127.0.0.1, or a bucket key (`app:<client id>`, ...); default every caller. */
  login?: string;
  anonymous?: boolean;
  caller?: string;
  /** core (default), search, graphql, code_search, lfs, audit_log, ... */
  resource?: string;
  remaining: number;
  resetInSeconds?: number;
}

export interface SecondaryOptions {
  login?: string;
  anonymous?: boolean;
  caller?: string;
  /** How many requests to refuse (default 1). */
  count?: number;
  /** Send `retry-after` with this many seconds. */
  retryAfter?: number;
  status?: 403 | 429;
}

export interface FaultSpec {
  type: FaultType;
  /** Path prefix, e.g. `/api/v3/user`. */
  path: string;
  method?: string;
  latencyMs?: number;
  status?: number;
  count?: number;
  /** Chaos: apply to this share of the matching requests (0 < rate <= 1), e.g. 0.1 for one in ten. */
  rate?: number;
  /** With `rate`: the seed of the draws, for a repeatable run (default: chosen, and returned in the fault). */
  seed?: number;
}

export interface RunningEmulator {
  readonly url: string;
  readonly port: number;
  readonly urls: EmulatorUrls;
  readonly fixtures: EmulatorFixtures;
  /** With `tls`: the certificate to trust, as PEM and as a file. */
  readonly tls?: { ca: string; caFile: string };
  readonly dataDir: string;
  /** Everything `GET /_emulator/info` lists (seeded data and endpoints of every service). */
  info(): Record<string, unknown>;
  /** Back to the seeded state: data, clock, faults, budgets; the request journal emptied (its numbering goes on). */
  reset(): Promise<void>;
  /** Moves the emulator clock forward: milliseconds, or a duration such as `90s`, `15m`, `2h`, `1d`. */
  advance(by: number | string): { now: string; clockOffsetMs: number };
  /** The emulator's current time, epoch milliseconds. */
  now(): number;
  fault(f: FaultSpec): Fault;
  clearFaults(): void;
  /**
   * The request journal, oldest first: every request answered (time, service,
   * caller, method, path, query, headers, a JSON or form body, status,
   * duration, the fault applied), secrets redacted. `since` a `seq` seen
   * before gives only newer ones; `service` one of hosting, echo, protocol,
   * mailbox, health, admin.
   */
  requests(q?: JournalQuery): JournalEntry[];
  clearRequests(): void;
  /** Calls `f` with each request as it is answered (`--follow` in process); returns the unsubscribe. */
  onRequest(f: (e: JournalEntry) => void): () => void;
  /** Sets what a caller has left of a hosting rate-limit budget. */
  budget(o: BudgetOptions): Promise<unknown>;
  /** Makes the next request(s) hit a hosting secondary rate limit. */
  secondary(o?: SecondaryOptions): Promise<unknown>;
  /** Tunes the hosting secondary limits (concurrency, points, content creation, CPU time). */
  limits(l: HostingSecondaryLimits): Promise<unknown>;
  /** Any admin verb (`POST /_emulator/<service>/<verb>`), e.g. `admin('hosting', 'device-approve', { user_code })`. */
  admin(service: string, verb: string, body?: Record<string, unknown>): Promise<unknown>;
  /** Stops listening, closes connections, removes the temporary data directory. Safe to call twice. */
  stop(): Promise<void>;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `1500`, `90s`, `15m`, `2h`, `1d`, `500ms` → milliseconds. */
export function durationMs(by: number | string): number {
  if (typeof by === 'number') return by;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(by);
  if (!m) throw new RangeError(`not a duration: ${by} (e.g. 90s, 15m, 2h)`);
  return Math.round(Number(m[1]) * UNITS[m[2] ?? 'ms']!);
}

const app = (a: EmulatorApp): EmulatorApp => ({ ...a });

function fixtures(): EmulatorFixtures {
  const user = (u: EmulatorUser): EmulatorUser => ({ login: u.login, password: u.password, name: u.name, email: u.email });
  return {
    hosting: {
      user: user(HostingSeed.user),
      secondUser: user(HostingSeed.secondUser),
      personalToken: HostingSeed.personalToken,
      app: app(HostingSeed.app),
      webOnlyApp: app(HostingSeed.noDeviceApp),
      installableApp: app(HostingSeed.installableApp),
    },
    health: {
      subscriptionId: HealthSeed.subscriptionId,
      token: HealthSeed.token,
      clientId: HealthSeed.clientId,
      user: { ...HealthSeed.user },
      apiVersions: { sdkDefault: '2022-10-01', documented: Health.defaultApiVersion },
    },
    echo: { apiKeys: EchoSeed.apiKeys.map((k) => k.key), audience: EchoSeed.audience, users: EchoSeed.users.map((u) => ({ ...u })) },
    protocol: {
      clients: SEED_CLIENTS.map((c) => ({
        client_id: c.client_id,
        ...(c.client_secret ? { client_secret: c.client_secret } : {}),
        grant_types: [...c.grant_types],
        redirect_uris: [...c.redirect_uris],
      })),
    },
    mailbox: { domain: MailboxSeed.domain, user: MailboxSeed.user },
  };
}

function urlsOf(base: string): EmulatorUrls {
  return {
    base,
    admin: base + EmulatorAdminPrefix,
    hosting: { web: base, api: base + Hosting.apiPathPrefix, graphql: `${base}/api/graphql` },
    echo: { base },
    protocol: { server: base + MCP_PATH, authorizationServer: base },
    mailbox: { base, api: `${base}${MailboxPaths.pathPrefix}/${MailboxSeed.domain}/${MailboxSeed.user}/mailbox` },
    health: { management: base, auth: base, authorize: base + Health.authorizePath },
  };
}

function selector(o: { login?: string; anonymous?: boolean; caller?: string }): Record<string, unknown> {
  return {
    ...(o.login !== undefined ? { login: o.login } : {}),
    ...(o.anonymous ? { anonymous: true } : {}),
    ...(o.caller !== undefined ? { caller: o.caller } : {}),
  };
}

export { isLoopback };

/** The certificate a client must trust: your own (written to the data directory as a file too), the self-signed one, or none. */
async function trustOf(emu: Emulator, own: { cert: string } | undefined): Promise<RunningEmulator['tls']> {
  if (own) {
    const caFile = join(emu.dataDir, CA_FILE);
    await writeFile(caFile, own.cert, { mode: 0o644 });
    return { ca: own.cert, caFile };
  }
  if (emu.selfSigned) return { ca: emu.selfSigned.cert, caFile: emu.selfSigned.caFile };
  return undefined;
}

/** Starts every emulated service in this process on a loopback address. */
export async function startEmulator(options: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopback(host)) throw new RangeError(`host must be a loopback address (127.x.y.z or ::1), got ${host}`);
  const own = options.tls && options.tls !== true ? options.tls : undefined;
  const emu: Emulator = await startServer({
    port: options.port ?? 0,
    host,
    dataDir: options.dataDir,
    tls: own,
    tlsSelfSigned: options.tls === true,
    allowedHosts: options.allowedHosts,
    log: options.log,
    journal: options.journal,
  });
  const tls = await trustOf(emu, own);
  const a = emu.admin;
  let stopping: Promise<void> | undefined;
  return {
    url: emu.url,
    port: emu.port,
    urls: urlsOf(emu.url),
    fixtures: fixtures(),
    tls,
    dataDir: emu.dataDir,
    info: () => a.info(),
    reset: () => a.reset(),
    advance: (by) => a.advance(durationMs(by)),
    now: () => emu.clock.now(),
    fault: (f) => a.addFault({ ...f }),
    clearFaults: () => a.clearFaults(),
    requests: (q) => a.requests(q),
    clearRequests: () => a.clearRequests(),
    onRequest: (f) => a.onRequest(f),
    budget: (o) =>
      a.verb('hosting', 'budget', {
        ...selector(o),
        resource: o.resource ?? 'core',
        remaining: o.remaining,
        ...(o.resetInSeconds !== undefined ? { resetInSeconds: o.resetInSeconds } : {}),
      }),
    secondary: (o = {}) =>
      a.verb('hosting', 'secondary', {
        ...selector(o),
        ...(o.count !== undefined ? { count: o.count } : {}),
        ...(o.retryAfter !== undefined ? { retryAfter: o.retryAfter } : {}),
        ...(o.status !== undefined ? { status: o.status } : {}),
      }),
    limits: (l) => a.verb('hosting', 'limits', { ...l }),
    // A copy, as over HTTP: what the caller keeps or changes is not the emulator's live state.
    admin: async (service, verb, body = {}) => JSON.parse(JSON.stringify(await a.verb(service, verb, body))) as unknown,
    stop: () =>
      (stopping ??= emu.close().then(async () => {
        if (emu.temporaryDataDir) await rm(emu.dataDir, { recursive: true, force: true });
      })),
  };
}
