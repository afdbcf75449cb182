/**
 * The protocol flow against an HTTPS emulator (self-signed certificate for
 * 127.0.0.1/localhost made with openssl, trusted via NODE_EXTRA_CA_CERTS),
 * and the HTTPS rule for endpoints on other hosts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';
import { newClient } from './protocol-helpers.js';

let w: World;
let dir: string;
let agent: Agent;

async function admin(path: string, body: unknown): Promise<unknown> {
  const res = await undiciFetch(`${w.url}/_emulator/${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
    dispatcher: agent,
  });
  return res.json();
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-tls-'));
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
    ],
    { stdio: 'ignore' },
  );
  agent = new Agent({ connect: { ca: await readFile(cert, 'utf8') } });
  w = await startWorld({ emulatorArgs: ['--tls-cert', cert, '--tls-key', key], env: { NODE_EXTRA_CA_CERTS: cert } });
});
afterAll(async () => {
  await w?.stop();
  await agent?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('HTTPS authorization server', () => {
  it('signs in and calls the server over HTTPS', async () => {
    expect(w.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const c = await newClient('allow');
    const r = await w.run(['protocol', 'request', `${w.url}/mcp`, '--method', 'tools/list', '--json'], { env: c.env() });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).result.tools).toHaveLength(3);
    const [url] = await c.urls();
    expect(url!.startsWith(`${w.url}/authorize?`)).toBe(true);
    const stats = (await admin('protocol/stats', {})) as { pkceVerified: number; metadataRequests: unknown[] };
    expect(stats.pkceVerified).toBe(1);
  });

  it('accepts HTTPS endpoints on another host (the refusal is only for plain HTTP)', async () => {
    await admin('reset', {});
    await admin('protocol/configure', { endpointOrigin: 'https://tools.example.invalid:9' });
    const c = await newClient('allow');
    const r = await w.run(['protocol', 'request', `${w.url}/mcp`], { env: c.env() });
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/refusing/);
    expect(r.stderr).toMatch(/tools\.example\.invalid/);
    await admin('protocol/configure', { endpointOrigin: 'http://tools.example.invalid:9' });
    const refused = await w.run(['protocol', 'request', `${w.url}/mcp`], { env: c.env() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/refusing the authorization endpoint http:\/\/tools\.example\.invalid:9\/authorize: authorization endpoints must use HTTPS/);
  });
});
