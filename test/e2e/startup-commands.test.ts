/**
 * What `lanyard api /user` loads at start-up (issue 39: `api /user` against
 * gh). Paging and checkpoints (node:crypto, node:fs/promises; its
 * readline on Node 24 and later) load only for --paginate; the --input file is opened
 * with node:fs/promises only when there is one. Node's built-in modules
 * record every load in process.moduleLoadList; a preloaded module prints
 * that list at exit (as test/e2e/startup.test.ts does for other commands).
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, selfSignedCert, startWorld, type World } from './harness.js';
import { loadedModules, writeModuleListPreload } from './module-list.js';

let world: World;
let work: string;
let preload: string;
let caFile: string;
beforeAll(async () => {
  world = await startWorld();
  // A stored token (the 0600 file), as a signed-in user has.
  const signIn = spawnSync(process.execPath, [BIN, '--profile', 'emulator', 'auth', 'token', '--with-token'], {
    env: cleanEnv(world.env),
    input: 'lyp_emulator_default_token_0000000000000001',
    encoding: 'utf8',
  });
  if (signIn.status !== 0) throw new Error(signIn.stderr);
  work = await mkdtemp(join(tmpdir(), 'lanyard-startup-api-'));
  preload = await writeModuleListPreload(work);
  // A CA bundle to trust (any valid certificate: the emulator here is plain HTTP, but the bundle is read and checked).
  caFile = selfSignedCert(work).cert;
});
afterAll(async () => {
  await world?.stop();
  await rm(work, { recursive: true, force: true });
});

const loaded = (args: string[]) => loadedModules(preload, args, cleanEnv(world.env));

const PAGING_ONLY = ['crypto', 'fs/promises'];

describe('`api` start-up', () => {
  it('`api /user` loads node:http but not paging, checkpoints, crypto, TLS, fs/promises or child processes', () => {
    const r = loaded(['--profile', 'emulator', 'api', '/user']);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty('login');
    expect(r.modules).toContain('http');
    for (const unused of [...PAGING_ONLY, 'https', 'tls', 'child_process', 'zlib', 'v8']) expect(r.modules, unused).not.toContain(unused);
  });

  it('with LANYARD_CA_FILE the bundle is read without node:fs/promises (a regular file: synchronous reads)', () => {
    const r = loadedModules(preload, ['--profile', 'emulator', 'api', '/user'], cleanEnv({ ...world.env, LANYARD_CA_FILE: caFile }));
    expect(r.status, r.stderr).toBe(0);
    expect(r.modules).not.toContain('fs/promises');
  });

  it('`api --paginate --checkpoint` still loads what paging and checkpoints need, and works', () => {
    const file = join(work, 'checkpoint');
    const r = loaded(['--profile', 'emulator', 'api', '/user/repos', '--paginate', '--ndjson', '--checkpoint', file]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').length).toBeGreaterThan(0);
    for (const used of ['crypto', 'fs/promises']) expect(r.modules, used).toContain(used);
  });
});
