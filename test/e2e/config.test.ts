/**
 * `lanyard config`: the program's part (--help's examples, commander's
 * unknown option) as a real process. config's and profile's behaviour is
 * tested as run functions in test/unit/cli/config/config-profile.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
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
  it('--help has examples; an unknown flag is a usage error', async () => {
    const h = await run(['config', 'set', '--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/Examples:\n {2}\$ lanyard config set/);
    const bad = await run(['config', 'list', '--nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown option '--nope'/);
  });
});
