/**
 * `lanyard --debug api -H 'Private-Token: …'`: a credential in a header of
 * any name (not only Authorization) never shows in the trace — not on the
 * first request, its redirect hop, nor in the answer's Set-Cookie — while the
 * header names and the non-secret headers stay readable. An answer with
 * several Set-Cookie headers keeps every one: each redacted in the trace,
 * each on its own line with `-i` (as curl and the code host's CLI print
 * them). The built CLI against a server on 127.0.0.1 that checks the header
 * arrives.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './harness.js';

const SECRETS = {
  'Private-Token': 'glpat-e2e-private-token-0001',
  'X-Auth-Token': 'x-auth-e2e-secret-0002',
  'Api-Key': 'api-key-e2e-secret-0003',
  'X-Vault-Token': 'hvs.e2e-vault-secret-0004',
};
const SET_COOKIE_SECRET = 'resp-cookie-e2e-secret-0005';
/** Three cookies of one answer (an Expires date has a comma: they cannot be joined into one line). */
const COOKIES = [
  'sid=cookie-one-e2e-secret-0006; Path=/; HttpOnly',
  'csrf=cookie-two-e2e-secret-0007; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Secure',
  'theme=cookie-three-e2e-0008; Path=/',
];
let dir: string;
let server: Server;
let url: string;
const seen: IncomingMessage['headers'][] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-debug-headers-'));
  server = createServer((req, res) => {
    seen.push(req.headers);
    if (req.url === '/start') return res.writeHead(302, { location: '/data' }).end();
    if (req.url === '/cookies') return res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': COOKIES, etag: '"v2"' }).end('{"ok":2}');
    res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': `sid=${SET_COOKIE_SECRET}; Path=/; HttpOnly`, etag: '"v1"' }).end('{"ok":true}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await rm(dir, { recursive: true, force: true });
});

describe('lanyard --debug api with a credential in a custom header', () => {
  it('sends the headers, traces their names and never their values (request, redirect hop, Set-Cookie)', async () => {
    const headerArgs = Object.entries(SECRETS).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
    const r = await runCli(['--debug', 'api', `${url}/start`, ...headerArgs, '-H', 'If-None-Match: "v0"'], {
      env: { LANYARD_CONFIG_DIR: dir },
      timeoutMs: 30_000,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ ok: true });
    // The server got them (same origin: the hop keeps them).
    expect(seen).toHaveLength(2);
    for (const h of seen) expect(h['private-token']).toBe(SECRETS['Private-Token']);
    for (const secret of [...Object.values(SECRETS), SET_COOKIE_SECRET]) {
      expect(r.stderr).not.toContain(secret);
      expect(r.stdout).not.toContain(secret);
    }
    for (const name of ['private-token', 'x-auth-token', 'api-key', 'x-vault-token'])
      expect(r.stderr.split('\n').filter((l) => l === `> ${name}: [REDACTED]`)).toHaveLength(2);
    expect(r.stderr).toContain('< set-cookie: [REDACTED]');
    expect(r.stderr).toContain('> if-none-match: "v0"');
    expect(r.stderr).toContain('< etag: "v1"');
    expect(r.stderr).toContain('following the redirect (HTTP 302)');
  });
});

describe('an answer with several Set-Cookie headers', () => {
  const run = (args: string[]) => runCli([...args, `${url}/cookies`], { env: { LANYARD_CONFIG_DIR: dir }, timeoutMs: 30_000 });

  it('--debug traces each one, redacted', async () => {
    const r = await run(['--debug', 'api']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr.split('\n').filter((l) => l === '< set-cookie: [REDACTED]')).toHaveLength(COOKIES.length);
    for (const c of COOKIES) expect(r.stderr).not.toContain(c.split(';')[0]!.split('=')[1]!);
  });

  it('-i prints each on its own line, in order, with the other headers and the body', async () => {
    const r = await run(['api', '-i']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('HTTP 200');
    expect(lines.filter((l) => l.startsWith('set-cookie: '))).toEqual(COOKIES.map((c) => `set-cookie: ${c}`));
    expect(lines).toContain('etag: "v2"');
    expect(JSON.parse(r.stdout.slice(r.stdout.indexOf('\n\n') + 2))).toEqual({ ok: 2 });
  });
});

describe('a credential header read with -H @FILE or -H @- (never in argv)', () => {
  it.each(['file', 'stdin'])('from %s: sent, traced by name only, the value nowhere on stderr', async (from) => {
    const secret = `glpat-e2e-from-${from}-0009`;
    const lines = `Private-Token: ${secret}\r\nX-Plain: visible\r\n`;
    const path = join(dir, `headers-${from}.txt`);
    await writeFile(path, lines);
    seen.length = 0;
    const r = await runCli(['--debug', 'api', `${url}/data`, '-H', from === 'file' ? `@${path}` : '@-'], {
      env: { LANYARD_CONFIG_DIR: dir },
      timeoutMs: 30_000,
      ...(from === 'stdin' ? { input: lines } : {}),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(seen[0]!['private-token']).toBe(secret);
    expect(seen[0]!['x-plain']).toBe('visible');
    expect(r.stderr).toContain('> private-token: [REDACTED]');
    expect(r.stderr).toContain('> x-plain: visible');
    expect(r.stderr + r.stdout).not.toContain(secret);
  });
});
