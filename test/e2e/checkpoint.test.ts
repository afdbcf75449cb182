/**
 * `--checkpoint FILE` end to end: a paginated run stopped by a rate limit,
 * Ctrl-C or SIGKILL between pages, then resumed, prints exactly what one
 * uninterrupted run prints; a checkpoint of another run or a corrupt one is an
 * exit 2 that leaves the file as it was.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CliResult, startWorld, type World } from './harness.js';

describe('--checkpoint: resumable pagination', () => {
  let world: World;
  let token: string;
  let dir: string;
  let file: string;
  let n = 0;
  const REPOS = ['/user/repos?per_page=2', '--paginate', '--ndjson'];
  const MAILBOX = ['mailbox', 'list', '--all', '--ndjson', '--count', '1', '--metadata'];
  const api = (args: string[], o: Parameters<World['run']>[1] = {}) =>
    world.run(['--profile', 'emulator', 'api', ...args], { ...o, env: { LANYARD_TOKEN: token, ...o.env } });
  const lanyard = (args: string[], o: Parameters<World['run']>[1] = {}) => world.run(['--profile', 'emulator', ...args], o);
  const saved = () => JSON.parse(readFileSync(file, 'utf8')) as { position: { emitted: number; next?: string }; completedAt?: string };

  /** Runs until the checkpoint has recorded `items`, then sends `signal` while the next page is being fetched (every request is slowed). */
  async function interrupted(
    run: (o: Parameters<World['run']>[1]) => Promise<CliResult>,
    path: string,
    items: number,
    signal: NodeJS.Signals,
  ): Promise<CliResult> {
    await world.admin('faults', { type: 'latency', path, latencyMs: 1500 });
    let child: ChildProcess | undefined;
    const result = run({ onSpawn: (c) => (child = c) });
    try {
      for (let i = 0; i < 400; i++) {
        if (existsSync(file) && saved().position.emitted >= items) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(saved().position.emitted).toBe(items);
      child!.kill(signal);
      return await result;
    } finally {
      await world.admin('faults', undefined, 'DELETE');
    }
  }

  beforeAll(async () => {
    world = await startWorld();
    const info = (await world.admin('info', undefined, 'GET')) as { hosting: { personalToken: string } };
    token = info.hosting.personalToken;
    for (let i = 0; i < 7; i++) expect((await api(['-X', 'POST', '/user/repos', '-f', `name=ckpt-${i}`])).code).toBe(0);
    for (let i = 0; i < 4; i++) {
      const r = await lanyard(['mailbox', 'store', '-'], {
        input: `From: a@example.com\r\nTo: b@example.com\r\nSubject: checkpoint ${i}\r\n\r\nbody ${i}\r\n`,
      });
      expect(r.code, r.stderr).toBe(0);
    }
  });
  afterAll(() => world.stop());
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lanyard-ckpt-'));
    file = join(dir, `run-${++n}.checkpoint`);
    return () => rm(dir, { recursive: true, force: true });
  });

  it('stopped by the rate limit (exit 3), resumed after the reset: the joined output equals one uninterrupted run', async () => {
    const whole = await api(REPOS);
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stdout.trim().split('\n').length).toBeGreaterThan(6);
    await world.admin('hosting/budget', { login: 'mona', remaining: 2, resetInSeconds: 1800 });
    const first = await api([...REPOS, '--checkpoint', file]);
    expect(first.code, first.stderr).toBe(3);
    expect(first.stdout.trim().split('\n')).toHaveLength(4);
    expect(saved().position).toMatchObject({ emitted: 4, next: expect.stringContaining('page=3') });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).not.toContain(token);
    await world.admin('advance', { ms: 1_900_000 });
    const rest = await api([...REPOS, '--checkpoint', file]);
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stderr).toMatch(/resuming after 4 items/);
    expect(first.stdout + rest.stdout).toBe(whole.stdout);
    expect(saved().completedAt).toBeTruthy();
    // Run again once complete: nothing printed, and it says why.
    const again = await api([...REPOS, '--checkpoint', file]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(/completed at .* \(\d+ items\); nothing more to print/);
  });

  it('Ctrl-C between pages (exit 130) and SIGKILL between pages leave a checkpoint that resumes exactly', async () => {
    const whole = await api(REPOS);
    const a = await interrupted((o) => api([...REPOS, '--checkpoint', file], o), '/api/v3/user/repos', 2, 'SIGINT');
    expect(a.code, a.stderr).toBe(130);
    const b = await interrupted((o) => api([...REPOS, '--checkpoint', file], o), '/api/v3/user/repos', 4, 'SIGKILL');
    expect(b.signal).toBe('SIGKILL');
    const c = await api([...REPOS, '--checkpoint', file]);
    expect(c.code, c.stderr).toBe(0);
    expect(a.stdout + b.stdout + c.stdout).toBe(whole.stdout);
  });

  it('an HTTP error on a later page: exit 1, no error body mixed into the listing; api --service mailbox resumes after Ctrl-C', async () => {
    const whole = await api(REPOS);
    // Pages 1 and 2 answer (slowly), page 3 is a 404.
    await world.admin('faults', { type: 'latency', path: '/api/v3/user/repos', latencyMs: 1, count: 2 });
    await world.admin('faults', { type: 'status', path: '/api/v3/user/repos', status: 404 });
    const first = await api([...REPOS, '--checkpoint', file]);
    await world.admin('faults', undefined, 'DELETE');
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toMatch(/404/);
    expect(first.stdout.trim().split('\n')).toHaveLength(4);
    const rest = await api([...REPOS, '--checkpoint', file]);
    expect(rest.code, rest.stderr).toBe(0);
    expect(first.stdout + rest.stdout).toBe(whole.stdout);

    file = join(dir, 'mailbox-api.checkpoint');
    const MB = ['--service', 'mailbox', '/label/0?count=2', '--paginate', '--ndjson'];
    const all = await api(MB);
    expect(all.stdout.trim().split('\n').length).toBeGreaterThanOrEqual(4);
    const a = await interrupted((o) => api([...MB, '--checkpoint', file], o), '/rest/v2/example.com/alice/mailbox/label', 2, 'SIGINT');
    expect(a.code, a.stderr).toBe(130);
    const b = await api([...MB, '--checkpoint', file]);
    expect(b.code, b.stderr).toBe(0);
    expect(a.stdout + b.stdout).toBe(all.stdout);
  });

  it('mailbox list --all: SIGKILL between pages, resumed, equals one uninterrupted run', async () => {
    const whole = await lanyard(MAILBOX);
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stdout.trim().split('\n').length).toBeGreaterThanOrEqual(4);
    const a = await interrupted((o) => lanyard([...MAILBOX, '--checkpoint', file], o), '/rest/v2/example.com/alice/mailbox/label', 2, 'SIGKILL');
    expect(a.signal).toBe('SIGKILL');
    const b = await lanyard([...MAILBOX, '--checkpoint', file]);
    expect(b.code, b.stderr).toBe(0);
    expect(a.stdout + b.stdout).toBe(whole.stdout);
  });

  it("another command's, profile's or arguments' checkpoint, or a corrupt one: one line, exit 2, file untouched", async () => {
    // A second profile for the same emulator.
    expect((await world.run(['config', 'set', 'hosting.apiUrl', `${world.url}/api/v3`, '--profile', 'other'])).code).toBe(0);
    await world.admin('hosting/budget', { login: 'mona', remaining: 1, resetInSeconds: 1800 });
    expect((await api([...REPOS, '--checkpoint', file])).code).toBe(3);
    await world.admin('advance', { ms: 1_900_000 });
    const bytes = readFileSync(file);
    const mtime = statSync(file).mtimeMs;
    const cases: Array<[Promise<CliResult>, RegExp]> = [
      [lanyard([...MAILBOX, '--checkpoint', file]), /command "api", not "mailbox list"/],
      [api(['/user/repos?per_page=3', '--paginate', '--ndjson', '--checkpoint', file]), /query "per_page=2", not "per_page=3"/],
      [api([...REPOS, '--jq', '.id', '--checkpoint', file]), /output format "ndjson", not "ndjson\+jq:.id"/],
      [
        world.run(['--profile', 'other', 'api', `${world.url}/api/v3/user/repos?per_page=2`, '--paginate', '--ndjson', '--checkpoint', file]),
        /profile "emulator", not "other"/,
      ],
    ];
    for (const [p, message] of cases) {
      const r = await p;
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(message);
      expect(readFileSync(file).equals(bytes)).toBe(true);
      expect(statSync(file).mtimeMs).toBe(mtime);
    }
    writeFileSync(file, '{"lanyardCheckpoint": 1, "run": ');
    const m = statSync(file).mtimeMs;
    const corrupt = await api([...REPOS, '--checkpoint', file]);
    expect(corrupt.code).toBe(2);
    expect(corrupt.stderr).toMatch(/is not a Lanyard checkpoint/);
    expect(readFileSync(file, 'utf8')).toBe('{"lanyardCheckpoint": 1, "run": ');
    expect(statSync(file).mtimeMs).toBe(m);
  });

  it('usage: --checkpoint needs --ndjson and --paginate/--all; a token in the query is refused', async () => {
    expect((await api(['/user/repos', '--paginate', '--checkpoint', file])).stderr).toMatch(/--checkpoint needs --ndjson/);
    expect((await api(['/user/repos', '--checkpoint', file])).code).toBe(2);
    expect((await lanyard(['mailbox', 'list', '--ndjson', '--checkpoint', file])).code).toBe(2);
    const leak = await api(['/user/repos?access_token=abc', '--paginate', '--ndjson', '--checkpoint', file]);
    expect(leak.code).toBe(2);
    expect(leak.stderr).toMatch(/never stores one/);
    expect(existsSync(file)).toBe(false);
  });
});
