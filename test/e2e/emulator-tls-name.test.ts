/**
 * `lanyard emulator start --tls --public-host NAME`: the self-signed
 * certificate covers NAME, so the documented setup — the emulator reached by
 * a name only a proxy resolves, over TLS — verifies: openssl shows NAME in
 * the subjectAltName, a TLS connection with server name NAME verifies against
 * the CA file, and `lanyard api` through a real squid (CONNECT to NAME)
 * succeeds. A certificate kept in the data directory from a start without
 * NAME is made again.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERSONAL_TOKEN } from './auth-helpers.js';
import { runCli, startCliEmulator } from './harness.js';
import { startSquid, type Squid } from './squid.js';

const NAME = 'emu-name.test';
let dir: string;
let squidDir: string;
let squid: Squid;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-tls-name-'));
  squidDir = await mkdtemp(join(tmpdir(), 'lanyard-squid-'));
  squid = await startSquid(squidDir, { users: { alice: 'pr0xy-pass' }, hosts: [NAME] });
}, 30_000);
afterAll(async () => {
  await squid?.stop();
  await rm(dir, { recursive: true, force: true });
  if (squidDir) await rm(squidDir, { recursive: true, force: true });
});

/** A TLS handshake with 127.0.0.1:port as NAME, trusting only `ca`: whether it verified, or why not. */
function handshake(port: number, ca: string): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port, servername: NAME, ca }, () => {
      resolve(s.authorized ? 'verified' : String(s.authorizationError));
      s.end();
    });
    s.once('error', (err) => resolve(err.message));
  });
}

describe('emulator start --tls --public-host NAME', () => {
  it('serves a certificate for NAME (made again over one kept without it): openssl, a TLS handshake as NAME, and api through squid', async () => {
    const env = { LANYARD_CONFIG_DIR: join(dir, 'config') };
    const data = join(dir, 'data');
    const caFile = join(data, 'emulator-ca.pem');
    // A first start without the name leaves a certificate for loopback only.
    const before = await startCliEmulator(['--port', '0', '--tls', '--data-dir', data, '-q'], env);
    expect(await before.stop('SIGTERM')).toBe(0);
    const emu = await startCliEmulator(['--port', '0', '--tls', '--data-dir', data, '--public-host', NAME, '-q'], env);
    try {
      expect(emu.first).toMatch(new RegExp(`^Emulator listening on https://${NAME.replace(/\./g, '\\.')}:\\d+$`));
      expect(emu.stderr()).toContain(`HTTPS with a self-signed certificate (new): ${caFile}\n`);
      const port = Number(new URL(emu.first.split(' ').pop()!).port);
      const san = execFileSync('openssl', ['x509', '-in', caFile, '-noout', '-ext', 'subjectAltName'], { encoding: 'utf8' });
      expect(san).toContain(`DNS:${NAME}`);
      expect(san).toContain('IP Address:127.0.0.1');
      const ca = await readFile(caFile, 'utf8');
      expect(await handshake(port, ca)).toBe('verified');
      const r = await runCli(['--profile', 'emulator', 'api', '/user'], {
        env: { ...env, LANYARD_CA_FILE: caFile, HTTPS_PROXY: squid.url(), LANYARD_TOKEN: PERSONAL_TOKEN },
      });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout).login).toBeTruthy();
      expect(await squid.accessLog()).toContain(`CONNECT ${NAME}:${port}`);
    } finally {
      expect(await emu.stop('SIGTERM')).toBe(0);
    }
  });
});
