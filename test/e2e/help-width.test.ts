/**
 * `--help` fits the terminal: the hand-written blocks (notes, examples, exit
 * statuses, the root's network and environment blocks) wrap at 80 columns
 * into a pipe and at the terminal's width on a terminal, as commander wraps
 * its own parts; a wrapped example still pastes as one command.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { wrapHelp } from '../../src/cli/output/help-wrap.js';
import { commandPath, examplesIn, helpOf, makeProgram, walk } from './examples.js';
import { runOnPty } from './pty.js';

/** A line wider than `width` is allowed only when it is one word that cannot be broken (a quoted argument of an example). */
function overflowing(text: string, width: number): string[] {
  return text.split(/\r?\n/).filter((l) => [...l].length > width && !/^\s*("[^"]*"|'[^']*')( \\)?$/.test(l));
}

describe('--help at 80 columns (into a pipe)', () => {
  const { program, io } = makeProgram();
  it('no line of any command’s help is wider than 80 columns', () => {
    const wide: string[] = [];
    for (const cmd of [program, ...walk(program)]) for (const l of overflowing(helpOf(cmd, io), 80)) wide.push(`lanyard ${commandPath(cmd)}: ${l}`);
    expect(wide).toEqual([]);
  });

  it('the root help the launcher prints into a pipe fits too', () => {
    const r = spawnSync(process.execPath, ['bin/lanyard.js', '--help'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(overflowing(r.stdout, 80)).toEqual([]);
  });
});

describe('wrapping', () => {
  it('a long example breaks between shell words, outside quotes, with ` \\` — and reads back as the same command', () => {
    const example = `  $ lanyard protocol request http://127.0.0.1:8080/mcp --method tools/call --params '{"name":"echo","arguments":{"text":"hi there"}}' --json   # exit 0`;
    const wrapped = wrapHelp(`\nExamples:\n${example}\n`, 60);
    for (const l of wrapped.split('\n')) expect([...l].length).toBeLessThanOrEqual(60);
    expect(wrapped).toContain(`'{"name":"echo","arguments":{"text":"hi there"}}'`);
    expect(examplesIn(wrapped)).toEqual([example.trim().slice(2).replace(/ {2,}/g, ' ')]);
    // bash reads the wrapped lines as the one command.
    const words = spawnSync('bash', ['-c', `printf '%s\\n' ${wrapped.split('$ ')[1]!.replace(/#.*/, '')}`], { encoding: 'utf8' }).stdout;
    expect(words.split('\n')).toContain('{"name":"echo","arguments":{"text":"hi there"}}');
  });

  it('an exit-status row goes on under its text; a paragraph at the margin stays at the margin', () => {
    const text = wrapHelp(
      `  2     usage or bad input (unknown flag, invalid value, missing profile setting): the port is in use\nOn a terminal the output goes through a pager: LANYARD_PAGER, else the pager setting, else PAGER`,
      60,
    );
    const lines = text.split('\n');
    expect(lines[1]).toMatch(/^ {8}\S/);
    expect(lines.find((l) => l.startsWith('On a terminal'))).toBeDefined();
    expect(lines.at(-1)).toMatch(/^\S/);
  });
});

describe('--help on a terminal', () => {
  it.each([['ratelimit', '--help'], ['mailbox', 'list', '--help'], ['--help']])('%s … wraps at a 72-column terminal’s width', async (...args) => {
    const r = await runOnPty({ args, send: null, cols: 72, env: { LANYARD_PAGER: '' } });
    expect(r.exitCode, r.output).toBe(0);
    expect(overflowing(r.output, 72)).toEqual([]);
  });
});
