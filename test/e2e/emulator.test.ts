/** The emulator host: start/stop, profile registration, TLS, admin verbs and faults, CLI ↔ emulator. */
import { describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, selfSignedCert, startCliEmulator } from './harness.js';
import { useEmulatorWorld } from './emulator-world.js';

const ref = useEmulatorWorld();
const run = ref.run;

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

  it('refuses a non-loopback host, a busy port and unreadable TLS files (exit 2)', async () => {
    for (const host of ['0.0.0.0', '10.0.0.1', '127.0.0', 'example.com'])
      expect(await ref.world.run(['emulator', 'start', '--host', host])).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/^--host must be a loopback address/),
      });
    const port = new URL(ref.world.url).port;
    const busy = await ref.world.run(['emulator', 'start', '--port', port, '--no-profile']);
    expect(busy.code).toBe(2);
    expect(busy.stderr).toMatch(new RegExp(`port ${port} on 127.0.0.1 is already in use`));
    const tls = await ref.world.run(['emulator', 'start', '--tls-cert', '/nonexistent.pem', '--tls-key', '/nonexistent.key']);
    expect([tls.code, tls.stderr]).toEqual([2, '--tls-cert: cannot read /nonexistent.pem\n']);
    expect((await ref.world.run(['emulator', 'start', '--tls-cert', '/etc/hostname'])).code).toBe(2);
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
      const both = await runCli(['emulator', 'start', '--tls', '--tls-cert', caFile, '--tls-key', caFile], { env });
      expect([both.code, both.stderr]).toEqual([2, '--tls makes its own certificate: give either --tls or --tls-cert and --tls-key\n']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('admin verbs as commands', () => {
  it('info --json lists the seeded users, apps and token; advance moves the clock; reset restores it', async () => {
    const info = JSON.parse((await ref.world.run(['emulator', 'info', '--json'])).stdout);
    expect(info.url).toBe(ref.world.url);
    expect(info.hosting.users[0]).toMatchObject({ login: 'mona', password: expect.any(String) });
    expect(info.hosting.personalToken).toMatch(/^lyp_/);
    const adv = await ref.world.run(['emulator', 'advance', '2h']);
    expect(adv.code).toBe(0);
    const later = JSON.parse((await ref.world.run(['emulator', 'info', '--json'])).stdout);
    expect(later.clockOffsetMs).toBe(7_200_000);
    await ref.world.run(['emulator', 'reset']);
    expect(JSON.parse((await ref.world.run(['emulator', 'info', '--json'])).stdout).clockOffsetMs).toBe(0);
    expect((await ref.world.run(['emulator', 'advance', 'soon'])).code).toBe(2);
    // --json: the new emulator time on stdout, nothing on stderr.
    const j = await ref.world.run(['emulator', 'advance', '90s', '--json']);
    expect(j.stderr).toBe('');
    expect(Date.parse(JSON.parse(j.stdout).now)).toBeGreaterThan(Date.now() + 80_000);
    await ref.world.run(['emulator', 'reset']);
  });

  it('budget, budgets, secondary and limits', async () => {
    const b = await ref.world.run(['emulator', 'budget', '--user', 'mona', '--remaining', '7', '--reset-in', '90s']);
    expect(b.code).toBe(0);
    expect(b.stdout).toMatch(/^user:mona\tcore\t5000\t4993\t7\t/);
    const list = JSON.parse((await ref.world.run(['emulator', 'budgets', '--json'])).stdout);
    expect(list.buckets).toContainEqual(expect.objectContaining({ caller: 'user:mona', remaining: 7 }));
    expect(list.seeded.length).toBeGreaterThanOrEqual(8);
    expect((await ref.world.run(['emulator', 'budget', '--user', 'mona', '--anonymous'])).code).toBe(2);
    const byToken = await ref.world.run(['emulator', 'budget', '--token-of', 'mona', '--remaining', '3', '--json']);
    expect(JSON.parse(byToken.stdout)).toMatchObject({ appliesTo: 'user:mona', buckets: [{ remaining: 3 }] });
    const unknown = await ref.world.run(['emulator', 'budget', '--user', 'ghost']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no user "ghost"/);
    const s = await ref.world.run(['emulator', 'secondary', '--count', '2', '--retry-after', '1s']);
    expect(s.stderr).toBe('Next 2 request(s) from any get a secondary rate limit (HTTP 403, retry-after 1)\n');
    expect((await ref.world.run(['emulator', 'secondary', '--status', '500'])).code).toBe(2);
    const l = await ref.world.run(['emulator', 'limits', '--content-per-minute', '3', '--json']);
    expect(JSON.parse(l.stdout).secondaryLimits.contentCreatingPerMinute).toBe(3);
  });
});

describe('faults, end to end', () => {
  it('a 502 on an idempotent request is retried', async () => {
    const added = await ref.world.run([
      'emulator',
      'fault',
      'add',
      '--type',
      'status',
      '--status',
      '502',
      '--path',
      '/api/v3/rate_limit',
      '--count',
      '1',
      '--json',
    ]);
    expect(added.code, added.stderr).toBe(0);
    const fault = JSON.parse(added.stdout);
    expect(fault).toMatchObject({ id: expect.any(Number), type: 'status', path: '/api/v3/rate_limit' });
    expect(JSON.parse((await ref.world.run(['emulator', 'fault', 'list'])).stdout).faults.map((f: { id: number }) => f.id)).toEqual([fault.id]);
    const r = await run(['ratelimit', 'status', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse((await ref.world.run(['emulator', 'fault', 'list'])).stdout).faults).toEqual([]);
  });

  it('a persistent 503 gives up after the bounded retries: exit 1, one line', async () => {
    await ref.world.admin('faults', { type: 'status', status: 503, path: '/api/v3/rate_limit', count: 10 });
    const r = await run(['ratelimit', 'status']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/api\/v3\/rate_limit failed: HTTP 503: Injected fault: HTTP 503\n$/);
    const left = (await ref.world.admin('faults', undefined, 'GET')) as { faults: Array<{ count: number }> };
    expect(left.faults[0]!.count).toBe(7); // 1 try + 2 retries
  });

  it('a connection reset is retried', async () => {
    await ref.world.admin('faults', { type: 'reset', path: '/api/v3/rate_limit', count: 1 });
    expect((await run(['ratelimit', 'status', '--json'])).code).toBe(0);
  });

  it('a truncated body is retried', async () => {
    await ref.world.admin('faults', { type: 'truncate', path: '/api/v3/rate_limit', count: 1 });
    const r = await run(['ratelimit', 'status', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).resources.core.limit).toBe(60);
    await ref.world.admin('faults', { type: 'truncate', path: '/api/v3/rate_limit' });
    const cut = await run(['ratelimit', 'status']);
    expect(cut.code).toBe(1);
    expect(cut.stderr).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/api\/v3\/rate_limit: connection closed before the whole body arrived\n$/);
    await ref.world.run(['emulator', 'fault', 'clear']);
  });

  it('persistent resets: exit 1 with "connection reset", no stack trace', async () => {
    await ref.world.admin('faults', { type: 'reset', path: '/api/v3/rate_limit' });
    const r = await run(['ratelimit', 'status']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/api\/v3\/rate_limit: (connection reset|other side closed)/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    await ref.world.run(['emulator', 'fault', 'clear']);
  });

  it('added latency delays the answer', async () => {
    await ref.world.run([
      'emulator',
      'fault',
      'add',
      '--type',
      'latency',
      '--latency',
      '1500ms',
      '--path',
      '/api/v3/rate_limit',
      '--method',
      'GET',
      '--count',
      '1',
    ]);
    const t0 = Date.now();
    expect((await run(['ratelimit', 'status', '--json'])).code).toBe(0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1500);
  });

  it('bad fault input is refused', async () => {
    const unknown = await ref.world.run(['emulator', 'fault', 'add', '--type', 'explode', '--path', '/x']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/latency, reset, status, truncate/);
    expect((await ref.world.run(['emulator', 'fault', 'add', '--type', 'status', '--status', '200', '--path', '/x'])).code).toBe(2);
  });
});
