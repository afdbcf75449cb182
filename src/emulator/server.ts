/**
 * The emulator host: one node:http(s) server on one port serving every
 * service, the emulator clock, injected faults and the admin API under
 * /_emulator/. Imports only src/shared from outside the emulator.
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { mkdtemp, mkdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo, Socket } from 'node:net';
import { EmulatorAdminPrefix } from '../shared/constants.js';
import { EmulatorClock } from './clock.js';
import { FaultTable } from './faults.js';
import { Router } from './router.js';
import type { EmulatorEnv, EmulatorService } from './service.js';
import { serviceFactories } from './services/index.js';

export interface EmulatorOptions {
  port?: number;
  host?: string;
  dataDir?: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  log?: (line: string) => void;
}

export interface Emulator {
  readonly url: string;
  readonly port: number;
  readonly clock: EmulatorClock;
  readonly dataDir: string;
  readonly services: readonly EmulatorService[];
  close(): Promise<void>;
}

export async function startEmulator(o: EmulatorOptions = {}): Promise<Emulator> {
  const host = o.host ?? '127.0.0.1';
  const dataDir = o.dataDir ?? (await mkdtemp(join(tmpdir(), 'lanyard-emulator-')));
  await mkdir(dataDir, { recursive: true });
  const clock = new EmulatorClock();
  let baseUrl = '';
  const env: EmulatorEnv = { clock, baseUrl: () => baseUrl, dataDir, log: o.log ?? (() => undefined) };
  const router = new Router();
  const faults = new FaultTable();
  router.use('', faults.middleware());
  const services: EmulatorService[] = [];
  for (const factory of serviceFactories) services.push(await factory(env));
  registerAdmin(router, services, clock, faults, () => baseUrl, dataDir);
  for (const s of services) s.register(router);

  const handler = (req: IncomingMessage, res: ServerResponse) => {
    if (o.log) {
      // Request log: path only (query strings may carry keys and codes).
      const started = performance.now();
      const path = (req.url ?? '/').split('?')[0];
      res.once('close', () => env.log(`${req.method} ${path} ${res.headersSent ? res.statusCode : 'reset'} ${Math.round(performance.now() - started)}ms`));
    }
    router
      .handle(req, res, () => ({ date: new Date(clock.now()).toUTCString() }))
      .catch((err: unknown) => {
        env.log(`error on ${req.method} ${req.url}: ${(err as Error)?.stack ?? err}`);
        if (!res.headersSent) {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ message: 'Internal emulator error' }));
        } else res.destroy();
      });
  };
  let server: Server;
  const tls = !!(o.tlsCertFile && o.tlsKeyFile);
  if (tls) {
    const [cert, key] = await Promise.all([readFile(o.tlsCertFile!), readFile(o.tlsKeyFile!)]);
    server = createHttpsServer({ cert, key }, handler) as unknown as Server;
  } else {
    server = createHttpServer(handler);
  }
  server.keepAliveTimeout = 5000;
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const hostPart = host.includes(':') ? `[${host}]` : host;
  baseUrl = `${tls ? 'https' : 'http'}://${hostPart}:${port}`;
  return {
    url: baseUrl,
    port,
    clock,
    dataDir,
    services,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections?.();
        setTimeout(() => {
          for (const s of sockets) s.destroy();
        }, 1000).unref();
      });
      for (const s of services) await s.close?.();
    },
  };
}

function registerAdmin(router: Router, services: EmulatorService[], clock: EmulatorClock, faults: FaultTable, baseUrl: () => string, dataDir: string): void {
  const p = EmulatorAdminPrefix;
  const body = async (req: Parameters<Parameters<Router['get']>[1]>[0]) => {
    const t = await req.text();
    if (!t.trim()) return {};
    const j = JSON.parse(t) as unknown;
    if (!j || typeof j !== 'object' || Array.isArray(j)) throw new Error('body must be a JSON object');
    return j as Record<string, unknown>;
  };
  router.get(`${p}/info`, (_req, res) => {
    const info: Record<string, unknown> = { url: baseUrl(), now: new Date(clock.now()).toISOString(), clockOffsetMs: clock.offsetMs, dataDir };
    for (const s of services) if (s.info) info[s.name] = s.info();
    res.json(200, info);
  });
  router.post(`${p}/reset`, async (_req, res) => {
    clock.reset();
    faults.clear();
    for (const s of services) await s.reset?.();
    res.json(200, { reset: true });
  });
  router.post(`${p}/advance`, async (req, res) => {
    try {
      const b = await body(req);
      const ms = b.ms !== undefined ? Number(b.ms) : Number(b.seconds) * 1000;
      clock.advance(ms);
      res.json(200, { now: new Date(clock.now()).toISOString(), clockOffsetMs: clock.offsetMs });
    } catch (err) {
      res.json(400, { message: (err as Error).message });
    }
  });
  router.get(`${p}/faults`, (_req, res) => res.json(200, { faults: faults.list() }));
  router.post(`${p}/faults`, async (req, res) => {
    try {
      res.json(201, faults.add(await body(req)));
    } catch (err) {
      res.json(400, { message: (err as Error).message });
    }
  });
  router.delete(`${p}/faults`, (_req, res) => {
    faults.clear();
    res.empty(204);
  });
  router.post(`${p}/:service/:verb`, async (req, res) => {
    const s = services.find((x) => x.name === req.params.service);
    const verb = s?.admin?.[req.params.verb!];
    if (!s || !verb) return res.json(404, { message: `no admin verb ${req.params.service}/${req.params.verb}` });
    let b: Record<string, unknown>;
    try {
      b = await body(req);
    } catch (err) {
      return res.json(400, { message: (err as Error).message });
    }
    try {
      res.json(200, (await verb(b)) ?? { ok: true });
    } catch (err) {
      res.json(400, { message: (err as Error).message });
    }
  });
}
