/**
 * Every command's --help (the root, groups and leaves of the real commander
 * tree) ends with an "Exit status:" block of the codes it can end with, each
 * with the meaning the README's "Exit codes" table gives it (then, after a
 * colon, what it means for that command); docs/commands.md is generated from
 * the same help. Where the help says how a command fails, the built CLI
 * fails so.
 */
import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_MEANINGS } from '../../src/shared/exit-codes.js';
import { commandPath, helpOf, makeProgram, walk } from './examples.js';
import { ROOT, runCli } from './harness.js';

/** The README's "Exit codes" table: code → meaning, backticks dropped. */
function readmeTable(): Map<string, string> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Exit codes'));
  const rows = [...section.matchAll(/^\| (\d+) \| (.+) \|$/gm)];
  return new Map(rows.map((m) => [m[1]!, m[2]!.replace(/`/g, '')]));
}

/** The rows of a help's "Exit status:" block: [code, text]. */
export function exitStatusIn(help: string): Array<[string, string]> {
  const m = /\nExit status:\n((?: {2}.*\n?)+)/.exec(help);
  if (!m) return [];
  // A row too long for the width goes on in lines indented under its text (help-wrap.ts): joined back.
  return m[1]!
    .replace(/\n {3,}/g, ' ')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const row = /^ {2}(\S+)\s+(.*)$/.exec(l);
      return [row?.[1] ?? '', row?.[2] ?? l];
    });
}

describe('"Exit status:" in every --help', () => {
  const { program, io } = makeProgram();
  const commands = [program, ...walk(program)];
  const table = readmeTable();

  it("the README's table and the meanings the help prints are the same codes and words", () => {
    expect([...table.keys()]).toEqual(Object.keys(EXIT_MEANINGS));
    for (const [code, meaning] of Object.entries(EXIT_MEANINGS)) {
      const documented = table.get(code) ?? '';
      expect(documented === meaning || documented.startsWith(`${meaning}: `), `README row ${code}: ${documented}`).toBe(true);
    }
  });

  it('each command has one, with documented codes only, 0 and 2 always (help, a bad flag)', () => {
    expect(commands.length).toBeGreaterThan(60);
    const wrong: string[] = [];
    for (const cmd of commands) {
      const name = `lanyard ${commandPath(cmd)}`.trim();
      const rows = exitStatusIn(helpOf(cmd, io));
      if (!rows.length) wrong.push(`${name}: no "Exit status:" block`);
      for (const [code, text] of rows) {
        if (code === 'other') continue;
        const meaning = EXIT_MEANINGS[Number(code) as keyof typeof EXIT_MEANINGS];
        if (!meaning || !table.has(code)) wrong.push(`${name}: code ${code} is not in the README's table`);
        else if (text !== meaning && !text.startsWith(`${meaning}: `)) wrong.push(`${name}: ${code} "${text}" is not the documented "${meaning}"`);
      }
      const codes = rows.map(([c]) => c);
      if (!codes.includes('0') || !codes.includes('2')) wrong.push(`${name}: without 0 or 2`);
      if (new Set(codes).size !== codes.length) wrong.push(`${name}: a code twice`);
    }
    expect(wrong).toEqual([]);
  });

  it('docs/commands.md has the block in every section', () => {
    const page = readFileSync(join(ROOT, 'docs', 'commands.md'), 'utf8');
    const sections = page.split(/^## /m).slice(1);
    expect(sections.length).toBe(commands.length);
    expect(sections.filter((s) => !s.includes('\nExit status:\n')).map((s) => s.split('\n')[0])).toEqual([]);
  });

  /** The codes one command's help lists. */
  const codesOf = (path: string) => {
    const cmd = commands.find((c) => commandPath(c) === path);
    if (!cmd) throw new Error(`no command ${path}`);
    return exitStatusIn(helpOf(cmd, io)).map(([c]) => c);
  };

  it('the built CLI ends as the help says where it fails', async () => {
    const held = createServer();
    await new Promise<void>((r) => held.listen(0, '127.0.0.1', r));
    const port = (held.address() as { port: number }).port;
    try {
      const cases: Array<[string, string[]]> = [
        ['emulator start', ['emulator', 'start', '--port', String(port), '--no-profile']],
        ['completion', ['completion', 'tcsh']],
        ['mailbox list', ['mailbox', 'list', '--bogus']],
      ];
      for (const [path, args] of cases) {
        const r = await runCli(args);
        expect(codesOf(path), `${path}: ${r.stderr}`).toContain(String(r.code));
      }
      expect(codesOf('emulator start')).not.toContain('130');
      expect(codesOf('health check')).toContain('5');
      expect(codesOf('config get')).not.toContain('4');
    } finally {
      held.close();
    }
  });
});
