/**
 * `--checkpoint FILE` as run functions against the in-process emulator
 * (formerly spawned in test/e2e/checkpoint.test.ts, which keeps the runs
 * interrupted by Ctrl-C and SIGKILL): a run stopped by the rate limit or an
 * HTTP error resumes to exactly what one uninterrupted run prints; another
 * run's checkpoint or a corrupt one is one line, exit 2, the file untouched;
 * the usage rules.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ApiOptions } from '../../../../src/cli/commands/api/options.js';
import { runApi } from '../../../../src/cli/commands/api/run.js';
import { runMailboxList } from '../../../../src/cli/commands/mailbox/run-list.js';
import { type RunResult, type RunOptions, useEmulatorCommands } from '../on-emulator.js';

const cmd = useEmulatorCommands();
const TOKEN = 'lyp_emulator_default_token_0000000000000001';
let dir: string;
let file: string;
const REPOS = '/user/repos?per_page=2';
const paged = (o: Partial<ApiOptions> = {}): ApiOptions => ({ header: [], rawField: [], field: [], service: 'hosting', paginate: true, ...o });
const api = (target: string, o: Partial<ApiOptions> = {}, r: RunOptions = {}): Promise<RunResult> =>
  cmd.run((ctx) => runApi(ctx, target, paged(o)), { format: 'ndjson', ...r, env: { LANYARD_TOKEN: TOKEN, ...r.env } });
const saved = () => JSON.parse(readFileSync(file, 'utf8')) as { position: { emitted: number; next?: string }; completedAt?: string };
const lines = (s: string) => s.trim().split('\n');

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-ckpt-'));
  file = join(dir, 'run.checkpoint');
  for (let i = 0; i < 7; i++) {
    const res = await fetch(`${cmd.emu.url}/api/v3/user/repos`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `ckpt-${i}` }),
    });
    expect(res.status).toBe(201);
  }
  return () => rm(dir, { recursive: true, force: true });
});

describe('--checkpoint: resumable pagination', () => {
  it('stopped by the rate limit (exit 3), resumed after the reset: the joined output equals one uninterrupted run', async () => {
    const whole = await api(REPOS);
    expect(whole.code, whole.stderr).toBe(0);
    expect(lines(whole.stdout).length).toBeGreaterThan(6);
    await cmd.emu.budget({ login: 'mona', remaining: 2, resetInSeconds: 1800 });
    const first = await api(REPOS, { checkpoint: file });
    expect(first.code, first.stderr).toBe(3);
    expect(lines(first.stdout)).toHaveLength(4);
    expect(saved().position).toMatchObject({ emitted: 4, next: expect.stringContaining('page=3') });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).not.toContain(TOKEN);
    cmd.clock.advance(1_900_000);
    const rest = await api(REPOS, { checkpoint: file });
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stderr).toMatch(/resuming after 4 items/);
    expect(first.stdout + rest.stdout).toBe(whole.stdout);
    expect(saved().completedAt).toBeTruthy();
    // Run again once complete: nothing printed, and it says why.
    const again = await api(REPOS, { checkpoint: file });
    expect(again.code).toBe(0);
    expect(again.stdout).toBe('');
    expect(again.stderr).toMatch(/completed at .* \(\d+ items\); nothing more to print/);
  });

  it('an HTTP error on a later page: exit 1, no error body mixed into the listing; resumed, equals one run', async () => {
    const whole = await api(REPOS);
    // Pages 1 and 2 answer, page 3 is a 404.
    cmd.emu.fault({ type: 'latency', path: '/api/v3/user/repos', latencyMs: 1, count: 2 });
    cmd.emu.fault({ type: 'status', path: '/api/v3/user/repos', status: 404 });
    const first = await api(REPOS, { checkpoint: file });
    cmd.emu.clearFaults();
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toMatch(/404/);
    expect(lines(first.stdout)).toHaveLength(4);
    const rest = await api(REPOS, { checkpoint: file });
    expect(rest.code, rest.stderr).toBe(0);
    expect(first.stdout + rest.stdout).toBe(whole.stdout);
  });

  it("another command's, profile's or arguments' checkpoint, or a corrupt one: one line, exit 2, file untouched", async () => {
    await cmd.emu.budget({ login: 'mona', remaining: 1, resetInSeconds: 1800 });
    expect((await api(REPOS, { checkpoint: file })).code).toBe(3);
    cmd.clock.advance(1_900_000);
    const bytes = readFileSync(file);
    const mtime = statSync(file).mtimeMs;
    const other = { profile: 'other', profileSettings: { 'hosting.apiUrl': `${cmd.emu.url}/api/v3` } };
    const cases: Array<[() => Promise<RunResult>, RegExp]> = [
      [
        () => cmd.run((ctx) => runMailboxList(ctx, { label: '0', all: true, count: '1', metadata: true, checkpoint: file }), { format: 'ndjson' }),
        /command "api", not "mailbox list"/,
      ],
      [() => api('/user/repos?per_page=3', { checkpoint: file }), /query "per_page=2", not "per_page=3"/],
      [() => api(REPOS, { checkpoint: file }, { jq: '.id' }), /output format "ndjson", not "ndjson\+jq:.id"/],
      [() => api(`${cmd.emu.url}/api/v3/user/repos?per_page=2`, { checkpoint: file }, other), /profile "emulator", not "other"/],
    ];
    for (const [run, message] of cases) {
      const r = await run();
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(message);
      expect(readFileSync(file).equals(bytes)).toBe(true);
      expect(statSync(file).mtimeMs).toBe(mtime);
    }
    writeFileSync(file, '{"lanyardCheckpoint": 1, "run": ');
    const m = statSync(file).mtimeMs;
    const corrupt = await api(REPOS, { checkpoint: file });
    expect(corrupt.code).toBe(2);
    expect(corrupt.stderr).toMatch(/is not a Lanyard checkpoint/);
    expect(readFileSync(file, 'utf8')).toBe('{"lanyardCheckpoint": 1, "run": ');
    expect(statSync(file).mtimeMs).toBe(m);
  });

  it('usage: --checkpoint needs --ndjson and --paginate/--all; a token in the query is refused', async () => {
    expect((await api('/user/repos', { checkpoint: file }, { format: undefined })).stderr).toMatch(/--checkpoint needs --ndjson/);
    expect((await api('/user/repos', { checkpoint: file, paginate: false }, { format: undefined })).code).toBe(2);
    const mailbox = await cmd.run((ctx) => runMailboxList(ctx, { label: '0', checkpoint: file }), { format: 'ndjson' });
    expect(mailbox.code).toBe(2);
    const leak = await api('/user/repos?access_token=abc', { checkpoint: file });
    expect(leak.code).toBe(2);
    expect(leak.stderr).toMatch(/never stores one/);
    expect(existsSync(file)).toBe(false);
  });
});
