/**
 * A context whose profiles are handed in (a command test on fakes, a library
 * user) has a config directory only when LANYARD_CONFIG_DIR names one. Without
 * it nothing goes to disk: the lock is this process's, pacing is counted in
 * this process, and the credentials must be handed in too. (It used to take
 * the directory of "(profiles handed in)": `./locks/` and `./pacing.json` in
 * whatever directory the tests ran in.)
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Context } from '../../../src/cli/context.js';
import { ConfigError } from '../../../src/core/errors.js';
import { FakeClock } from '../../fakes/clock.js';
import { contextOnFakes } from '../../fakes/context.js';
import { MemoryCredentialStore } from '../../fakes/credential-store.js';
import { createTestIO } from '../../fakes/io.js';
import { StubHttp } from '../../fakes/stub-http.js';

let stub: StubHttp;
let dir: string;
beforeEach(async () => {
  stub = await StubHttp.start();
  dir = mkdtempSync(join(tmpdir(), 'lanyard-context-disk-'));
});
afterEach(async () => {
  await stub.close();
  rmSync(dir, { recursive: true, force: true });
});

const onFakes = (env: NodeJS.ProcessEnv, credentials = new MemoryCredentialStore()) =>
  contextOnFakes(
    createTestIO(),
    env,
    { credentials, profiles: { active: 'fake', profiles: { fake: { 'hosting.apiUrl': `${stub.url}/api/v3` } } } },
    new FakeClock(),
  );

/** A content-creating request (paced, under the lock) through the context's own HTTP client. */
async function createIssue(ctx: Context): Promise<void> {
  stub.on('POST', '/api/v3/repos/o/r/issues', { status: 201, body: { number: 1 } });
  const http = await ctx.http();
  try {
    expect((await http.request({ method: 'POST', url: `${stub.url}/api/v3/repos/o/r/issues`, json: { title: 't' } })).status).toBe(201);
    await (await ctx.credentialLock()).withLock('x', async () => undefined);
  } finally {
    await ctx.close();
  }
}

describe('a context with profiles handed in', () => {
  it('without LANYARD_CONFIG_DIR writes nothing into the working directory (no locks/, no pacing.json)', async () => {
    const had = { locks: existsSync('locks'), pacing: existsSync('pacing.json') };
    try {
      await createIssue(onFakes({}));
      expect({ locks: existsSync('locks'), pacing: existsSync('pacing.json') }).toEqual(had);
    } finally {
      // What the old code left behind is taken away again.
      if (!had.locks) rmSync('locks', { recursive: true, force: true });
      if (!had.pacing) rmSync('pacing.json', { force: true });
    }
  });

  it('with LANYARD_CONFIG_DIR keeps the lock and pacing.json there', async () => {
    await createIssue(onFakes({ LANYARD_CONFIG_DIR: dir }));
    expect(existsSync(join(dir, 'pacing.json'))).toBe(true);
    expect(existsSync(join(dir, 'locks'))).toBe(true);
  });

  it('with LANYARD_CONFIG_DIR and no credential store handed in, the 0600 file goes there, not into the working directory', async () => {
    const had = existsSync('credentials.json');
    const ctx = contextOnFakes(createTestIO(), { LANYARD_CONFIG_DIR: dir, LANYARD_KEYCHAIN: 'off' }, { profiles: { profiles: { fake: {} } } });
    try {
      const storage = await ctx.credentialStorage();
      await storage.store().set('hosting:example.com:u', 'gho_context_disk_test');
      expect(existsSync(join(dir, 'credentials.json'))).toBe(true);
      expect(existsSync('credentials.json')).toBe(had);
    } finally {
      await ctx.close();
      // What the old code left behind (the label "(profiles handed in)" has the cwd for its directory) is taken away again.
      if (!had) rmSync('credentials.json', { force: true });
    }
  });

  it('without a config directory and without a credential store handed in, the storage is a one-line error, not a file in the cwd', async () => {
    const ctx = contextOnFakes(createTestIO(), { LANYARD_KEYCHAIN: 'off' }, { profiles: { profiles: { fake: {} } } });
    const err = await ctx.credentialStorage().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toBe('no config directory to keep credentials in: hand in a credential store, or set LANYARD_CONFIG_DIR');
    expect(existsSync('credentials.json')).toBe(false);
  });
});
