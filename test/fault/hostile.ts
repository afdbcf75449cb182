/**
 * The fault-and-abuse suite's tools: a hostile HTTP server on 127.0.0.1
 * whose every answer a test scripts (and which records every request), a
 * config directory whose profile points every service at it, and a tally of
 * the cases tried (each `it` is one case; `.ci/run` prints `N tried, N held`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CliResult, type RunOptions } from '../e2e/harness.js';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
}

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface Hostile {
  url: string;
  /** Requests seen so far, in order. */
  seen: SeenRequest[];
  /** What the server does next (default: 500 with a JSON message). */
  handle(h: Handler): void;
  close(): Promise<void>;
}

export async function startHostile(): Promise<Hostile> {
  let handler: Handler = (_req, res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end('{"message":"hostile default"}');
  };
  const seen: SeenRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    req.resume();
    try {
      handler(req, res);
    } catch {
      res.destroy();
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    handle(h) {
      handler = h;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Every setting of a profile named `hostile`, pointing at `url`. */
export function hostileProfile(url: string): Record<string, string> {
  return {
    'hosting.webUrl': url,
    'hosting.apiUrl': `${url}/api/v3`,
    'hosting.clientId': 'lanyard-cli-emulator',
    'echo.baseUrl': url,
    'echo.audience': 'echo-api.lanyard.test',
    'echo.idpUrl': `${url}/idp`,
    'echo.idpClientId': 'lanyard-cli.apps.lanyard.test',
    'echo.appPlatformUrl': `${url}/app-platform`,
    'echo.appPlatformProject': 'lanyard-demo',
    'protocol.serverUrl': `${url}/mcp`,
    'mailbox.baseUrl': url,
    'mailbox.domain': 'example.com',
    'mailbox.user': 'alice',
    'health.managementUrl': url,
    'health.authUrl': url,
    'health.clientId': 'a7f4c0de-1a2b-4c3d-8e9f-lanyardhealth',
    'health.subscriptionId': '6f1c2a4e-0b7d-4c1e-9a55-3d2b8e7f9a10',
  };
}

export interface HostileWorld {
  server: Hostile;
  configDir: string;
  /** Runs the CLI with the `hostile` profile active and this world's config directory. */
  run(args: string[], o?: RunOptions): Promise<CliResult>;
  close(): Promise<void>;
}

export async function hostileWorld(): Promise<HostileWorld> {
  const server = await startHostile();
  const configDir = await mkdtemp(join(tmpdir(), 'lanyard-fault-'));
  await writeFile(join(configDir, 'config.json'), JSON.stringify({ activeProfile: 'hostile', profiles: { hostile: hostileProfile(server.url) } }), {
    mode: 0o600,
  });
  return {
    server,
    configDir,
    run: (args, o = {}) => runCli(args, { ...o, env: { LANYARD_CONFIG_DIR: configDir, ...o.env } }),
    async close() {
      await server.close();
      await rm(configDir, { recursive: true, force: true });
    },
  };
}

/** What must hold for any run: it ended by itself, with a documented exit code, no stack trace, no "unexpected error". */
export function expectOrderly(r: CliResult, allowed: readonly number[] = [0, 1, 2, 3, 4]): string | undefined {
  if (r.signal) return `killed by ${r.signal} (did not finish)`;
  if (r.code === null || !allowed.includes(r.code)) return `exit ${r.code}, expected one of ${allowed.join('/')}`;
  if (/unexpected error/.test(r.stderr)) return 'said "unexpected error"';
  if (/^\s+at .+[(:]\d+/m.test(r.stderr)) return 'printed a stack trace';
  return undefined;
}
