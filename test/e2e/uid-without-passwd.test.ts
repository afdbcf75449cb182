/**
 * A user id with no entry in the passwd file, as containers run with
 * `docker run --user 12345`: the config directory's ownership check compares
 * with the effective uid, and never looks the user up (os.userInfo() throws
 * there: "uv_os_get_passwd returned ENOENT"). Needs root to start the CLI as
 * another user; skipped otherwise.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN } from './harness.js';

const root = process.getuid?.() === 0;
/** A uid the passwd file does not list. */
const uid = (() => {
  const listed = new Set(
    readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .map((l) => Number(l.split(':')[2])),
  );
  let u = 54321;
  while (listed.has(u)) u++;
  return u;
})();

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'lanyard-uid-'));
  if (root) chownSync(home, uid, uid);
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

const run = (args: string[]) =>
  spawnSync(process.execPath, [BIN, ...args], {
    uid,
    gid: uid,
    env: { PATH: process.env.PATH ?? '', HOME: home, LANYARD_CONFIG_DIR: join(home, 'config'), LANYARD_KEYCHAIN: 'off', NO_COLOR: '1' },
    encoding: 'utf8',
  });

describe.skipIf(!root || process.platform === 'win32')('a uid without a passwd entry', () => {
  it('writes and reads its config and credentials', () => {
    const set = run(['--profile', 'box', 'config', 'set', 'mailbox.user', 'bob']);
    expect(set.stderr).not.toMatch(/uv_os_get_passwd|unexpected error/);
    expect(set.status, set.stderr).toBe(0);
    const get = run(['--profile', 'box', 'config', 'get', 'mailbox.user']);
    expect(get.status, get.stderr).toBe(0);
    expect(get.stdout.trim()).toBe('bob');
    const status = run(['--profile', 'box', 'auth', 'status', '--json']);
    expect(status.stderr).not.toMatch(/uv_os_get_passwd|unexpected error/);
  });
});
