/** In CI: one JSON line per rate-limit wait or retry on stderr, and a markdown step summary. */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';

describe('CI events and step summaries', () => {
  let world: World;
  let dir: string;
  beforeAll(async () => {
    world = await startWorld();
    dir = await mkdtemp(join(tmpdir(), 'lanyard-ci-'));
  });
  afterAll(async () => {
    await world.stop();
    await rm(dir, { recursive: true, force: true });
  });
  const ci = (summary: string) => ({ CI: 'true', GITHUB_STEP_SUMMARY: summary });

  it('ratelimit wait: one rate_limit_wait line per wait, then a summary line', async () => {
    await world.admin('hosting/budget', { anonymous: true, remaining: 0, resetInSeconds: 6 });
    const summary = join(dir, 'wait.md');
    const r = await world.run(['--profile', 'emulator', 'ratelimit', 'wait'], { env: ci(summary) });
    expect(r.code, r.stderr).toBe(0);
    const events = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.length).toBeGreaterThanOrEqual(1);
    expect(events[0]).toMatchObject({ event: 'rate_limit_wait', kind: 'budget', resource: 'core', remaining: 0 });
    expect(typeof events[0]!.wait_ms).toBe('number');
    expect(r.stderr).not.toMatch(/waiting for core budget/);
    expect(await readFile(summary, 'utf8')).toMatch(/^\*\*ratelimit wait\*\*: core has \d+ of \d+ requests available/);
  });

  it('ratelimit status: a markdown table appended to the step summary; no events without CI', async () => {
    const summary = join(dir, 'status.md');
    const r = await world.run(['--profile', 'emulator', 'ratelimit', 'status', '--json'], { env: ci(summary) });
    expect(r.code, r.stderr).toBe(0);
    const md = await readFile(summary, 'utf8');
    expect(md).toContain('| resource | limit | used | remaining | resets (UTC) |');
    expect(md).toMatch(/\| core \| \d+ \| \d+ \| \d+ \|/);
    await world.admin('hosting/budget', { anonymous: true, remaining: 0, resetInSeconds: 2 });
    const plain = await world.run(['--profile', 'emulator', 'ratelimit', 'wait'], { env: { CI: undefined } });
    expect(plain.stderr).not.toMatch(/^\{/m);
  });
});
