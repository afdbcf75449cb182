/**
 * docs/commands.md is what the built CLI's `--help` prints, command by
 * command (src/tools/gen-reference.mjs walks the tree through the help
 * texts): a changed command, option, environment variable or example without
 * `npm run docs:reference` fails here.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT } from './harness.js';

describe('the command reference (docs/commands.md)', () => {
  it('is what `lanyard … --help` prints for every command', { timeout: 180_000 }, async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [join(ROOT, 'src', 'tools', 'gen-reference.mjs'), '--stdout'], {
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    });
    const committed = await readFile(join(ROOT, 'docs', 'commands.md'), 'utf8');
    expect(stdout.length).toBeGreaterThan(10_000);
    expect(committed === stdout, 'docs/commands.md is out of date with `lanyard --help`: run npm run docs:reference').toBe(true);
    // every command of the tree has its section (the walk found the groups' subcommands)
    for (const c of ['lanyard auth token create', 'lanyard echo key set', 'lanyard emulator start', 'lanyard mailbox list'])
      expect(stdout).toContain(`\n## ${c}\n`);
    expect(stdout).toContain('\nEnvironment (docs/conventions.md has the details):\n');
  });
});
