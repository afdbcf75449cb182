/**
 * In CI: one JSON line per retry on stderr, reported by the HTTP port the
 * program builds (the wiring). ratelimit's wait events and step summaries are
 * tested as run functions in test/unit/cli/ratelimit/ci-events.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';

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
