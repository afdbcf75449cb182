/**
 * `lanyard ratelimit status|wait` and the rate-limit policy, CLI ↔ emulator
 * over HTTP: the wiring (root options, profile, token from the environment),
 * the waits against the live clock and Ctrl-C. The command's behaviour
 * (shapes, usage errors, budget checks, refusals, the policy's bounds, the
 * primary limit through `api`) is tested on its run functions in
 * test/unit/cli/ratelimit/behaviour.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { useEmulatorWorld } from './emulator-world.js';

const ref = useEmulatorWorld();
const TOKEN = 'lyp_emulator_default_token_0000000000000001';
const run = ref.run;

describe('ratelimit status', () => {
  it("--json: every resource with {limit, used, remaining, reset}; the token's budget", async () => {
    const r = await run(['ratelimit', 'status', '--json'], { LANYARD_TOKEN: TOKEN });
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(Object.keys(j)).toEqual(['resources']);
    expect(j.resources.core).toMatchObject({ limit: 5000, used: 0, remaining: 5000 });
  });
});

describe('ratelimit wait', () => {
  it('blocks until the emulator resets the budget, then succeeds', async () => {
    await ref.world.admin('hosting/budget', { anonymous: true, remaining: 0, resetInSeconds: 2 });
    const t0 = Date.now();
    const r = await run(['ratelimit', 'wait']);
    expect(r.code).toBe(0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1500);
    expect(r.stderr).toMatch(/waiting for core budget: 0 left/);
    expect(r.stderr).toMatch(/core: 60 of 60 requests available/);
  });
});

describe('the rate-limit policy against the live clock', () => {
  it('secondary limit with retry-after and --wait: waits that long and succeeds', async () => {
    await ref.world.admin('hosting/secondary', { retryAfter: 2 });
    const t0 = Date.now();
    const r = await run(['--wait', 'ratelimit', 'status', '--json']);
    expect(r.code).toBe(0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1800);
    expect(r.stderr).toMatch(/secondary rate limit reached; waiting 2 s \(--wait\)/);
    expect(JSON.parse(r.stdout).resources.core.limit).toBe(60);
  });

  it('auth status under a secondary limit on GET /user (retry-after 30 s, even with --wait): answers at once by GET /rate_limit', async () => {
    await ref.world.admin('hosting/secondary', { retryAfter: 30 });
    const t0 = Date.now();
    const r = await run(['--wait', 'auth', 'status', '--json'], { LANYARD_TOKEN: TOKEN });
    expect(r.code, r.stderr).toBe(0);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(r.stderr).not.toMatch(/waiting/);
    expect(JSON.parse(r.stdout).accounts[0]).toMatchObject({ source: 'env:LANYARD_TOKEN', valid: true, state: 'valid' });
  });

  it('Ctrl-C during a rate-limit wait: exit 130 at once', async () => {
    await ref.world.admin('hosting/secondary', { retryAfter: 60 });
    const t0 = Date.now();
    const r = await ref.world.run(['--profile', 'emulator', '--wait', 'ratelimit', 'status'], {
      onSpawn: (child) => {
        child.stderr!.on('data', (c: Buffer) => {
          if (c.toString().includes('waiting')) child.kill('SIGINT');
        });
      },
    });
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/waiting 60 s \(--wait\)\nInterrupted\n$/);
    expect(Date.now() - t0).toBeLessThan(15_000);
  });
});
