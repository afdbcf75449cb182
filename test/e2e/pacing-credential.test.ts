/**
 * Pacing through the config directory's file, as a shell loop and a CI job
 * sharing one meet it, against the emulator and the live clock:
 * - admissions are the credential's (origin and digest, as the shared store
 *   keys them): one token's writes never pace another token's;
 * - a secondary limit's retry-after met by one process holds the next one
 *   of that credential (a GET too): past the bound it exits 3 at once,
 *   nothing sent; within it, it waits on the live clock and then sends;
 * - an admission counts from when its answer came: a write that reached the
 *   server late (an injected latency) does not let the next process's
 *   arrive within the server's window.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventLines, type runCli, startWorld, type World } from './harness.js';

let world: World;
let mona: string;
const tokens: Record<string, string> = {};
beforeAll(async () => {
  world = await startWorld();
  mona = ((await world.admin('info', undefined, 'GET')) as { hosting: { personalToken: string } }).hosting.personalToken;
  for (const login of ['alice', 'bea', 'carol']) {
    await world.admin('hosting/add-user', { login, password: `p-${login}-password` });
    tokens[login] = (
      (await world.admin('hosting/issue-token', { login, clientId: 'lanyard-cli-emulator', scopes: ['repo'] })) as { access_token: string }
    ).access_token;
  }
}, 60_000);
afterAll(() => world?.stop());

type Env = Record<string, string | undefined>;
const run = (token: string, args: string[], env: Env = {}, o: Parameters<typeof runCli>[1] = {}) =>
  world.run(['--profile', 'emulator', 'api', ...args], { timeoutMs: 40_000, ...o, env: { CI: 'true', LANYARD_TOKEN: token, ...env } });
const createRepo = (token: string, name: string, env: Env = {}, o: Parameters<typeof runCli>[1] = {}) =>
  run(token, ['-X', 'POST', '/user/repos', '-f', `name=${name}`, '--silent'], env, o);
/** What the emulator answered to `method path` since the journal entry `since`, in order, with when each arrived. */
const journal = async (method: string, path: string, since = 0) =>
  (
    (await world.admin(`requests?since=${since}`, undefined, 'GET')) as {
      requests: Array<{ seq: number; method: string; path: string; status: number; time: string }>;
    }
  ).requests
    .filter((r) => r.method === method && r.path === path)
    .map((r) => ({ status: r.status, at: Date.parse(r.time), seq: r.seq }));
const lastSeq = async () => ((await world.admin('requests', undefined, 'GET')) as { last: number }).last;

describe('pacing shared through the config directory', () => {
  it("one token's bulk writes do not pace another token's (exit 0, sent); the same token's next write is paced (exit 3 past --max-wait)", async () => {
    const env = { LANYARD_PACING_LIMITS: '2/1m,500/1h' };
    for (const n of [1, 2]) {
      const r = await createRepo(mona, `mona-${n}`, env);
      expect(r.code, r.stderr).toBe(0);
    }
    const paced = await createRepo(mona, 'mona-3', { ...env, LANYARD_RATE_LIMIT_MAX_WAIT: '0' });
    expect(paced.code, paced.stderr).toBe(3);
    expect(paced.stderr).toMatch(/are paced \(2 a minute, 500 an hour\)/);
    const other = await createRepo(tokens.alice!, 'alice-1', { ...env, LANYARD_RATE_LIMIT_MAX_WAIT: '0' });
    expect(other.code, other.stderr).toBe(0);
    // The file holds digests, never a token.
    const text = await readFile(join(world.configDir, 'pacing.json'), 'utf8');
    for (const t of [mona, tokens.alice!]) expect(text).not.toContain(t);
    expect(Object.keys(JSON.parse(text).admitted)).toHaveLength(2);
  });

  it("a secondary limit's retry-after holds the next process of that credential: past the bound exit 3 at once, nothing sent", async () => {
    const since = await lastSeq();
    await world.admin('hosting/secondary', { login: 'bea', count: 1, retryAfter: 600 });
    const first = await run(tokens.bea!, ['/user']);
    expect(first.code, first.stderr).toBe(3);
    expect(first.stderr).toMatch(/secondary rate limit/);
    for (const args of [['/user'], ['-X', 'POST', '/user/repos', '-f', 'name=bea-held']]) {
      const t0 = Date.now();
      const next = await run(tokens.bea!, args);
      expect(next.code, next.stderr).toBe(3);
      expect(Date.now() - t0).toBeLessThan(15_000);
      expect(next.stderr).toMatch(
        /^requests to http:\/\/127\.0\.0\.1:\d+ are held by the Lanyard processes pacing with this credential \([^)]+\): the wait \((9|10) min\) exceeds the longest wait allowed \(60 s\); allow it with --max-wait/,
      );
    }
    // One request reached the server: the first.
    expect((await journal('GET', '/api/v3/user', since)).map((r) => r.status)).toEqual([403]);
    expect(await journal('POST', '/api/v3/user/repos', since)).toEqual([]);
  });

  it('within the bound the next process waits the hold out on the live clock, then sends once', async () => {
    const since = await lastSeq();
    await world.admin('hosting/secondary', { login: 'carol', count: 1, retryAfter: 3 });
    // This one may not wait at all: refused, it leaves the hold behind.
    const first = await run(tokens.carol!, ['/user'], { LANYARD_RATE_LIMIT_MAX_WAIT: '0' });
    expect(first.code, first.stderr).toBe(3);
    const next = await run(tokens.carol!, ['/user']);
    expect(next.code, next.stderr).toBe(0);
    const [e, ...more] = eventLines(next.stderr);
    expect(more).toEqual([]);
    expect(e).toMatchObject({ event: 'pacing_wait' });
    expect(e!.wait_ms as number).toBeLessThanOrEqual(3000);
    const seen = await journal('GET', '/api/v3/user', since);
    expect(seen.map((r) => r.status)).toEqual([403, 200]);
    // Sent after the retry-after, counted from the refusal (the journal's times are the server's, to the ms).
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(2900);
  }, 60_000);

  it("a write that reached the server late: the next process's is admitted a window after the answer, not the admission, and is not refused", async () => {
    // The server's window: 1 content-creating request in 2 s; Lanyard told the same, without a margin.
    await world.admin('hosting/limits', { contentCreatingPerMinute: 1, contentCreatingWindowSeconds: 2 });
    const env = { LANYARD_PACING_LIMITS: '1/2s,500/1h', LANYARD_PACING_MARGIN: '0' };
    const since = await lastSeq();
    // The first write reaches the server's limits 1.5 s after it was sent (a slow network, a loaded runner).
    await world.admin('faults', { type: 'latency', latencyMs: 1500, method: 'POST', path: '/api/v3/user/repos', count: 1 });
    try {
      const first = createRepo(mona, 'late-1', env);
      // The second process starts once the first is admitted (its record in the file).
      const file = join(world.configDir, 'pacing.json');
      const admittedAt = async () => {
        const times = Object.values((JSON.parse(await readFile(file, 'utf8').catch(() => '{}')) as { admitted?: Record<string, number[]> }).admitted ?? {});
        return times.flat().filter((t) => t > Date.now() - 10_000);
      };
      for (let i = 0; i < 200 && (await admittedAt()).length === 0; i++) await new Promise((r) => setTimeout(r, 25));
      const second = createRepo(mona, 'late-2', env);
      const [a, b] = await Promise.all([first, second]);
      expect(a.code, a.stderr).toBe(0);
      expect(b.code, b.stderr).toBe(0);
      // Neither was refused, and no wait was for a secondary limit.
      expect((await journal('POST', '/api/v3/user/repos', since)).map((r) => r.status)).toEqual([201, 201]);
      expect([...eventLines(a.stderr), ...eventLines(b.stderr)].filter((e) => e.event === 'rate_limit_wait')).toEqual([]);
    } finally {
      await world.admin('hosting/limits', { contentCreatingPerMinute: 80, contentCreatingWindowSeconds: 60 });
      await world.admin('faults', undefined, 'DELETE');
    }
  }, 60_000);
});
