/**
 * A careless local setup: a config directory (or a file in it) that other
 * users can write to is refused with the fix, as ssh refuses such a ~/.ssh;
 * a setting no resolver could use is a usage error.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../e2e/harness.js';
import { expectOrderly } from './hostile.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'lanyard-setup-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function configDir(name: string): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(join(dir, 'config.json'), JSON.stringify({ activeProfile: 'p', profiles: { p: { 'echo.baseUrl': 'http://127.0.0.1:9' } } }), { mode: 0o600 });
  await writeFile(join(dir, 'credentials.json'), '{}\n', { mode: 0o600 });
  return dir;
}

describe('a config directory others can write to is refused', () => {
  it.each([
    ['the directory, mode 777', '', 0o777],
    ['the directory, mode 770 (group)', '', 0o770],
    ['config.json, mode 666', 'config.json', 0o666],
    ['credentials.json, mode 622', 'credentials.json', 0o622],
  ])('%s: exit 1 with the chmod to run, nothing read or written', async (name, file, mode) => {
    const dir = await configDir(name.replace(/\W+/g, '-'));
    await chmod(join(dir, file), mode);
    for (const args of [
      ['config', 'list'],
      ['auth', 'status'],
      ['echo', 'key', 'set'],
    ]) {
      const r = await runCli(args, { env: { LANYARD_CONFIG_DIR: dir }, input: 'a-key-that-is-never-stored-4730\n' });
      expect(expectOrderly(r, [1]), `${args.join(' ')}: ${r.stderr}`).toBeUndefined();
      expect(r.stderr).toMatch(/writable by other users \(mode \d+\): refusing to use it/);
      expect(r.stderr).toContain(`chmod go-w ${join(dir, file)}`.replace(/\/$/, ''));
    }
    expect(await readFile(join(dir, 'credentials.json'), 'utf8')).toBe('{}\n');
  });

  it('a private directory (700, files 600) is used', async () => {
    const dir = await configDir('private');
    const r = await runCli(['config', 'list'], { env: { LANYARD_CONFIG_DIR: dir } });
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('settings no resolver could use are usage errors', () => {
  it.each([
    ['a 90-character label', `http://${'a'.repeat(90)}.example/api/v3`],
    ['a 64-character label', `https://${'b'.repeat(64)}/api/v3`],
    ['a 260-character name', `https://${Array.from({ length: 5 }, () => 'c'.repeat(50)).join('.')}.example`],
  ])('config set hosting.apiUrl with %s: exit 2, nothing written', async (_name, url) => {
    const dir = await configDir('labels');
    const before = await readFile(join(dir, 'config.json'), 'utf8');
    const r = await runCli(['config', 'set', 'hosting.apiUrl', url], { env: { LANYARD_CONFIG_DIR: dir } });
    expect(expectOrderly(r, [2]), r.stderr).toBeUndefined();
    expect(r.stderr).toMatch(/not a valid host name/);
    expect(await readFile(join(dir, 'config.json'), 'utf8')).toBe(before);
  });

  it('a 63-character label is fine', async () => {
    const dir = await configDir('labels-ok');
    const r = await runCli(['config', 'set', 'hosting.apiUrl', `https://${'d'.repeat(63)}.example/api/v3`], { env: { LANYARD_CONFIG_DIR: dir } });
    expect(r.code, r.stderr).toBe(0);
  });
});
