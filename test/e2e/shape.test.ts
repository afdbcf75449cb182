/** `--jq` and `--template` end to end: the shared JSON path of every data command, streams per item, errors with positions. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';

describe('--jq and --template', () => {
  let world: World;
  let token: string;
  beforeAll(async () => {
    world = await startWorld();
    token = ((await world.admin('info', undefined, 'GET')) as { hosting: { personalToken: string } }).hosting.personalToken;
  });
  afterAll(() => world.stop());
  const run = (args: string[]) => world.run(['--profile', 'emulator', ...args], { env: { LANYARD_TOKEN: token } });

  it('api: a jq expression over the body; strings raw, other values compact JSON in a pipe', async () => {
    const r = await run(['api', '/user', '--jq', '.login, {id, type}']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('mona\n{"id":1,"type":"User"}\n');
  });

  it('api --paginate: over the merged array; with --ndjson: per item', async () => {
    const all = await run(['api', '/user/repos', '--paginate', '--jq', '[.[].name] | length']);
    expect(all.code, all.stderr).toBe(0);
    const n = Number(all.stdout.trim());
    expect(n).toBeGreaterThan(1);
    const each = await run(['api', '/user/repos', '--paginate', '--ndjson', '--jq', '.name']);
    expect(each.code, each.stderr).toBe(0);
    expect(each.stdout.trim().split('\n')).toHaveLength(n);
    expect(each.stdout).not.toContain('{');
  });

  it('a command with --json: --jq implies it; mailbox list --ndjson applies it per message', async () => {
    const status = await run(['ratelimit', 'status', '--jq', '.resources.core.limit']);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toBe('5000\n');
    const ids = await run(['mailbox', 'list', '--ndjson', '--jq', '.id']);
    const count = await run(['mailbox', 'list', '--jq', 'length']);
    expect(ids.code, ids.stderr).toBe(0);
    expect(ids.stdout.trim().split('\n')).toHaveLength(Number(count.stdout));
    for (const id of ids.stdout.trim().split('\n')) expect(id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('--template: Liquid with data, the object fields, standard filters and the tablerow helper', async () => {
    const r = await run(['api', '/user', '--template', '{{ login }}:{{ data.id }}:{{ data | json | size }}{{ "\\n" }}']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^mona:1:\d+\n$/);
    const t = await run(['api', '/user/repos', '--paginate', '--template', '{% for x in data %}{% tablerow x.name, x.private %}{% endfor %}']);
    expect(t.code, t.stderr).toBe(0);
    expect(t.stdout).toMatch(/^hello-world\tfalse\n/);
    const each = await run(['mailbox', 'list', '--ndjson', '--template', '<{{ id }}>']);
    expect(
      each.stdout
        .trim()
        .split('\n')
        .every((l) => /^<[0-9a-f-]{36}>$/.test(l)),
    ).toBe(true);
  });

  it('an expression that does not parse: one line naming line and column, exit 2, before any request', async () => {
    // The profile points at a port nobody listens on: a request would fail with exit 1.
    const dead = { env: { LANYARD_TOKEN: token, LANYARD_PROFILE: 'nowhere' } };
    await world.run(['config', 'set', 'hosting.apiUrl', 'http://127.0.0.1:9/api', '--profile', 'nowhere']);
    for (const [args, msg] of [
      [['--jq', '.login | ]['], '--jq: syntax error, unexpected INVALID_CHARACTER (line 1, column 10)'],
      [['--jq', '.login |\n  map(.x'], '--jq: syntax error, unexpected end of the expression (line 2, column 9)'],
      [['--jq', '.a | nosuch(1)'], '--jq: nosuch/1 is not defined (line 1, column 6)'],
      [['--template', '{{ login | nosuch }}'], '--template: undefined filter: nosuch (line 1, column 1)'],
      [['--jq', '.', '--template', 'x'], '--jq and --template cannot be used together'],
    ] as const) {
      const r = await world.run(['api', '/user', ...args], dead);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trim()).toBe(msg);
      expect(r.stdout).toBe('');
    }
  });

  it('an error while running the expression is exit 1', async () => {
    const r = await run(['api', '/user', '--jq', '.login | error("no \\(.)")']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('--jq: no mona');
  });
});
