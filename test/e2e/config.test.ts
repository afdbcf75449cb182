/** `lanyard config` and `lanyard profile`: real processes on an isolated config directory. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './harness.js';

let dir: string;
const run = (args: string[], env: Record<string, string> = {}) => runCli(args, { env: { LANYARD_CONFIG_DIR: dir, ...env } });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-config-e2e-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('config and profiles', () => {
  it('set creates the profile (first one becomes active), get/list read it back, unset removes', async () => {
    const s = await run(['config', 'set', 'hosting.apiUrl', 'https://code.example.com/api/v3/', '--profile', 'work']);
    expect(s.code).toBe(0);
    expect(s.stderr).toBe('Created profile "work"; hosting.apiUrl = https://code.example.com/api/v3\n');
    await run(['--profile', 'work', 'config', 'set', 'mailbox.user', 'alice']);
    expect((await run(['config', 'get', 'hosting.apiUrl'])).stdout).toBe('https://code.example.com/api/v3\n');
    expect(JSON.parse((await run(['config', 'get', 'hosting.apiUrl', '--json'])).stdout)).toEqual({
      profile: 'work',
      key: 'hosting.apiUrl',
      value: 'https://code.example.com/api/v3',
    });
    const list = await run(['config', 'list', '--json']);
    expect(JSON.parse(list.stdout)).toEqual({ profile: 'work', settings: { 'hosting.apiUrl': 'https://code.example.com/api/v3', 'mailbox.user': 'alice' } });
    expect((await run(['config', 'list'])).stdout).toBe('hosting.apiUrl=https://code.example.com/api/v3\nmailbox.user=alice\n');
    expect((await run(['config', 'unset', 'mailbox.user'])).code).toBe(0);
    const gone = await run(['config', 'get', 'mailbox.user']);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toMatch(/profile "work" has no mailbox.user/);
    const file = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'));
    expect(file).toEqual({ profiles: { work: { 'hosting.apiUrl': 'https://code.example.com/api/v3' } }, activeProfile: 'work' });
  });

  it('bad keys and values: one line, exit 2', async () => {
    const a = await run(['config', 'set', 'hosting.token', 'x']);
    expect(a.code).toBe(2);
    expect(a.stderr.split('\n')[0]).toBe('unknown setting "hosting.token"');
    const b = await run(['config', 'set', 'hosting.apiUrl', 'not-a-url']);
    expect(b.code).toBe(2);
    expect(b.stderr).toBe('hosting.apiUrl must be an absolute http(s) URL, got "not-a-url"\n');
    const c = await run(['config', 'get', 'nope']);
    expect(c.code).toBe(2);
    const keys = JSON.parse((await run(['config', 'list', '--keys', '--json'])).stdout);
    expect(keys['hosting.apiUrl']).toEqual({ kind: 'url', description: expect.any(String) });
  });

  it('profile list/use/remove, LANYARD_PROFILE and --profile select', async () => {
    await run(['config', 'set', 'echo.baseUrl', 'http://127.0.0.1:9/echo', '--profile', 'lab']);
    const l = JSON.parse((await run(['profile', 'list', '--json'])).stdout);
    expect(l.active).toBe('work');
    expect(l.profiles.map((p: { name: string; active: boolean }) => [p.name, p.active])).toEqual([
      ['work', true],
      ['lab', false],
    ]);
    expect((await run(['config', 'get', 'echo.baseUrl'], { LANYARD_PROFILE: 'lab' })).stdout).toBe('http://127.0.0.1:9/echo\n');
    const use = await run(['profile', 'use', 'lab']);
    expect([use.code, use.stderr]).toEqual([0, 'Active profile: lab\n']);
    expect((await run(['profile', 'list'])).stdout).toBe('\twork\thttps://code.example.com/api/v3\t-\t1\n*\tlab\t\t-\t1\n');
    const missing = await run(['profile', 'use', 'ghost']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^no profile named "ghost"/);
    expect((await run(['profile', 'remove', 'lab'])).code).toBe(0);
    expect(JSON.parse((await run(['profile', 'list', '--json'])).stdout).active).toBeNull();
    expect((await run(['profile', 'remove', 'lab'])).code).toBe(2);
    expect((await run(['--profile', 'ghost', 'config', 'list'])).code).toBe(2);
  });

  it('--help has examples; an unknown flag is a usage error', async () => {
    const h = await run(['config', 'set', '--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/Examples:\n {2}\$ lanyard config set/);
    const bad = await run(['config', 'list', '--nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown option '--nope'/);
  });
});
