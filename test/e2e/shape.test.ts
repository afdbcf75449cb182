/**
 * `--jq` and `--template` end to end: the root hook's part (--jq implies
 * --json on a command that has it; per message on mailbox list --ndjson).
 * Shaping api's output (per item, Liquid's helpers) and the errors (exit 2
 * with line and column before any request; exit 1 while running) are tested
 * as run functions in test/unit/cli/shape/api-shaping.test.ts.
 */
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

  it('--template through the program: per message with mailbox list --ndjson', async () => {
    const each = await run(['mailbox', 'list', '--ndjson', '--template', '<{{ id }}>']);
    expect(
      each.stdout
        .trim()
        .split('\n')
        .every((l) => /^<[0-9a-f-]{36}>$/.test(l)),
    ).toBe(true);
  });
});
