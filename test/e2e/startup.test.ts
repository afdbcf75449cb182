/**
 * Fast start (issue #8): what the built CLI loads. Node's built-in modules
 * record every load in process.moduleLoadList; a preloaded module prints that
 * list at exit. `--help` must not load the HTTP stack, the config library or
 * anything else a command loads only when it runs; an HTTP command must not
 * load what it does not use (HTTP/2, TLS, child processes, crypto, assert).
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, startWorld, type World } from './harness.js';
import { loadedModules, writeModuleListPreload } from './module-list.js';

let world: World;
let work: string;
let preload: string;
beforeAll(async () => {
  world = await startWorld();
  work = await mkdtemp(join(tmpdir(), 'lanyard-startup-'));
  preload = await writeModuleListPreload(work);
});
afterAll(async () => {
  await world?.stop();
  await rm(work, { recursive: true, force: true });
});

const loaded = (args: string[], stdout: 'pipe' | 'ignore' = 'pipe') => loadedModules(preload, args, cleanEnv(world.env), stdout);

describe('start-up loads only what the command needs', () => {
  it('--help loads no HTTP stack, no config library, no crypto, no child processes', () => {
    const r = loaded(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^Usage: lanyard/);
    // Not even sockets or terminals: output to a pipe is written to the file descriptor.
    for (const heavy of ['http', 'https', 'http2', 'tls', 'crypto', 'child_process', 'assert', 'zlib', 'worker_threads', 'net', 'tty', 'v8', 'fs/promises']) {
      expect(r.modules, heavy).not.toContain(heavy);
    }
  });

  it('output to /dev/null (a character device, not a terminal) loads neither tty nor net', () => {
    for (const args of [['--help'], ['auth', '--help']]) {
      const r = loaded(args, 'ignore');
      expect(r.status, args.join(' ')).toBe(0);
      for (const heavy of ['tty', 'net']) expect(r.modules, `${args.join(' ')}: ${heavy}`).not.toContain(heavy);
    }
  });

  it('an HTTP command against the emulator loads node:http but not HTTP/2, TLS, child processes, crypto, assert or fs/promises', () => {
    const r = loaded(['--profile', 'emulator', 'ratelimit', 'status', '--json']);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty('resources.core.limit');
    // node:http is the one transport (src/core/http/transport.ts); TLS only for https URLs.
    expect(r.modules).toContain('http');
    for (const unused of ['http2', 'https', 'tls', 'child_process', 'crypto', 'assert', 'fs/promises', 'v8']) expect(r.modules, unused).not.toContain(unused);
  });

  it('`auth status` (every service listed) loads node:http but no crypto, TLS, child processes or fs/promises', () => {
    const r = loaded(['--profile', 'emulator', 'auth', 'status', '--json']);
    expect(JSON.parse(r.stdout)).toHaveProperty('accounts');
    expect(r.modules).toContain('http');
    for (const unused of ['crypto', 'https', 'tls', 'child_process', 'fs/promises', 'v8']) expect(r.modules, unused).not.toContain(unused);
  });

  it('`mailbox raw` of a plain message to stdout loads node:http but no crypto, zlib or fs/promises', async () => {
    const { id } = (await world.admin('mailbox/generate', { bytes: 1024 })) as { id: string };
    const r = loaded(['--profile', 'emulator', 'mailbox', 'raw', id]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^From: /m);
    expect(r.modules).toContain('http');
    for (const unused of ['crypto', 'zlib', 'fs/promises', 'child_process']) expect(r.modules, unused).not.toContain(unused);
  });

  it('`profile list` reads the config as plain JSON: no conf (crypto, net, assert), nothing written', async () => {
    const fresh = await mkdtemp(join(tmpdir(), 'lanyard-startup-cfg-'));
    try {
      const r = loadedModules(preload, ['profile', 'list', '--json'], cleanEnv({ ...world.env, LANYARD_CONFIG_DIR: fresh }));
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({ active: null, selected: { name: 'default', reason: 'default' }, profiles: [] });
      for (const unused of ['crypto', 'net', 'assert', 'fs/promises']) expect(r.modules, unused).not.toContain(unused);
      await expect(stat(join(fresh, 'config.json'))).rejects.toThrow(/ENOENT/);
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  });

  it('reading the config does not write it; `config set` (conf) does', async () => {
    const fresh = await mkdtemp(join(tmpdir(), 'lanyard-startup-cfg-'));
    try {
      const env = cleanEnv({ ...world.env, LANYARD_CONFIG_DIR: fresh });
      const get = spawnSync(process.execPath, [BIN, 'config', 'list', '--json'], { env, encoding: 'utf8' });
      expect(get.status, get.stderr).toBe(0);
      await expect(stat(join(fresh, 'config.json'))).rejects.toThrow(/ENOENT/);
      const set = spawnSync(process.execPath, [BIN, 'config', 'set', 'mailbox.user', 'bob'], { env, encoding: 'utf8' });
      expect(set.status, set.stderr).toBe(0);
      expect((await stat(join(fresh, 'config.json'))).isFile()).toBe(true);
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  });
});
