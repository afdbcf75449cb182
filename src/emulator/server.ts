/**
 * The emulator host: one node:http(s) server on one port serving every
 * service, the emulator clock, injected faults and the admin API under
 * /_emulator/. Imports only src/shared from outside the emulator.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AddressInfo, isIP, type Socket } from 'node:net';
import { EmulatorAdminPrefix } from '../shared/constants.js';
import { makeDir, makeDirProblem } from '../shared/make-dir.js';
import { EmulatorClock } from './clock.js';
import { FaultTable, type Fault } from './faults.js';
import { EmulatorConsole } from './console/index.js';
import { certificateNames, Guard } from './guard.js';
import { Journal, type JournalEntry, type JournalLimits, type JournalQuery } from './journal.js';
import { Router, type EmuRequest, type Handler, type Middleware } from './router.js';
import type { EmulatorEnv, EmulatorService } from './service.js';
import { serviceFactories } from './services/index.js';
import { dataDirCertificate } from './tls.js';

export interface EmulatorOptions {
  port?: number;
  host?: string;
  /** Keep state (the mailbox store) here; default: a new temporary directory (see `temporaryDataDir`). */
  dataDir?: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  /** Serve HTTPS with this PEM certificate and key (in memory), e.g. from `selfSignedCertificate()`. */
  tls?: { cert: string; key: string };
  /**
   * Serve HTTPS with the data directory's self-signed certificate (see
   * `dataDirCertificate`): made on the first start, kept across restarts on
   * the same data directory; `tlsCaFile` names the file to trust.
   */
  tlsSelfSigned?: boolean;
  /** Host names accepted in `Host` besides loopback names and the certificate's (a name in /etc/hosts, or one a proxy resolves). */
  allowedHosts?: readonly string[];
  /**
   * The host name the emulator gives itself in its URLs (metadata, links, the
   * profile) instead of the address it listens on: a name that reaches it
   * another way (through a proxy that resolves it, /etc/hosts). Also accepted in `Host`,
   * and covered by the `tlsSelfSigned` certificate.
   */
  publicHost?: string;
  log?: (line: string) => void;
  /** How much of the request journal is kept (see `JOURNAL_LIMITS` for the defaults). */
  journal?: Partial<JournalLimits>;
}

/** The admin operations, callable in-process or over HTTP under /_emulator/. */
export interface EmulatorAdmin {
  info(): Record<string, unknown>;
  reset(): Promise<void>;
  /** Moves the emulator clock forward (and, with `freeze`, stops it or lets it run again); returns the new emulator time. */
  advance(ms: number, freeze?: boolean): { now: string; clockOffsetMs: number; frozen?: boolean };
  addFault(f: Record<string, unknown>): Fault;
  faults(): Fault[];
  clearFaults(): void;
  /** The request journal (`GET /_emulator/requests`): newest last. */
  requests(q?: JournalQuery): JournalEntry[];
  clearRequests(): void;
  /** Calls `f` with each request as it is answered; returns the unsubscribe. */
  onRequest(f: (e: JournalEntry) => void): () => void;
  /** Calls `POST /_emulator/<service>/<verb>` in-process. */
  verb(service: string, verb: string, body?: Record<string, unknown>): Promise<unknown>;
}

export interface Emulator {
  readonly url: string;
  readonly port: number;
  readonly clock: EmulatorClock;
  readonly dataDir: string;
  /** With `tlsSelfSigned`: the certificate to trust (PEM, and its file in the data directory), and whether it was kept from an earlier start. */
  readonly selfSigned?: { cert: string; caFile: string; reused: boolean };
  /** True when the emulator made `dataDir` itself (a temporary directory nobody else knows). */
  readonly temporaryDataDir: boolean;
  readonly services: readonly EmulatorService[];
  readonly admin: EmulatorAdmin;
  /** Every route, as `METHOD /pattern/:param` (tests try each path parameter). */
  routes(): string[];
  close(): Promise<void>;
}

/** The one place the emulator's data directory is chosen: the given one, or a new temporary one. */
async function openDataDir(dir: string | undefined): Promise<{ dir: string; temporary: boolean }> {
  if (dir) {
    try {
      // Not Node's recursive mkdir: it never returns where no directory can be made (/proc).
      makeDir(dir);
    } catch (err) {
      throw Object.assign(new Error(`cannot create the data directory ${dir}: ${makeDirProblem(err)}`), { code: 'EDATADIR' });
    }
    return { dir, temporary: false };
  }
  return { dir: await mkdtemp(join(tmpdir(), 'lanyard-emulator-')), temporary: true };
}

/** 127.0.0.0/8 or ::1: the emulator never listens beyond this machine. */
export function isLoopback(host: string): boolean {
  return host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
}

/** `scheme://host:port` without a default port (https on 443, http on 80), as the real services write URLs. */
export function originOf(scheme: 'http' | 'https', host: string, port: number): string {
  return new URL(`${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`).origin;
}

export async function startEmulator(o: EmulatorOptions = {}): Promise<Emulator> {
  const host = o.host ?? '127.0.0.1';
  const data = await openDataDir(o.dataDir);
  // A temporary data directory is the emulator's own: removed when it stops (or fails to start).
  const removeOwnData = () => (data.temporary ? rm(data.dir, { recursive: true, force: true }).catch(() => undefined) : undefined);
  try {
    return await listen(o, host, data, removeOwnData);
  } catch (err) {
    await removeOwnData();
    throw err;
  }
}

async function listen(
  o: EmulatorOptions,
  host: string,
  data: { dir: string; temporary: boolean },
  removeOwnData: () => Promise<unknown> | undefined,
): Promise<Emulator> {
  const dataDir = data.dir;
  const clock = new EmulatorClock();
  let baseUrl = '';
  const env: EmulatorEnv = { clock, baseUrl: () => baseUrl, dataDir, log: o.log ?? (() => undefined) };
  const tls = await tlsOf(o, host, dataDir);
  const { router, services, admin } = await routerOf(o, env, tls);
  const { server, held } = createServer(tls, requestHandler(o, env, router));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  baseUrl = originOf(tls.on ? 'https' : 'http', o.publicHost ?? host, port);
  let closing: Promise<void> | undefined;
  return {
    url: baseUrl,
    port,
    clock,
    dataDir,
    ...(tls.own ? { selfSigned: { cert: tls.own.cert, caFile: tls.own.caFile, reused: tls.own.reused } } : {}),
    temporaryDataDir: data.temporary,
    services,
    admin,
    routes: () => router.routes(),
    close() {
      closing ??= shutDown(server, held, services, removeOwnData);
      return closing;
    },
  };
}

/** The TLS material of a start: certificate files, a PEM pair in memory, or the data directory's self-signed certificate. */
interface TlsMaterial {
  files?: { cert: Buffer; key: Buffer };
  own?: Awaited<ReturnType<typeof dataDirCertificate>>;
  pair?: { cert: string; key: string };
  /** Serving HTTPS. */
  on: boolean;
}

async function tlsOf(o: EmulatorOptions, host: string, dataDir: string): Promise<TlsMaterial> {
  const tlsFiles = !!(o.tlsCertFile && o.tlsKeyFile);
  const files = tlsFiles ? await Promise.all([readFile(o.tlsCertFile!), readFile(o.tlsKeyFile!)]).then(([cert, key]) => ({ cert, key })) : undefined;
  // For the address it listens on and the name it gives itself (a proxy reaches it by that name, and checks it).
  const names = o.publicHost ? [host, o.publicHost] : host;
  const own = o.tlsSelfSigned && !tlsFiles && !o.tls ? await dataDirCertificate(dataDir, names) : undefined;
  const pair = o.tls ?? own;
  return { files, own, pair, on: tlsFiles || !!pair };
}

/** The router: the journal, the guard (Host, origin, form tokens), the injected faults, the admin API, then every service. */
async function routerOf(
  o: EmulatorOptions,
  env: EmulatorEnv,
  tls: TlsMaterial,
): Promise<{ router: Router; services: EmulatorService[]; admin: EmulatorAdmin }> {
  const router = new Router();
  const journal = new Journal(o.journal);
  router.use('', journalMiddleware(journal, router, env.clock));
  // First the guard (Host, origin, form tokens), then the injected faults, then the services.
  const guard = new Guard([
    ...certificateNames((tls.files ?? tls.pair)?.cert ?? ''),
    ...[...(o.allowedHosts ?? []), ...(o.publicHost ? [o.publicHost] : [])].map((h) => h.toLowerCase()),
  ]);
  const services: EmulatorService[] = [];
  let admin: EmulatorAdmin | undefined;
  const emuConsole = new EmulatorConsole({ journal, guard, clock: env.clock, services: () => services, ops: () => admin! });
  router.use('', emuConsole.capture());
  guard.install(router);
  const faults = new FaultTable();
  router.use('', faults.middleware());

  for (const factory of serviceFactories) services.push(await factory(env));
  admin = adminOf(services, env.clock, faults, journal, env.baseUrl, env.dataDir);
  router.owner('admin');
  emuConsole.register(router);
  registerAdmin(router, admin);
  for (const s of services) {
    router.owner(s.name);
    s.register(router);
  }
  return { router, services, admin };
}

let dateSec = Number.NaN;
let dateText = '';

/** The `Date` header of an emulator time (made once a second). */
function dateOf(now: number): string {
  const sec = Math.floor(now / 1000);
  if (sec !== dateSec) {
    dateSec = sec;
    dateText = new Date(sec * 1000).toUTCString();
  }
  return dateText;
}

/** Answers a request through the router (which never rejects), with the emulator's Date; logs it when asked. */
function requestHandler(o: EmulatorOptions, env: EmulatorEnv, router: Router): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (o.log) {
      // Request log: path only (query strings may carry keys and codes).
      const started = performance.now();
      const path = (req.url ?? '/').split('?')[0];
      res.once('close', () => env.log(`${req.method} ${path} ${res.headersSent ? res.statusCode : 'reset'} ${Math.round(performance.now() - started)}ms`));
    }
    void router.handle(
      req,
      res,
      () => ({ date: dateOf(env.clock.now()) }),
      (err) => env.log(`error on ${req.method} ${(req.url ?? '/').split('?')[0]}: ${(err as Error)?.stack ?? err}`),
    );
  };
}

/** What a server holds open: its sockets (destroyed on close) and its unfinished responses (event streams are ended on close). */
interface Held {
  sockets: Set<Socket>;
  responses: Set<ServerResponse>;
}

/** The HTTP or HTTPS server, with its time limits, and what it holds open. */
function createServer(tls: TlsMaterial, handler: (req: IncomingMessage, res: ServerResponse) => void): { server: Server; held: Held } {
  let server: Server;
  if (tls.files) {
    server = createHttpsServer(tls.files, handler) as unknown as Server;
  } else if (tls.pair) {
    server = createHttpsServer({ cert: tls.pair.cert, key: tls.pair.key }, handler) as unknown as Server;
  } else {
    server = createHttpServer(handler);
  }
  server.keepAliveTimeout = 5000;
  // A request that never finishes its headers or body does not hold a socket forever.
  server.headersTimeout = 30_000;
  server.requestTimeout = 120_000;
  const held: Held = { sockets: new Set(), responses: new Set() };
  server.on('connection', (s: Socket) => {
    held.sockets.add(s);
    s.on('close', () => held.sockets.delete(s));
  });
  server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
    held.responses.add(res);
    res.once('close', () => held.responses.delete(res));
  });
  return { server, held };
}

/**
 * Stops listening and closes the services. Event streams (the console's, the
 * protocol's) never finish by themselves: they are ended at once, as a server
 * going away ends them, and their connections closed once the end is sent.
 * Other requests get a second to finish, then their connections are destroyed.
 * A temporary data directory is removed.
 */
async function shutDown(server: Server, held: Held, services: EmulatorService[], removeOwnData: () => Promise<unknown> | undefined): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections?.();
    for (const res of held.responses) {
      if (!String(res.getHeader('content-type') ?? '').startsWith('text/event-stream')) continue;
      res.once('finish', () => res.socket?.destroySoon());
      res.end();
    }
    setTimeout(() => {
      for (const s of held.sockets) s.destroy();
    }, 1000).unref();
  });
  for (const s of services) await s.close?.();
  await removeOwnData();
}

function adminOf(
  services: EmulatorService[],
  clock: EmulatorClock,
  faults: FaultTable,
  journal: Journal,
  baseUrl: () => string,
  dataDir: string,
): EmulatorAdmin {
  return {
    info() {
      const info: Record<string, unknown> = { url: baseUrl(), now: new Date(clock.now()).toISOString(), clockOffsetMs: clock.offsetMs, dataDir };
      for (const s of services) if (s.info) info[s.name] = s.info();
      return info;
    },
    async reset() {
      clock.reset();
      faults.clear();
      // As a mock server's reset does: what earlier tests sent is gone (listeners stay; numbering goes on, so `since` still holds).
      journal.clear();
      for (const s of services) await s.reset?.();
    },
    advance(ms, freeze) {
      clock.advance(ms);
      if (freeze !== undefined) clock.freeze(freeze);
      return { now: new Date(clock.now()).toISOString(), clockOffsetMs: clock.offsetMs, ...(clock.frozen ? { frozen: true } : {}) };
    },
    addFault: (f) => faults.add(f),
    faults: () => faults.list(),
    clearFaults: () => faults.clear(),
    requests: (q) => journal.list(q),
    clearRequests: () => journal.clear(),
    onRequest: (f) => journal.subscribe(f),
    async verb(service, verb, body = {}) {
      const s = services.find((x) => x.name === service);
      const fn = s?.admin && Object.hasOwn(s.admin, verb) ? s.admin[verb] : undefined;
      if (!fn) throw new UnknownAdminVerb(`no admin verb ${service}/${verb}`);
      return (await fn(body)) ?? { ok: true };
    },
  };
}

class UnknownAdminVerb extends Error {}

/** Journals every answered request (reads of the journal itself excepted); the journal redacts secrets when it builds entries. */
function journalMiddleware(journal: Journal, router: Router, clock: EmulatorClock): Middleware {
  return (req, res, next) => {
    if (req.path === `${EmulatorAdminPrefix}/requests`) return next();
    const started = performance.now();
    const time = clock.now();
    res.raw.once('close', () => {
      const hosting = req.locals.rateLimitCaller as { login?: string } | undefined;
      const body = req.bodyIfRead();
      journal.add({
        time,
        service: router.serviceOf(req.path),
        ip: req.ip,
        ...(hosting?.login ? { login: hosting.login } : {}),
        method: req.method,
        path: req.path,
        query: queryOf(req.raw.url ?? ''),
        headers: req.headers,
        ...(body?.length ? { body } : {}),
        status: res.raw.headersSent ? res.raw.statusCode : 0,
        durationMs: Math.round(performance.now() - started),
        ...(req.locals.fault ? { fault: req.locals.fault as JournalEntry['fault'] } : {}),
      });
    });
    return next();
  };
}

/** The query string of a request target (`?a=b`, or empty), as the journal keeps it. */
function queryOf(target: string): string {
  const q = target.indexOf('?');
  if (q < 0) return '';
  const hash = target.indexOf('#', q);
  return hash < 0 ? target.slice(q) : target.slice(q, hash);
}

/** An admin request's body: a JSON object, or `{}` when empty. */
async function adminBody(req: EmuRequest): Promise<Record<string, unknown>> {
  const t = await req.text();
  if (!t.trim()) return {};
  const j = JSON.parse(t) as unknown;
  if (!j || typeof j !== 'object' || Array.isArray(j)) throw new Error('body must be a JSON object');
  return j as Record<string, unknown>;
}

/** Runs an admin operation: its result as JSON, a bad body or a refused verb as 400. */
function adminOp(status: number, fn: (b: Record<string, unknown>, params: Record<string, string>) => unknown): Handler {
  return async (req, res) => {
    let b: Record<string, unknown>;
    try {
      b = await adminBody(req);
    } catch (err) {
      return res.json(400, { message: (err as Error).message });
    }
    try {
      const r = await fn(b, req.params);
      if (r === undefined) res.empty(204);
      else res.json(status, r);
    } catch (err) {
      res.json(err instanceof UnknownAdminVerb ? 404 : 400, { message: (err as Error).message });
    }
  };
}

function registerAdmin(router: Router, admin: EmulatorAdmin): void {
  const p = EmulatorAdminPrefix;
  router.get(`${p}/info`, (_req, res) => res.json(200, admin.info()));
  router.post(
    `${p}/reset`,
    adminOp(200, async () => {
      await admin.reset();
      return { reset: true };
    }),
  );
  router.post(
    `${p}/advance`,
    adminOp(200, (b) =>
      admin.advance(
        b.ms !== undefined ? Number(b.ms) : b.seconds !== undefined ? Number(b.seconds) * 1000 : 0,
        typeof b.freeze === 'boolean' ? b.freeze : undefined,
      ),
    ),
  );
  router.get(`${p}/faults`, (_req, res) => res.json(200, { faults: admin.faults() }));
  // The journal: ?service=S&since=<seq>&limit=N; `last` is the `since` of the next read.
  router.get(`${p}/requests`, (req, res) => {
    const num = (k: string) => (req.query.get(k) !== null && /^\d+$/.test(req.query.get(k)!) ? Number(req.query.get(k)) : undefined);
    const requests = admin.requests({ service: req.query.get('service') ?? undefined, since: num('since'), limit: num('limit') });
    res.json(200, { requests, last: requests.at(-1)?.seq ?? num('since') ?? 0 });
  });
  router.delete(`${p}/requests`, (_req, res) => {
    admin.clearRequests();
    res.empty(204);
  });
  router.post(
    `${p}/faults`,
    adminOp(201, (b) => admin.addFault(b)),
  );
  router.delete(`${p}/faults`, (_req, res) => {
    admin.clearFaults();
    res.empty(204);
  });
  router.post(
    `${p}/:service/:verb`,
    adminOp(200, (b, params) => admin.verb(params.service!, params.verb!, b)),
  );
}
