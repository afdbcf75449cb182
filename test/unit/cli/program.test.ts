/**
 * The tree is declared only as far as a command needs it (treeScope): the
 * partial trees must print exactly what the whole tree prints.
 */
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  buildProgram,
  helpArgs,
  knownHelpTopic,
  optionSuggestion,
  subcommandWord,
  treeScope,
  VALUE_OPTIONS,
  type TreeScope,
} from '../../../src/cli/program.js';
import { ROOT_OPTIONS } from '../../../src/cli/root-options.js';
import { createContext } from '../../../src/cli/context.js';
import { createTestIO, type TestIO } from '../../fakes/io.js';
import { recordRootHelp, renderRootHelp } from '../../../src/cli/output/root-help.js';

function program(scope: TreeScope, columns = 100, io: TestIO = createTestIO({ columns })): Command {
  let p: Command | undefined;
  const ctx = createContext({
    io,
    env: { LANYARD_CONFIG_DIR: '/nonexistent/lanyard-program-test' },
    signal: new AbortController().signal,
    version: '0.0.0-test',
    globals: () => p?.opts() ?? {},
  });
  p = buildProgram(ctx, scope);
  return p;
}

describe('treeScope', () => {
  it('names the group after root options (with or without values)', () => {
    expect(treeScope(['ratelimit', 'status', '--json'])).toEqual({ group: 'ratelimit' });
    expect(treeScope(['--profile', 'auth', 'mailbox', 'list'])).toEqual({ group: 'mailbox' });
    expect(treeScope(['-p', 'x', '--debug', '--wait', '--max-wait', '5m', 'api', '/user'])).toEqual({ group: 'api' });
    expect(treeScope(['--profile=ci', '-pci', '--no-color', '--basic-client', 'health', 'events'])).toEqual({ group: 'health' });
  });
  it('is shallow with no command word at all', () => {
    expect(treeScope([])).toBe('shallow');
    expect(treeScope(['--help'])).toBe('shallow');
    expect(treeScope(['-p', 'ci', '-h'])).toBe('shallow');
  });
  it('is the whole tree for help, completion, typos and anything unusual', () => {
    expect(treeScope(['help', 'auth'])).toBe('full');
    expect(treeScope(['completion', 'bash'])).toBe('full');
    expect(treeScope(['__complete', 'auth', ''])).toBe('full');
    expect(treeScope(['ratelimt', 'status'])).toBe('full');
    expect(treeScope(['--bogus', 'auth', 'status'])).toBe('full');
    expect(treeScope(['--', 'auth'])).toBe('full');
  });
});

describe("helpArgs and knownHelpTopic: help only for a bare request, the rest is commander's to refuse", () => {
  it('appends --help to bare lanyard and a bare group (root options allowed), not when an option is unknown', () => {
    expect(helpArgs([])).toEqual(['--help']);
    expect(helpArgs(['-p', 'x', '--debug', 'auth'])).toEqual(['-p', 'x', '--debug', 'auth', '--help']);
    expect(helpArgs(['--nosuch'])).toEqual(['--nosuch']);
    expect(helpArgs(['-p', 'x', '-Z'])).toEqual(['-p', 'x', '-Z']);
    expect(helpArgs(['auth', '--with-token'])).toEqual(['auth', '--with-token']);
  });
  it('every root option, alone, still gets the root help (a new root option must be known to helpArgs)', () => {
    for (const [flags] of Object.values(ROOT_OPTIONS)) {
      const long = /--[a-z-]+/.exec(flags)![0];
      const args = /</.test(flags) ? [long, 'x'] : [long];
      expect(helpArgs(args), flags).toEqual([...args, '--help']);
    }
  });
  it('keeps `help <words>` as --help only when the words name a command', () => {
    const full = program('full');
    expect(knownHelpTopic(full, helpArgs(['help', 'auth', 'status']))).toEqual(['auth', 'status', '--help']);
    expect(knownHelpTopic(full, helpArgs(['help', 'auth', 'nosuch']))).toEqual(['auth', 'nosuch']);
    expect(knownHelpTopic(full, helpArgs(['help', 'nosuch']))).toEqual(['nosuch']);
    expect(knownHelpTopic(full, helpArgs(['help', '--nosuch', 'auth']))).toEqual(['--nosuch', 'auth']);
    expect(knownHelpTopic(full, ['-p', 'x', 'auth', '--with-token', '--help'])).toEqual(['-p', 'x', 'auth', '--with-token']);
    // Past the commands: a command's arguments, and the options it takes or not (its help wins).
    expect(knownHelpTopic(full, ['api', '/user', '--help'])).toEqual(['api', '/user', '--help']);
    expect(knownHelpTopic(full, ['auth', 'status', '--nosuch', '--help'])).toEqual(['auth', 'status', '--nosuch', '--help']);
    expect(knownHelpTopic(full, ['--debug', '--timeout=5s', 'auth', '-h'])).toEqual(['--debug', '--timeout=5s', 'auth', '-h']);
  });
  it('names the commands of a group that take an option given to the group', () => {
    const full = program('full');
    expect(optionSuggestion(full, ['auth'], '--with-token')).toBe('`lanyard auth token --with-token`');
    expect(optionSuggestion(full, ['auth'], '--nosuch')).toBeUndefined();
    expect(optionSuggestion(full, [], '--with-token')).toBeUndefined();
    expect(optionSuggestion(full, ['auth', 'status'], '--with-token')).toBeUndefined();
  });
});

describe("subcommandWord (with the group, the key of the launcher's code cache)", () => {
  it("is the word after the group when it names one of the group's commands, after root options with values", () => {
    expect(subcommandWord(program({ group: 'auth' }), 'auth', ['auth', 'status', '--json'])).toBe('status');
    expect(subcommandWord(program({ group: 'auth' }), 'auth', ['-p', 'auth', 'auth', 'token'])).toBe('token');
    expect(subcommandWord(program({ group: 'mailbox' }), 'mailbox', ['--debug', 'mailbox', 'raw', 'x'])).toBe('raw');
  });
  it('is none for a word that names no command of the group, an option, or no word', () => {
    expect(subcommandWord(program({ group: 'auth' }), 'auth', ['auth', 'statsu'])).toBeUndefined();
    expect(subcommandWord(program({ group: 'auth' }), 'auth', ['auth', '--help'])).toBeUndefined();
    expect(subcommandWord(program({ group: 'auth' }), 'auth', ['auth'])).toBeUndefined();
    expect(subcommandWord(program({ group: 'api' }), 'api', ['api', 'user'])).toBeUndefined();
  });
});

describe('partial trees', () => {
  it('the shallow root help is the full root help', () => {
    for (const columns of [60, 80, 100, 160]) {
      expect(program('shallow', columns).helpInformation()).toBe(program('full', columns).helpInformation());
    }
  });
  it("a group's tree is the same group of the full tree", () => {
    const full = program('full');
    for (const g of full.commands.filter((c) => c.name() !== 'help' && c.name() !== '__complete' && c.name() !== 'completion')) {
      const alone = program({ group: g.name() });
      expect(alone.commands.map((c) => c.name())).toEqual([g.name()]);
      const mine = alone.commands[0]!;
      expect(mine.helpInformation()).toBe(g.helpInformation());
      expect(mine.commands.map((c) => c.helpInformation())).toEqual(g.commands.map((c) => c.helpInformation()));
    }
  });
  it('the check can fail: a shallow tree lacks the subcommands', () => {
    const shallow = program('shallow').commands.find((c) => c.name() === 'auth')!;
    const full = program('full').commands.find((c) => c.name() === 'auth')!;
    expect(shallow.commands).toHaveLength(0);
    expect(shallow.helpInformation()).not.toBe(full.helpInformation());
  });
});

/** The entries of a help text's "Commands:" block, each with the lines it takes. */
function commandEntries(help: string): { name: string; lines: number }[] {
  const block = /\nCommands:\n((?: {2}.*\n)+)/.exec(help)?.[1] ?? '';
  const entries: { name: string; lines: number }[] = [];
  for (const line of block.split('\n').filter(Boolean)) {
    if (/^ {2}\S/.test(line)) entries.push({ name: line.trim().split(/\s/)[0]!, lines: 1 });
    else entries.at(-1)!.lines++;
  }
  return entries;
}

describe('the root help', () => {
  it('lists each command or group on one line at 80 columns (the detail is in its own help)', () => {
    for (const scope of ['shallow', 'full'] as const) {
      const entries = commandEntries(program(scope, 80).helpInformation());
      expect(entries.map((e) => e.name)).toEqual([
        'auth',
        'ratelimit',
        'api',
        'exec',
        'echo',
        'protocol',
        'mailbox',
        'health',
        'config',
        'profile',
        'doctor',
        'emulator',
        'completion',
        'help',
      ]);
      for (const e of entries) expect({ name: e.name, lines: e.lines }).toEqual({ name: e.name, lines: 1 });
    }
  });
  it('the count can fail: a long description takes more than one line', () => {
    expect(commandEntries('\nCommands:\n  doctor  a\n          b\n  help    c\n')).toEqual([
      { name: 'doctor', lines: 2 },
      { name: 'help', lines: 1 },
    ]);
  });
  it("doctor's and exec's own help keep the detail", () => {
    const full = program('full', 80);
    const help = (name: string) => full.commands.find((c) => c.name() === name)!.helpInformation();
    expect(help('doctor')).toMatch(/For each service of the profile/);
    expect(help('exec')).toMatch(/never on\s+its command line/);
    expect(help('auth')).toMatch(/context-protocol servers and the health API/);
  });
});

describe("the launcher's command word (bin/lanyard.js keys its code cache by it)", () => {
  it('skips the same root options that take a value as treeScope does', () => {
    const text = readFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'bin', 'lanyard.js'), 'utf8');
    const m = /function commandWord[\s\S]*?if \(((?:a === '[^']+'(?: \|\| )?)+)\) i\+\+;/.exec(text);
    expect(m).not.toBeNull();
    const launcher = [...m![1]!.matchAll(/'([^']+)'/g)].map((x) => x[1]!).sort();
    expect(launcher).toEqual([...VALUE_OPTIONS].sort());
  });
});

// The root help at a terminal's width without the CLI (src/cli/output/root-help.ts): the recorded
// layout, wrapped by commander's Help at any width, is exactly what commander prints on a terminal that wide.
/** What commander prints for `lanyard --help` on a terminal `columns` wide (its text and the texts added after it). */
function commanderHelp(columns: number): string {
  const io = createTestIO({ tty: true, columns });
  program('shallow', columns, io).outputHelp();
  return io.stdoutText();
}

describe('the root help rendered from its layout', () => {
  // What the build does (the shallow tree of `lanyard --help`; its context is never asked).
  const layout = recordRootHelp(buildProgram({} as never, 'shallow'));

  it("is commander's text at every width, narrow and wide", () => {
    for (const columns of [20, 39, 40, 55, 70, 79, 80, 81, 100, 132, 200, 400]) {
      expect(renderRootHelp(layout, columns), `${columns} columns`).toBe(commanderHelp(columns));
    }
  });

  it('keeps what commander wraps as parts of their own, the rest as printed lines', () => {
    const wrapped = layout.parts.filter((p) => typeof p !== 'string');
    expect(wrapped.filter((p) => 'wrap' in p)).toEqual([{ wrap: expect.stringMatching(/^Sign in to and call the hosting/) }]);
    expect(wrapped.filter((p) => 'item' in p).map((p) => ('item' in p ? p.item[0] : ''))).toEqual(
      expect.arrayContaining(['-V, --version', '--timeout <duration>', 'auth', 'api', 'help']),
    );
    expect(layout.parts).toContain('Environment (docs/conventions.md has the details):');
    // Survives the trip through JSON (dist/root-help.json).
    expect(renderRootHelp(JSON.parse(JSON.stringify(layout)), 70)).toBe(commanderHelp(70));
  });

  it('leaves the program as it found it', () => {
    const io = createTestIO({ tty: true, columns: 64 });
    const p = program('shallow', 64, io);
    const before = p.helpInformation();
    recordRootHelp(p);
    expect(p.helpInformation()).toBe(before);
    p.outputHelp();
    expect(io.stdoutText()).toBe(commanderHelp(64));
  });
});
