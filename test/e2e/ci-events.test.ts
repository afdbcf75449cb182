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

describe('CI events for retries', () => {
  let world: World;
  let token: string;
  beforeAll(async () => {
    world = await startWorld();
    token = ((await world.admin('info', undefined, 'GET')) as { hosting: { personalToken: string } }).hosting.personalToken;
  });
  afterAll(() => world.stop());

  it('api: one retry line per retried answer, with the reason, the attempt and the URL without its query', async () => {
    await world.admin('faults', { type: 'status', status: 502, path: '/api/v3/user', count: 2 });
    const r = await world.run(['--profile', 'emulator', 'api', '/user?probe=secret-ish'], { env: { CI: 'true', LANYARD_TOKEN: token } });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ login: 'mona' });
    const events = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.map((e) => [e.event, e.reason, e.attempt])).toEqual([
      ['retry', 'HTTP 502', 1],
      ['retry', 'HTTP 502', 2],
    ]);
    for (const e of events) {
      expect(e.url).toBe(`${world.url}/api/v3/user`);
      expect(typeof e.wait_ms).toBe('number');
      expect(Number.isNaN(Date.parse(String(e.time)))).toBe(false);
    }
    expect(r.stderr).not.toContain(token);
  });

  it('api: no event lines outside CI, and none with LANYARD_EVENTS=off in CI', async () => {
    for (const env of [{ CI: undefined }, { CI: 'true', LANYARD_EVENTS: 'off' }]) {
      await world.admin('faults', { type: 'status', status: 503, path: '/api/v3/user', count: 1 });
      const r = await world.run(['--profile', 'emulator', 'api', '/user'], { env: { ...env, LANYARD_TOKEN: token } });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/^\{/m);
    }
  });
});
