/**
 * Trust (issue 25): the emulator serves HTTPS with a certificate from a
 * private CA made by the test. Without the CA: one line saying what failed
 * and the setting that fixes it (exit 1); with LANYARD_CA_FILE or the profile
 * setting network.caFile: success. A name mismatch and a self-signed server
 * are named as such.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCert, startWorld, type World } from './harness.js';
import { privateCa } from './private-ca.js';

let dir: string;
let world: World;
let caFile: string;
let selfSigned: Server;
let selfSignedUrl: string;
let expired: Server;
let expiredUrl: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-trust-'));
  const ca = privateCa(dir);
  caFile = ca.caFile;
  const leaf = ca.issue('emulator', ['lanyard-emu.test']);
  world = await startWorld({ emulatorArgs: ['--tls-cert', leaf.cert, '--tls-key', leaf.key] });
  // The emulator's profile, under `localhost`: a name the certificate does not hold.
  const file = join(world.configDir, 'config.json');
  const config = JSON.parse(await readFile(file, 'utf8')) as { profiles: Record<string, Record<string, string>> };
  config.profiles.misnamed = Object.fromEntries(Object.entries(config.profiles.emulator!).map(([k, v]) => [k, v.replace('127.0.0.1', 'localhost')]));
  await writeFile(file, JSON.stringify(config));
  const own = selfSignedCert(dir);
  selfSigned = createServer({ cert: readFileSync(own.cert), key: readFileSync(own.key) }, (_req, res) => res.end('{}'));
  await new Promise<void>((r) => selfSigned.listen(0, '127.0.0.1', r));
  selfSignedUrl = `https://127.0.0.1:${(selfSigned.address() as AddressInfo).port}/x`;
  // A certificate of the trusted CA that expired in 2020.
  const old = ca.issueExpired('expired', ['lanyard-old.test']);
  expired = createServer({ cert: readFileSync(old.cert), key: readFileSync(old.key) }, (_req, res) => res.end('{}'));
  await new Promise<void>((r) => expired.listen(0, '127.0.0.1', r));
  expiredUrl = `https://127.0.0.1:${(expired.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  selfSigned?.close();
  expired?.close();
  await world?.stop();
  await rm(dir, { recursive: true, force: true });
});

const api = (args: string[], env: Record<string, string | undefined> = {}) => world.run(['--profile', 'emulator', 'api', ...args], { env });

describe('a private CA', () => {
  it('without it: unknown issuer, and the setting that fixes it, exit 1 (not retried)', async () => {
    const r = await api(['/rate_limit']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/TLS: the certificate of 127\.0\.0\.1:\d+ is signed by an unknown issuer \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/);
    expect(r.stderr).toContain('LANYARD_CA_FILE=/path/ca.pem');
    expect(r.stderr).toContain('network.caFile');
    expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
  });

  it('LANYARD_CA_FILE adds it to the default trust', async () => {
    const r = await api(['/rate_limit'], { LANYARD_CA_FILE: caFile });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty('resources');
  });

  it('the profile setting network.caFile does the same; a missing file is exit 2 naming it', async () => {
    await world.run(['--profile', 'emulator', 'config', 'set', 'network.caFile', caFile]);
    try {
      const r = await api(['/rate_limit']);
      expect(r.code, r.stderr).toBe(0);
    } finally {
      await world.run(['--profile', 'emulator', 'config', 'unset', 'network.caFile']);
    }
    const missing = await api(['/rate_limit'], { LANYARD_CA_FILE: join(dir, 'nope.pem') });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`LANYARD_CA_FILE: ${join(dir, 'nope.pem')} cannot be read (ENOENT)`);
  });

  it('a name the certificate does not hold: name mismatch, even with the CA trusted', async () => {
    const r = await world.run(['--profile', 'misnamed', 'api', '/rate_limit'], { env: { LANYARD_CA_FILE: caFile } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/TLS: the certificate of localhost:\d+ does not name this host \(name mismatch\)/);
  });

  it('a self-signed server is named as such', async () => {
    const r = await api([selfSignedUrl], { LANYARD_CA_FILE: caFile });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/is self-signed and not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT\)/);
  });

  it('an expired certificate (of a trusted CA): one line naming "expired" and what to do, exit 1; doctor says the same', async () => {
    const r = await api([`${expiredUrl}/x`], { LANYARD_CA_FILE: caFile });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/TLS: the certificate of 127\.0\.0\.1:\d+ has expired \(CERT_HAS_EXPIRED\)/);
    expect(r.stderr).toMatch(/renew its certificate; also check this machine's clock/);
    // The error and its fix (after the warning that the URL is not the profile's, so no credential goes to it).
    expect(
      r.stderr
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('! ')),
    ).toHaveLength(2);
    await world.run(['--profile', 'emulator', 'config', 'set', 'echo.baseUrl', expiredUrl]);
    try {
      const d = await world.run(['--profile', 'emulator', 'doctor', '--json'], { env: { LANYARD_CA_FILE: caFile } });
      expect(d.code).toBe(1);
      const echo = (JSON.parse(d.stdout) as { services: Array<{ service: string; checks: Array<Record<string, string>> }> }).services.find(
        (s) => s.service === 'echo',
      )!;
      expect(echo.checks[0]).toMatchObject({ name: 'endpoint', status: 'fail', problem: 'tls', summary: expect.stringContaining('has expired') });
      expect(echo.checks[0]!.fix).toMatch(/renew its certificate/);
    } finally {
      await world.run(['--profile', 'emulator', 'config', 'unset', 'echo.baseUrl']);
    }
  });

  it('LANYARD_SYSTEM_CA=1: the OS store where this Node has one, else one warning and the default trust', async () => {
    const r = await api(['/rate_limit'], { LANYARD_SYSTEM_CA: '1', LANYARD_CA_FILE: caFile });
    expect(r.code, r.stderr).toBe(0);
    const hasSystem = typeof ((await import('node:tls')) as { getCACertificates?: unknown }).getCACertificates === 'function';
    if (hasSystem) expect(r.stderr).not.toMatch(/cannot read the OS trust store/);
    else expect(r.stderr).toMatch(/cannot read the OS trust store \(Node 22\.15 or later can\)/);
  });
});
