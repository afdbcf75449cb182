/**
 * `lanyard config` and `lanyard profile` as run functions on fakes over an
 * isolated config directory (formerly spawned in test/e2e/config.test.ts,
 * which keeps --help and commander's unknown option). The profile a command
 * names with --profile is named here with LANYARD_PROFILE (the same selection;
 * the root option's wiring is in every e2e test that passes it).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConfigGet, runConfigList, runConfigSet, runConfigUnset } from '../../../../src/cli/commands/config/run.js';
import { runProfileList, runProfileRemove, runProfileUse } from '../../../../src/cli/commands/profile/run.js';
import type { Context } from '../../../../src/cli/context.js';
import { exitCodeFor, formatError } from '../../../../src/cli/errors/exit.js';
import { contextOnFakes } from '../../../fakes/context.js';
import { createTestIO } from '../../../fakes/io.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-config-unit-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Runs `f` on a context over the config directory: exit code, stdout, stderr (with main's error line). */
async function run(f: (ctx: Context) => Promise<unknown>, o: { env?: Record<string, string>; json?: boolean } = {}) {
  const io = createTestIO();
  const ctx = contextOnFakes(io, { LANYARD_CONFIG_DIR: dir, LANYARD_KEYCHAIN: 'off', ...o.env }, {}, undefined, o.json ? { format: 'json' } : {});
  const err = await f(ctx).then(
    () => undefined,
    (e: unknown) => e,
  );
  return {
    code: err === undefined ? 0 : exitCodeFor(err),
    stdout: io.stdoutText(),
    stderr: io.stderrText() + (err === undefined ? '' : `${formatError(err, false)}\n`),
  };
}
const work = { env: { LANYARD_PROFILE: 'work' } };

describe('config and profiles', () => {
  it('set creates the profile (first one becomes active), get/list read it back, unset removes', async () => {
    const s = await run((c) => runConfigSet(c, 'hosting.apiUrl', 'https://code.example.com/api/v3/'), work);
    expect(s.code).toBe(0);
    expect(s.stderr).toBe('Created profile "work"; hosting.apiUrl = https://code.example.com/api/v3\n');
    await run((c) => runConfigSet(c, 'mailbox.user', 'alice'), work);
    expect((await run((c) => runConfigGet(c, 'hosting.apiUrl'))).stdout).toBe('https://code.example.com/api/v3\n');
    expect(JSON.parse((await run((c) => runConfigGet(c, 'hosting.apiUrl'), { json: true })).stdout)).toEqual({
      profile: 'work',
      key: 'hosting.apiUrl',
      value: 'https://code.example.com/api/v3',
    });
    const list = await run((c) => runConfigList(c, {}), { json: true });
    expect(JSON.parse(list.stdout)).toEqual({ profile: 'work', settings: { 'hosting.apiUrl': 'https://code.example.com/api/v3', 'mailbox.user': 'alice' } });
    expect((await run((c) => runConfigList(c, {}))).stdout).toBe('hosting.apiUrl=https://code.example.com/api/v3\nmailbox.user=alice\n');
    expect((await run((c) => runConfigUnset(c, 'mailbox.user'))).code).toBe(0);
    const gone = await run((c) => runConfigGet(c, 'mailbox.user'));
    expect(gone.code).toBe(2);
    expect(gone.stderr).toMatch(/profile "work" has no mailbox.user/);
    const file = JSON.parse(await readFile(join(dir, 'config.json'), 'utf8'));
    expect(file).toEqual({ profiles: { work: { 'hosting.apiUrl': 'https://code.example.com/api/v3' } }, activeProfile: 'work' });
  });

  it('bad keys and values: one line, exit 2', async () => {
    const a = await run((c) => runConfigSet(c, 'hosting.token', 'x'));
    expect(a.code).toBe(2);
    expect(a.stderr.split('\n')[0]).toBe('unknown setting "hosting.token"');
    const b = await run((c) => runConfigSet(c, 'hosting.apiUrl', 'not-a-url'));
    expect(b.code).toBe(2);
    expect(b.stderr).toBe('hosting.apiUrl must be an absolute http(s) URL, got "not-a-url"\n');
    expect((await run((c) => runConfigGet(c, 'nope'))).code).toBe(2);
    const keys = JSON.parse((await run((c) => runConfigList(c, { keys: true }), { json: true })).stdout);
    expect(keys['hosting.apiUrl']).toEqual({ kind: 'url', description: expect.any(String) });
  });

  it('profile list/use/remove, LANYARD_PROFILE selects', async () => {
    await run((c) => runConfigSet(c, 'echo.baseUrl', 'http://127.0.0.1:9/echo'), { env: { LANYARD_PROFILE: 'lab' } });
    const l = JSON.parse((await run((c) => runProfileList(c), { json: true })).stdout);
    expect(l.active).toBe('work');
    expect(l.profiles.map((p: { name: string; active: boolean }) => [p.name, p.active])).toEqual([
      ['work', true],
      ['lab', false],
    ]);
    expect((await run((c) => runConfigGet(c, 'echo.baseUrl'), { env: { LANYARD_PROFILE: 'lab' } })).stdout).toBe('http://127.0.0.1:9/echo\n');
    const use = await run((c) => runProfileUse(c, 'lab'));
    expect([use.code, use.stderr]).toEqual([0, 'Active profile: lab\n']);
    expect((await run((c) => runProfileList(c))).stdout).toBe('\twork\thttps://code.example.com/api/v3\t-\t1\n*\tlab\t\t-\t1\n');
    const missing = await run((c) => runProfileUse(c, 'ghost'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^no profile named "ghost"/);
    expect((await run((c) => runProfileRemove(c, 'lab'))).code).toBe(0);
    expect(JSON.parse((await run((c) => runProfileList(c), { json: true })).stdout).active).toBeNull();
    expect((await run((c) => runProfileRemove(c, 'lab'))).code).toBe(2);
    expect((await run((c) => runConfigList(c, {}), { env: { LANYARD_PROFILE: 'ghost' } })).code).toBe(2);
  });
});
