/**
 * The emulator host as a process: start/stop, profile registration, signals,
 * TLS, and the --type choices of `emulator fault add`. The admin verbs as
 * commands, the start command's refusals and what faults do to a command are
 * tested on the run functions in test/unit/cli/emulator/commands.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, selfSignedCert, startCliEmulator } from './harness.js';
import { useEmulatorWorld } from './emulator-world.js';

const ref = useEmulatorWorld();

/** `lanyard emulator start --port 0 ARGS` by hand. */
const spawnEmulator = (args: string[], env: Record<string, string>, o?: { readyOn?: RegExp }) => startCliEmulator(['--port', '0', ...args], env, o);

describe('lifecycle', () => {
  it('first line, the "emulator" profile, and a graceful exit 0 on SIGTERM and SIGINT', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lanyard-emu-'));
    try {
      for (const signal of ['SIGTERM', 'SIGINT'] as const) {
        const emu = await spawnEmulator([], { LANYARD_CONFIG_DIR: dir });
        expect(emu.first).toMatch(/^Emulator listening on http:\/\/127\.0\.0\.1:\d+$/);
        const url = emu.first.split(' ').pop()!;
        const profiles = JSON.parse((await runCli(['profile', 'list', '--json'], { env: { LANYARD_CONFIG_DIR: dir } })).stdout);
        const p = profiles.profiles.find((x: { name: string }) => x.name === 'emulator');
        expect(p.settings).toMatchObject({ 'hosting.webUrl': url, 'hosting.apiUrl': `${url}/api/v3` });
        // A keep-alive client connection must not hold the shutdown up.
        await fetch(`${url}/api/v3/rate_limit`);
        const t0 = Date.now();
        expect(await emu.stop(signal)).toBe(0);
        expect(Date.now() - t0).toBeLessThan(5000);
        expect(emu.stderr()).toMatch(/Shutting down the emulator/);
        expect(emu.stderr()).not.toMatch(/\n\s+at /);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the "emulator" profile is written before the first line: a script that waits for it finds the new URL', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lanyard-emu-'));
    try {
      for (let round = 0; round < 2; round++) {
        // Not waiting for the stderr notice (readyOn matches at once): what a script sees after the first line.
        const emu = await spawnEmulator(['-q'], { LANYARD_CONFIG_DIR: dir }, { readyOn: /(?:)/ });
        const config = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')) as { profiles: Record<string, Record<string, string>> };
        const url = emu.first.split(' ').pop()!;
        expect(config.profiles.emulator?.['hosting.webUrl'], `round ${round}`).toBe(url);
        expect(await emu.stop('SIGTERM')).toBe(0);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('two emulators on one config directory: the second hands the profile back to the first when it stops, not when the first is gone', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lanyard-emu-'));
    const webUrl = async () =>
      (JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')) as { profiles: Record<string, Record<string, string>> }).profiles.emulator?.[
        'hosting.webUrl'
      ];
    try {
      const first = await spawnEmulator(['-q'], { LANYARD_CONFIG_DIR: dir });
      const firstUrl = first.first.split(' ').pop()!;
      const second = await spawnEmulator(['-q'], { LANYARD_CONFIG_DIR: dir });
      const secondUrl = second.first.split(' ').pop()!;
      expect(await webUrl()).toBe(secondUrl);
      expect(await second.stop('SIGTERM')).toBe(0);
      expect(await webUrl()).toBe(firstUrl);
      expect(second.stderr()).toContain(`Profile "emulator" points at ${firstUrl} again`);
      const r = await runCli(['--profile', 'emulator', 'ratelimit', 'status', '--json'], { env: { LANYARD_CONFIG_DIR: dir } });
      expect(r.code, r.stderr).toBe(0);
      // The first gone before the second stops: nothing to hand back to.
      const third = await spawnEmulator(['-q'], { LANYARD_CONFIG_DIR: dir });
      const thirdUrl = third.first.split(' ').pop()!;
      expect(await first.stop('SIGTERM')).toBe(0);
      expect(await third.stop('SIGTERM')).toBe(0);
      expect(await webUrl()).toBe(thirdUrl);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('serves HTTPS with --tls-cert/--tls-key; the CLI trusts the CA through NODE_EXTRA_CA_CERTS', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lanyard-tls-'));
    try {
      const { cert, key } = selfSignedCert(dir);
      const env = { LANYARD_CONFIG_DIR: dir };
      const emu = await spawnEmulator(['--tls-cert', cert, '--tls-key', key, '-q'], env);
      try {
        expect(emu.first).toMatch(/^Emulator listening on https:\/\/127\.0\.0\.1:\d+$/);
        const trusted = await runCli(['--profile', 'emulator', 'ratelimit', 'status', '--json'], { env: { ...env, NODE_EXTRA_CA_CERTS: cert } });
        expect(trusted.code).toBe(0);
        expect(JSON.parse(trusted.stdout).resources.core.limit).toBe(60);
        const untrusted = await runCli(['--profile', 'emulator', 'ratelimit', 'status'], { env });
        expect(untrusted.code).toBe(1);
        // One line naming what failed, then the hint naming the setting that fixes it (docs/networks.md).
        const [line, hint, ...rest] = untrusted.stderr.trim().split('\n');
        expect(line).toMatch(/^TLS: the certificate of 127\.0\.0\.1:\d+ is self-signed and not trusted/);
        expect(hint).toMatch(/LANYARD_CA_FILE/);
        expect(rest).toEqual([]);
      } finally {
        await emu.stop('SIGTERM');
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
  it('--tls makes a self-signed certificate, says which file to trust, and keeps it across restarts on one --data-dir', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lanyard-tls-self-'));
    try {
      const env = { LANYARD_CONFIG_DIR: join(dir, 'config') };
      const data = join(dir, 'data');
      const caFile = join(data, 'emulator-ca.pem');
      // Another address of 127.0.0.0/8 (as gh needs, on port 443): the certificate covers it.
      const first = await spawnEmulator(['--tls', '--data-dir', data, '--host', '127.0.0.9', '-q'], env);
      let ca: string;
      try {
        expect(first.first).toMatch(/^Emulator listening on https:\/\/127\.0\.0\.9:\d+$/);
        expect(first.stderr()).toContain(`HTTPS with a self-signed certificate (new): ${caFile}\n`);
        expect(first.stderr()).toContain(`NODE_EXTRA_CA_CERTS=${caFile}`);
        ca = await readFile(caFile, 'utf8');
        expect((await stat(join(data, 'emulator-tls-key.pem'))).mode & 0o777).toBe(0o600);
        const trusted = await runCli(['--profile', 'emulator', 'ratelimit', 'status', '--json'], { env: { ...env, NODE_EXTRA_CA_CERTS: caFile } });
        expect(trusted.code, trusted.stderr).toBe(0);
        expect(JSON.parse(trusted.stdout).resources.core.limit).toBe(60);
        expect((await runCli(['--profile', 'emulator', 'ratelimit', 'status'], { env })).code).toBe(1);
      } finally {
        expect(await first.stop('SIGINT')).toBe(0);
      }
      const second = await spawnEmulator(['--tls', '--data-dir', data, '--host', '127.0.0.9', '-q'], env);
      try {
        expect(second.stderr()).toContain(`HTTPS with a self-signed certificate (kept from the last start): ${caFile}\n`);
        expect(await readFile(caFile, 'utf8')).toBe(ca);
        const again = await runCli(['--profile', 'emulator', 'ratelimit', 'status', '--json'], { env: { ...env, NODE_EXTRA_CA_CERTS: caFile } });
        expect(again.code, again.stderr).toBe(0);
      } finally {
        expect(await second.stop('SIGTERM')).toBe(0);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('faults: the command line', () => {
  it('bad fault input is refused (the --type choices)', async () => {
    const unknown = await ref.world.run(['emulator', 'fault', 'add', '--type', 'explode', '--path', '/x']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/latency, reset, status, truncate/);
    expect((await ref.world.run(['emulator', 'fault', 'add', '--type', 'status', '--status', '200', '--path', '/x'])).code).toBe(2);
  });
});
