/**
 * Fast CLI ↔ emulator smoke checks, with the Node version in the test
 * names (`.ci/run` runs the whole suite under Node 20 and again under 24).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, runCli, startWorld, type World } from './harness.js';

const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
let world: World;

beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world?.stop();
});

describe(`smoke (node ${process.version})`, () => {
  it('--version, --help and a usage error', async () => {
    const [v, h, bad] = await Promise.all([runCli(['--version']), runCli(['--help']), runCli(['no-such-command'])]);
    expect([v.code, v.stdout]).toEqual([0, `${version}\n`]);
    expect(h.code).toBe(0);
    for (const group of ['ratelimit', 'config', 'profile', 'emulator']) expect(h.stdout).toContain(`  ${group}`);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown command 'no-such-command'/);
  });

  it("the code cache: ours per command (group and subcommand), and Node's own beside it from Node 22 on", async () => {
    const cache = mkdtempSync(join(tmpdir(), 'lanyard-smoke-cache-'));
    try {
      for (let i = 0; i < 2; i++) {
        const r = await world.run(['--profile', 'emulator', 'config', 'set', 'mailbox.user', 'bob'], { env: { LANYARD_CACHE_DIR: cache } });
        expect(r.code, r.stderr).toBe(0);
      }
      const [dir] = readdirSync(join(cache, 'compile-cache'));
      expect(dir).toMatch(new RegExp(`^${process.version}-${process.arch}-[0-9a-f]{16}$`));
      expect(readdirSync(join(cache, 'compile-cache', dir!))).toEqual(['config.set.bin']);
      const major = Number(process.versions.node.split('.')[0]);
      expect(existsSync(join(cache, 'node-compile-cache'))).toBe(major >= 22);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it('ratelimit status --json against the emulator, with and without a token', async () => {
    const anon = await world.run(['--profile', 'emulator', 'ratelimit', 'status', '--json']);
    expect(anon.code).toBe(0);
    expect(JSON.parse(anon.stdout).resources.core.limit).toBe(60);
    const info = (await world.admin('info', undefined, 'GET')) as { hosting: { personalToken: string } };
    const user = await world.run(['--profile', 'emulator', 'ratelimit', 'status', '--resource', 'core', '--fail-under', '4000', '--json'], {
      env: { LANYARD_TOKEN: info.hosting.personalToken },
    });
    expect(user.code).toBe(0);
    expect(JSON.parse(user.stdout).resources.core.limit).toBe(5000);
  });

  it('budget exhausted → exit 3; a 502 is retried', async () => {
    await world.admin('hosting/budget', { anonymous: true, remaining: 0, resetInSeconds: 600 });
    const r = await world.run(['--profile', 'emulator', 'ratelimit', 'status', '--fail-under', '1']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/core has 0 requests left.*\(in 10m\)/);
    await world.admin('faults', { type: 'status', status: 502, path: '/api/v3/rate_limit', count: 1 });
    expect((await world.run(['--profile', 'emulator', 'ratelimit', 'status', '--json'])).code).toBe(0);
  });

  it('the library, imported from an ES module, loads the keychain binding without a warning (Node 23.6+ warns when an ES module imports an addon)', () => {
    const lib = pathToFileURL(join(ROOT, 'dist', 'lib', 'index.js')).href;
    const script = `import { startKeychainOpen } from ${JSON.stringify(lib)};
const r = await startKeychainOpen({ timeoutMs: 5000 }).result;
console.log(JSON.stringify({ ok: r.ok, reason: r.ok ? undefined : r.reason }));`;
    // No session bus to reach: the binding loads, its one search fails at once.
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: process.env.PATH, HOME: tmpdir(), DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/lanyard-bus' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout) as { ok: boolean; reason?: string };
    expect(out.ok).toBe(false);
    // The binding itself answered (it was loaded and called), not a failed load.
    expect(out.reason).not.toMatch(/could not be loaded/);
  });
});
