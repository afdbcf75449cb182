/**
 * The built CLI against a hostile server on 127.0.0.1: a redirect where a
 * file was expected (mailbox raw), a body read whole (--jq) that trickles past
 * the deadline the program builds from --timeout / LANYARD_TIMEOUT. Next-page links to another
 * origin or to themselves and redirects to another origin are tested as a
 * run function in test/unit/cli/api/hostile.test.ts.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './harness.js';

const TOKEN = 'lyp_hostile_test_token_000000000000000001';
let dir: string;
let hostile: Server;
let hostileUrl: string;

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<[Server, string]> {
  const s = createServer(handler);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return [s, `http://127.0.0.1:${(s.address() as AddressInfo).port}`];
}

const json = (res: ServerResponse, body: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-hostile-'));
  [hostile, hostileUrl] = await listen((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path.endsWith('/raw')) return res.writeHead(302).end();
    if (path === '/api/trickle') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      const t = setInterval(() => res.write(' '), 100);
      return res.on('close', () => clearInterval(t));
    }
    json(res, { login: 'mona', id: 1 });
  });
  const env = { LANYARD_CONFIG_DIR: dir };
  for (const [k, v] of [
    ['hosting.apiUrl', `${hostileUrl}/api`],
    ['mailbox.baseUrl', hostileUrl],
    ['mailbox.domain', 'example.org'],
    ['mailbox.user', 'mona'],
  ]) {
    const r = await runCli(['config', 'set', k!, v!], { env });
    expect(r.code, r.stderr).toBe(0);
  }
});

afterAll(async () => {
  for (const s of [hostile]) {
    s?.closeAllConnections();
    await new Promise((r) => s?.close(r));
  }
  await rm(dir, { recursive: true, force: true });
});

const run = (args: string[], env: Record<string, string> = {}) =>
  runCli(args, { env: { LANYARD_CONFIG_DIR: dir, LANYARD_TOKEN: TOKEN, ...env }, timeoutMs: 30_000 });

describe('lanyard api against a hostile server', () => {
  it('mailbox raw --output on a 302 exits 1 and leaves no file', async () => {
    const out = join(dir, 'out.eml');
    const r = await run(['mailbox', 'raw', '0b6c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3', '--output', out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/302/);
    expect(await readdir(dir)).not.toContain('out.eml');
  });

  // A body written out as it comes is bounded by its silence instead (api-download-timeout.test.ts).
  it('--timeout and LANYARD_TIMEOUT bound a trickling body read whole (--jq); a bad value is a usage error', async () => {
    const flag = await run(['--timeout', '1s', 'api', '/trickle', '--jq', '.']);
    expect(flag.code).toBe(1);
    expect(flag.stderr).toMatch(/no complete answer within 1 s \(the request deadline/);
    const env = await run(['api', '/trickle', '--jq', '.'], { LANYARD_TIMEOUT: '1s' });
    expect(env.code).toBe(1);
    expect(env.stderr).toMatch(/request deadline/);
    const bad = await run(['--timeout', 'soon', 'api', '/user']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--timeout: invalid duration "soon"/);
  });
});
