/**
 * `--checkpoint FILE` end to end: a paginated run stopped by Ctrl-C or
 * SIGKILL between pages (real processes and signals), then resumed, prints
 * exactly what one uninterrupted run prints. A run stopped by a rate limit or
 * an HTTP error, another run's or a corrupt checkpoint and the usage rules are
 * tested as run functions in test/unit/cli/api/checkpoint.test.ts.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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
    await world.admin('faults', { type: 'latency', path, latencyMs: 800 });
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
    const info = (await world.admin('info', undefined, 'GET')) as { hosting: { personalToken: string }; mailbox: { apiUrl: string } };
    token = info.hosting.personalToken;
    // The data to page through, made over the emulator's HTTP API (what is tested is the paging, not these commands).
    const made = async (url: string, init: RequestInit) => {
      const res = await fetch(url, { method: 'POST', ...init });
      expect(res.status, await res.text()).toBeLessThan(300);
    };
    for (let i = 0; i < 7; i++)
      await made(`${world.url}/api/v3/user/repos`, {
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `ckpt-${i}` }),
      });
    for (let i = 0; i < 4; i++)
      await made(`${info.mailbox.apiUrl}/message`, {
        headers: { 'content-type': 'message/rfc822' },
        body: `From: a@example.com\r\nTo: b@example.com\r\nSubject: checkpoint ${i}\r\n\r\nbody ${i}\r\n`,
      });
  });
  afterAll(() => world.stop());
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lanyard-ckpt-'));
    file = join(dir, `run-${++n}.checkpoint`);
    return () => rm(dir, { recursive: true, force: true });
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

  it('api --service mailbox resumes after Ctrl-C', async () => {
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
});
