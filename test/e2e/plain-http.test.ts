/**
 * No credential in clear (issue 25): with a profile URL `http://` on a host
 * that is not loopback, `api`, `health events` and `echo send` refuse before
 * sending (exit 2, naming the URL and the lab opt-in) and nothing reaches the
 * server; `config set` of such a URL warns at once. The server listens on
 * 127.0.0.1 and is addressed as 0.0.0.0 (not loopback by name, but Linux
 * delivers it to this host), so a request that went out would be seen.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from './harness.js';

let server: Server;
let seen: string[] = [];
let origin: string;
let configDir: string;
const TOKEN = 'lyp_plain_http_secret_0000000000000001';
const KEY = 'plain-http-api-key-0000000001';

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    res.setHeader('content-type', 'application/json');
    res.end(req.url?.includes('events') ? '{"value":[]}' : '{"ok":true}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://0.0.0.0:${(server.address() as AddressInfo).port}`;
  configDir = await mkdtemp(join(tmpdir(), 'lanyard-plain-'));
  for (const [k, v] of [
    ['hosting.apiUrl', `${origin}/api/v3`],
    ['hosting.webUrl', origin],
    ['health.managementUrl', origin],
    ['health.subscriptionId', 'sub'],
    ['echo.baseUrl', origin],
  ])
    await run(['config', 'set', k!, v!]);
});
afterAll(async () => {
  server?.close();
  await rm(configDir, { recursive: true, force: true });
});
beforeEach(() => {
  seen = [];
});

function run(args: string[], env: Record<string, string | undefined> = {}) {
  return runCli(['--profile', 'lab', ...args], { env: { LANYARD_CONFIG_DIR: configDir, ...env } });
}

describe('plain HTTP to a host that is not loopback', () => {
  it.each([
    ['api', ['api', '/user'], { LANYARD_TOKEN: TOKEN }, 'a bearer token', '/api/v3/user'],
    ['health events', ['health', 'events'], { LANYARD_HEALTH_TOKEN: TOKEN }, 'a bearer token', '/subscriptions/sub/'],
    ['echo send', ['echo', 'send', 'hi'], { LANYARD_API_KEY: KEY }, 'an API key', '/echo'],
    ['api -H Authorization', ['api', '/user', '-H', `Authorization: token ${TOKEN}`], {}, 'an Authorization header', '/api/v3/user'],
  ])('%s: refused before sending, exit 2, naming the URL and the opt-in', async (_name, args, env, what, path) => {
    const r = await run(args, env);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`refusing to send ${what} over plain HTTP to ${origin}`);
    expect(r.stderr).toContain(path);
    expect(r.stderr).toContain(`LANYARD_ALLOW_PLAIN_HTTP=${new URL(origin).host}`);
    expect(r.stderr).not.toContain(TOKEN);
    expect(r.stderr).not.toContain(KEY);
    expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
    expect(seen).toEqual([]);
  });

  it('without a credential the request goes out (public data over http is not refused)', async () => {
    const r = await run(['api', '/meta']);
    expect(r.code, r.stderr).toBe(0);
    expect(seen).toEqual(['GET /api/v3/meta ']);
  });

  it('LANYARD_ALLOW_PLAIN_HTTP=host:port (a lab setup) lets it through', async () => {
    const r = await run(['api', '/user'], { LANYARD_TOKEN: TOKEN, LANYARD_ALLOW_PLAIN_HTTP: new URL(origin).host });
    expect(r.code, r.stderr).toBe(0);
    expect(seen).toEqual([`GET /api/v3/user Bearer ${TOKEN}`]);
  });

  it('config set of such a URL warns at once; https and loopback do not', async () => {
    const warned = await run(['config', 'set', 'hosting.apiUrl', 'http://api.example.com/api/v3']);
    expect(warned.code).toBe(0);
    expect(warned.stderr).toMatch(/hosting\.apiUrl is plain HTTP to api\.example\.com, which is not a loopback host/);
    expect(warned.stderr).toContain('LANYARD_ALLOW_PLAIN_HTTP=api.example.com');
    for (const url of ['https://api.example.com/api/v3', 'http://127.0.0.1:8080/api/v3', 'http://[::1]:8080/api/v3', 'http://localhost/api/v3']) {
      const quiet = await run(['config', 'set', 'hosting.apiUrl', url]);
      expect(quiet.stderr, url).not.toMatch(/plain HTTP/);
    }
    await run(['config', 'set', 'hosting.apiUrl', `${origin}/api/v3`]);
  });
});
