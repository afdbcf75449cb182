/**
 * Content-creating requests are paced across processes: separate `lanyard api
 * -X POST` runs count their admissions in one file beside the lock, so a shell
 * loop waits where the spec's 80 a minute would be exceeded. The file keys
 * them by credential (origin and digest, as the shared store does): another
 * token's bulk import never paces this one. A secondary limit's retry-after
 * met by one process holds the next. An admission counts from when its
 * answer came: a request that reached the server late (live clock, an
 * injected latency) does not let the next arrive within the window.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentialIdentity, pacingKey } from '../../src/core/http/pacing.js';
import { interruptOnEvent, startWorld, type World } from './harness.js';

describe('pacing across processes', () => {
  let world: World;
  let token: string;
  let state: string;
  /** The file's record of `token` at the emulator. */
  let key: string;
  beforeAll(async () => {
    world = await startWorld();
    token = ((await world.admin('info', undefined, 'GET')) as { hosting: { personalToken: string } }).hosting.personalToken;
    state = join(world.configDir, 'pacing.json');
    key = pacingKey({ origin: world.url, identity: await credentialIdentity(world.url, `Bearer ${token}`) });
  });
  afterAll(() => world.stop());

  const post = (name: string, o: Parameters<World['run']>[1] = {}) =>
    world.run(['--profile', 'emulator', 'api', '-X', 'POST', '/user/repos', '-f', `name=${name}`], {
      ...o,
      env: { CI: 'true', LANYARD_TOKEN: token, ...o.env },
    });
  const events = (stderr: string) =>
    stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  /** The names of the repositories the emulator holds (read over HTTP: a check, not a process of the test). */
  const repoNames = async () => {
    const res = await fetch(`${world.url}/api/v3/user/repos?per_page=100`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    return ((await res.json()) as Array<{ name: string }>).map((r) => r.name);
  };
  const admitted = async () => ((JSON.parse(await readFile(state, 'utf8')) as { admitted: Record<string, number[]> }).admitted[key] ?? []).length;

  it('a loop of separate processes records every admission in one 0600 file that holds no secret', async () => {
    for (const name of ['loop-1', 'loop-2', 'loop-3']) {
      const r = await post(name);
      expect(r.code, r.stderr).toBe(0);
      expect(events(r.stderr)).toEqual([]);
    }
    expect(await admitted()).toBe(3);
    expect((await stat(state)).mode & 0o777).toBe(0o600);
    const text = await readFile(state, 'utf8');
    expect(text).not.toContain(token);
    expect(Object.keys(JSON.parse(text).admitted)).toEqual([key]);
    expect(key).toMatch(/^http:\/\/127\.0\.0\.1:\d+:[0-9a-f]{32}$/);
  });

  it('waits when other processes used the minute, then sends', async () => {
    // 80 admissions by other processes, the oldest 59 s ago: this one waits about a second.
    const now = Date.now();
    await writeFile(state, JSON.stringify({ version: 1, admitted: { [key]: Array.from({ length: 80 }, (_, i) => now - 59_000 + i * 10) } }));
    const r = await post('after-wait');
    expect(r.code, r.stderr).toBe(0);
    const [e, ...more] = events(r.stderr);
    expect(more).toEqual([]);
    expect(e).toMatchObject({ event: 'pacing_wait', url: `${world.url}/api/v3/user/repos` });
    expect(e!.wait_ms as number).toBeGreaterThan(0);
    // The second left of the minute and the margin (1 s).
    expect(e!.wait_ms as number).toBeLessThanOrEqual(2000);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'after-wait' });
  });

  it('a full minute makes the next process wait, not send; Ctrl-C ends the wait with 130 and nothing admitted', async () => {
    const now = Date.now();
    await writeFile(state, JSON.stringify({ version: 1, admitted: { [key]: Array(80).fill(now) } }));
    const ctrlC = interruptOnEvent('pacing_wait');
    const r = await post('never-sent', { env: { CI: undefined, LANYARD_EVENTS: 'ndjson' }, onSpawn: ctrlC.onSpawn, timeoutMs: 30_000 });
    const seen = ctrlC.seen();
    expect(seen, r.stderr).toMatchObject({ event: 'pacing_wait' });
    expect(seen!.wait_ms as number).toBeGreaterThan(50_000);
    expect(r.code).toBe(130);
    expect(await admitted()).toBe(80);
    expect(await repoNames()).not.toContain('never-sent');
  });

  it('outside CI the wait is one line on stderr', async () => {
    const now = Date.now();
    await writeFile(state, JSON.stringify({ version: 1, admitted: { [key]: Array.from({ length: 80 }, () => now - 57_000) } }));
    const r = await post('told', { env: { CI: undefined } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(
      /pacing content-creating requests to http:\/\/127\.0\.0\.1:\d+ \(80 a minute, 500 an hour, counted across Lanyard processes\): waiting [1-4] s/,
    );
  });

  it("the profile's pacing.limits and pacing.margin, against the live clock: a wait past --max-wait fails at once with exit 3 and one line; within it, waited and said", async () => {
    const config = (...args: string[]) => world.run(['--profile', 'emulator', 'config', ...args]);
    // Put back as it was afterwards (the file itself: what the commands set is tested here, not `config unset`).
    const configFile = join(world.configDir, 'config.json');
    const saved = await readFile(configFile, 'utf8');
    expect((await config('set', 'pacing.limits', 'soon')).code).toBe(2);
    expect((await config('set', 'pacing.limits', '1/6s')).code).toBe(0);
    expect((await config('set', 'pacing.margin', '0')).code).toBe(0);
    try {
      const first = await post('bound-1');
      expect(first.code, first.stderr).toBe(0);
      const t0 = Date.now();
      // The window (6 s, no margin) has no room for about 6 s: more than --max-wait 1s.
      const refused = await post('bound-2', { env: { CI: undefined, LANYARD_RATE_LIMIT_MAX_WAIT: '1s' } });
      expect(refused.code, refused.stderr).toBe(3);
      expect(Date.now() - t0).toBeLessThan(5000);
      expect(refused.stderr).toMatch(
        /^content-creating requests to http:\/\/127\.0\.0\.1:\d+ are paced \(1 in 6 s\): the wait \([2-6] s\) exceeds the longest wait allowed \(1 s\); allow it with --max-wait [2-6]s\n$/,
      );
      // Within the bound: said (as a CI event line with its bound), waited on the live clock, then sent.
      const waited = await post('bound-3', { env: { LANYARD_RATE_LIMIT_MAX_WAIT: '20s' } });
      expect(waited.code, waited.stderr).toBe(0);
      expect(events(waited.stderr)).toEqual([expect.objectContaining({ event: 'pacing_wait', bound_ms: 20_000 })]);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(4000);
      const names = await repoNames();
      expect(names).not.toContain('bound-2');
      expect(names).toContain('bound-3');
    } finally {
      await writeFile(configFile, saved, { mode: 0o600 });
    }
  }, 60_000);
});
