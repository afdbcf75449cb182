/**
 * Chaos by rate: a fault applied to a share of the matching requests, the
 * draws seeded so that a run repeats; from the library, the admin API and
 * the CLI, next to the count-based faults.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from './harness.js';
import { useInProcessEmulator } from './in-process-emulator.js';

const ref = useInProcessEmulator();

/** Which of `n` calls of /rate_limit failed, as a string of 0 and 1. */
async function pattern(n: number): Promise<string> {
  let out = '';
  for (let i = 0; i < n; i++) {
    const r = await fetch(`${ref.emu.urls.hosting.api}/rate_limit`);
    await r.arrayBuffer();
    out += r.status === 503 ? '1' : '0';
  }
  return out;
}

describe('chaos by rate', () => {
  it('applies to about the share asked, the same requests again with the same seed, others with another', async () => {
    const f = ref.emu.fault({ type: 'status', status: 503, path: '/api/v3/rate_limit', rate: 0.3, seed: 7 });
    expect(f).toMatchObject({ rate: 0.3, seed: 7 });
    const first = await pattern(100);
    const hits = [...first].filter((c) => c === '1').length;
    expect(hits).toBeGreaterThan(15);
    expect(hits).toBeLessThan(45);
    ref.emu.clearFaults();
    ref.emu.fault({ type: 'status', status: 503, path: '/api/v3/rate_limit', rate: 0.3, seed: 7 });
    expect(await pattern(100)).toBe(first);
    ref.emu.clearFaults();
    ref.emu.fault({ type: 'status', status: 503, path: '/api/v3/rate_limit', rate: 0.3, seed: 8 });
    expect(await pattern(100)).not.toBe(first);
    // The journal tells which requests chaos hit.
    const hit = ref.emu.requests({ service: 'hosting' }).filter((e) => e.fault);
    expect(hit.length).toBeGreaterThan(0);
    expect(hit.every((e) => e.fault!.chaos === true && e.status === 503)).toBe(true);
  });

  it('with a count: the share, until that many were hit; latency by rate too', async () => {
    ref.emu.fault({ type: 'status', status: 503, path: '/api/v3/rate_limit', rate: 0.5, seed: 1, count: 3 });
    const p = await pattern(60);
    expect([...p].filter((c) => c === '1').length).toBe(3);
    ref.emu.clearFaults();
    ref.emu.fault({ type: 'latency', latencyMs: 1, path: '/api/v3/rate_limit', rate: 1, seed: 2 });
    expect(await pattern(5)).toBe('00000');
    expect(
      ref.emu
        .requests()
        .slice(-5)
        .every((e) => e.fault?.type === 'latency'),
    ).toBe(true);
  });

  it('the admin API chooses and reports a seed, and refuses a share outside (0, 1]', async () => {
    const post = (body: unknown) => fetch(`${ref.emu.urls.admin}/faults`, { method: 'POST', body: JSON.stringify(body) });
    const r = await post({ type: 'reset', path: '/api/v3/user', rate: 0.1 });
    expect(r.status).toBe(201);
    expect(((await r.json()) as { seed: unknown }).seed).toEqual(expect.any(Number));
    for (const rate of [0, 1.5, 'x']) expect((await post({ type: 'reset', path: '/x', rate })).status, String(rate)).toBe(400);
    expect((await post({ type: 'reset', path: '/x', seed: 3 })).status).toBe(400);
  });

  it('from the CLI: --rate 50% --seed 3', async () => {
    const r = await runCli([
      'emulator',
      'fault',
      'add',
      '--type',
      'status',
      '--path',
      '/api/v3/rate_limit',
      '--rate',
      '50%',
      '--seed',
      '3',
      '--json',
      '--url',
      ref.emu.url,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rate: 0.5, seed: 3, type: 'status' });
    const bad = await runCli(['emulator', 'fault', 'add', '--type', 'status', '--path', '/x', '--rate', '150%', '--url', ref.emu.url]);
    expect(bad.code).toBe(2);
    const seedAlone = await runCli(['emulator', 'fault', 'add', '--type', 'status', '--path', '/x', '--seed', '3', '--url', ref.emu.url]);
    expect(seedAlone.code).toBe(2);
  });
});
