/**
 * A directory Lanyard must make where none can be made (`/proc/…`: the kernel
 * answers mkdir with ENOENT under a directory that exists). Node's recursive
 * mkdir never returns there — sync or not, it spins at full CPU — so each
 * case runs in its own process with a deadline: a hang is killed and fails
 * the test instead of the worker. Each one ends at once with one line.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, cleanEnv, ROOT } from './harness.js';

const NOWHERE = '/proc/lanyard-no-such-entry/lanyard';
/** Far above what each case takes (well under a second); a hang is cut here. */
const DEADLINE_MS = 20_000;

function run(args: string[], env: Record<string, string | undefined> = {}) {
  const r = spawnSync(process.execPath, args, { env: cleanEnv(env), encoding: 'utf8', timeout: DEADLINE_MS, killSignal: 'SIGKILL', cwd: ROOT });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

const LIBRARY = pathToFileURL(join(ROOT, 'dist', 'lib', 'index.js')).href;

/** Each write through the library's stores, its error as `code: message` on a line of its own. */
const libraryWrites = `
const { openCredentialStore, FileCredentialStore } = await import(${JSON.stringify(LIBRARY)});
const writes = {
  opened: async () => (await openCredentialStore({ configDir: ${JSON.stringify(NOWHERE)}, disableKeychain: true })).set('a', 'b'),
  file: () => new FileCredentialStore(${JSON.stringify(`${NOWHERE}/credentials.json`)}).set('a', 'b'),
};
for (const [name, write] of Object.entries(writes)) {
  try { await write(); console.log(name + ' stored'); } catch (e) { console.log(name + ' ' + e.code + ': ' + e.message); }
}
`;

describe.skipIf(process.platform !== 'linux')('a directory that cannot be made (/proc/…)', () => {
  it('the library: a credential write fails with the store’s one-line error naming the lock directory', () => {
    const r = run(['--input-type=module', '-e', libraryWrites]);
    expect(r.signal, 'killed at the deadline: mkdir never returned').toBeNull();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual([
      `opened credential_store: cannot create the lock directory ${NOWHERE}/locks: no directory can be made there`,
      `file credential_store: cannot create the lock directory ${NOWHERE}/locks: no directory can be made there`,
    ]);
  });

  it('the CLI: LANYARD_CONFIG_DIR there fails `config set` with one line and its exit code, nothing on stdout', () => {
    const r = run([BIN, 'config', 'set', 'network.proxy', 'http://proxy.example:3128'], { LANYARD_CONFIG_DIR: NOWHERE });
    expect(r.signal, 'killed at the deadline: mkdir never returned').toBeNull();
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(`cannot create the config directory ${NOWHERE}: no directory can be made there`);
    // A config-directory problem is the config's (exit 2, as a config file that cannot be read), never a stack trace.
    expect(r.status).toBe(2);
  });

  it('the emulator: `--data-dir` there is a usage error at once (exit 2), not a process that spins and ignores SIGTERM', () => {
    const config = mkdtempSync(join(tmpdir(), 'lanyard-unmakeable-'));
    const r = run([BIN, 'emulator', 'start', '--port', '0', '--data-dir', NOWHERE], { LANYARD_CONFIG_DIR: config });
    rmSync(config, { recursive: true, force: true });
    expect(r.signal, 'killed at the deadline: mkdir never returned').toBeNull();
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(`--data-dir: cannot create the data directory ${NOWHERE}: no directory can be made there`);
    expect(r.status).toBe(2);
  });

  it('the launcher: LANYARD_CACHE_DIR there (its code caches, and Node’s on Node 22+) runs the command without a cache', () => {
    const config = mkdtempSync(join(tmpdir(), 'lanyard-unmakeable-'));
    const r = run([BIN, 'config', 'list', '--json'], { LANYARD_CONFIG_DIR: config, LANYARD_CACHE_DIR: NOWHERE, LANYARD_COMPILE_CACHE: undefined });
    rmSync(config, { recursive: true, force: true });
    expect(r.signal, 'killed at the deadline: mkdir never returned').toBeNull();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toBeTypeOf('object');
  });
});
