/**
 * Help as people ask for it: bare `lanyard` and bare groups print help on
 * stdout with exit 0, `lanyard help <group> <command>` shows the command's
 * help, common guesses get a suggestion, and completion offers only values
 * the commands accept.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startWorld, type World } from './harness.js';

describe('help requests', () => {
  it('bare `lanyard` prints the root help on stdout, exit 0', async () => {
    const r = await runCli([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: lanyard \[options\] \[command\]/);
    expect(r.stderr).toBe('');
  });

  it.each(['auth', 'mailbox', 'emulator', 'ratelimit'])('bare `lanyard %s` prints the group help on stdout, exit 0', async (group) => {
    const r = await runCli(['--no-color', group]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Usage: lanyard ${group} \\[options\\] \\[command\\]`));
    expect(r.stderr).toBe('');
  });

  it('`lanyard help mailbox list` is the help of `mailbox list`, not of the group', async () => {
    const r = await runCli(['help', 'mailbox', 'list']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: lanyard mailbox list \[options\]/);
    expect(r.stdout).toContain('--ndjson');
    const group = await runCli(['help', 'mailbox']);
    expect(group.stdout).toMatch(/^Usage: lanyard mailbox \[options\] \[command\]/);
  });

  it.each([
    [['login'], 'lanyard auth device'],
    [['logout'], 'lanyard auth logout'],
    [['status'], 'lanyard auth status'],
    [['mailbox', 'rm', '0f0f'], 'lanyard mailbox delete'],
    [['--profile', 'x', 'whoami'], 'lanyard auth status'],
  ])('`lanyard %s` suggests what was meant (exit 2)', async (args, meant) => {
    const r = await runCli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown command/);
    expect(r.stderr).toContain(`Did you mean \`${meant}\``);
  });

  // An option at the wrong level (or a help topic that is not a command) must fail a CI job, not print help with 0.
  it.each([
    [['--nosuch'], "unknown option '--nosuch'"],
    [['-Z'], "unknown option '-Z'"],
    [['--profile', 'x', '--nosuch'], "unknown option '--nosuch'"],
    [['auth', '--nosuch'], "unknown option '--nosuch'"],
    [['emulator', '--nosuch'], "unknown option '--nosuch'"],
    [['help', 'nosuch'], "unknown command 'nosuch'"],
    [['help', 'auth', 'nosuch'], "unknown command 'nosuch'"],
    [['help', '--nosuch'], "unknown option '--nosuch'"],
    [['help', '--nosuch', 'auth', 'status'], "unknown option '--nosuch'"],
    [['--help', '--nosuch'], "unknown option '--nosuch'"],
    [['auth', '--nosuch', '--help'], "unknown option '--nosuch'"],
  ])('`lanyard %s` is a usage error: one error line on stderr, nothing on stdout, exit 2', async (args, message) => {
    const r = await runCli(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')[0]).toBe(`error: ${message}`);
    expect(r.stderr).not.toMatch(/^Usage:/m);
  });

  it('`lanyard auth --with-token` (the subcommand left out) fails and stores nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lanyard-wrong-level-'));
    try {
      const r = await runCli(['auth', '--with-token'], { input: 'lyp_emulator_default_token_0000000000000001\n', env: { LANYARD_CONFIG_DIR: dir } });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^error: unknown option '--with-token'/);
      // The command of the group that takes the option.
      expect(r.stderr).toContain('Did you mean `lanyard auth token --with-token`?');
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a command's own help still wins over an option it does not take (commander's rule; nothing runs)", async () => {
    const r = await runCli(['auth', 'status', '--nosuch', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: lanyard auth status/);
  });

  it('a typo with no guess says no more than commander does', async () => {
    const r = await runCli(['frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain('Did you mean `');
  });
});

describe('completion values', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(async () => world?.stop());

  it('every rate-limit resource completion offers is accepted by `ratelimit status --resource`', async () => {
    const offered = (await runCli(['__complete', 'resources'])).stdout.trim().split('\n');
    expect(offered).toContain('core');
    expect(offered).not.toContain('lfs');
    const known = Object.keys(JSON.parse((await world.run(['--profile', 'emulator', 'ratelimit', 'status', '--json'])).stdout).resources);
    for (const r of offered) expect(known).toContain(r);
    const lfs = await world.run(['--profile', 'emulator', 'ratelimit', 'status', '--resource', 'lfs']);
    expect(lfs.code).toBe(2);
  });
});
