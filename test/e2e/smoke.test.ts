/**
 * Fast CLI ↔ emulator smoke checks; `.ci/run` runs this file again under
 * Node 24 (the current Node's version is printed in the test names).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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

  it('ratelimit status --json against the emulator, with and without a token', async () => {
    const anon = await world.run(['--profile', 'emulator', 'ratelimit', 'status', '--json']);
    expect(anon.code).toBe(0);
    expect(JSON.parse(anon.stdout).resources.core.limit).toBe(60);
    const info = (await world.admin('info', undefined, 'GET')) as { hosting: { personalToken: string } };
    const user = await world.run(['--profile', 'emulator', 'ratelimit', 'status', '--resource', 'core', '--fail-under', '4000', '--json'], { env: { LANYARD_TOKEN: info.hosting.personalToken } });
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
});
