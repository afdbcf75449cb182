/**
 * Where the examples a user pastes come from: the "Examples:" block of every
 * command's `--help` (the real commander tree, hidden internals excluded) and
 * the shell blocks of README.md and of the manual's pages in docs/ (MANUAL).
 * Shared by the parse check (help.test.ts) and the run against the emulator
 * (examples-run.test.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/program.js';
import { createContext } from '../../src/cli/context.js';
import { createTestIO, type TestIO } from '../fakes/io.js';

/** One pasteable example: the shell text, where it is shown, the exit code it should end with. */
export interface Example {
  /** Shell text as shown (continuation lines joined). */
  text: string;
  /** Where it is shown: `lanyard auth --help`, `README.md:42 (Quick start)`, `docs/hosting.md:60 (Authentication)`. */
  source: string;
  /** Exit code the text says it ends with (`# exit N`), else 0. */
  exit: number;
  /** The examples shown together (one help text, one shell block of a page), pasted one after another. */
  block: string;
}

export function makeProgram(): { program: Command; io: TestIO } {
  const io = createTestIO();
  let program: Command | undefined;
  const ctx = createContext({
    io,
    env: { LANYARD_CONFIG_DIR: '/nonexistent/lanyard-help-test' },
    signal: new AbortController().signal,
    version: '0.0.0-test',
    globals: () => program?.opts() ?? {},
  });
  program = buildProgram(ctx);
  return { program, io };
}

/** The words after `lanyard` that name a command: `auth token create`. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Every visible command below the root (hidden internals such as `__complete` excluded). */
export function walk(cmd: Command, out: Command[] = []): Command[] {
  for (const sub of cmd.commands) {
    if ((sub as unknown as { _hidden?: boolean })._hidden) continue;
    out.push(sub);
    walk(sub, out);
  }
  return out;
}

/** The --help text of one command, "after" texts included (commander emits them as events). */
export function helpOf(cmd: Command, io: TestIO): string {
  const before = io.stdoutText().length;
  cmd.outputHelp();
  return io.stdoutText().slice(before);
}

/** The `$ …` lines of the "Examples:" block of a help text, without the prompt. */
export function examplesIn(help: string): string[] {
  const m = /\nExamples:\n((?: {2}.*\n?)+)/.exec(help);
  if (!m) return [];
  // A long example is wrapped to the help's width with ` \` at the end of each line but its last (help-wrap.ts): joined back, as the shell joins it.
  return m[1]
    .replace(/ \\\n\s+/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('$ '))
    .map((l) => l.slice(2));
}

/** `# exit N` at the end of an example (or of its sample output): the exit code it demonstrates. */
export function expectedExit(text: string): number | undefined {
  const m = /#\s*exit (\d+)\b[^'"]*$/.exec(text);
  return m ? Number(m[1]) : undefined;
}

/** Every example of every command's --help (root included), in tree order. */
export function helpExamples(tree: { program: Command; io: TestIO } = makeProgram()): Example[] {
  const { program, io } = tree;
  const out: Example[] = [];
  for (const cmd of [program, ...walk(program)]) {
    const name = commandPath(cmd);
    const source = `lanyard ${name ? `${name} ` : ''}--help`;
    for (const text of examplesIn(helpOf(cmd, io))) out.push({ text, source, exit: expectedExit(text) ?? 0, block: source });
  }
  return out;
}

/** Fence languages whose blocks are commands to paste. */
const SHELL = /^```(sh|bash|console|shell|shell-session)\s*$/;

/**
 * The commands of a page's shell blocks (```sh, ```bash, ```console):
 * a block with `$ ` prompts is a transcript (prompted lines are commands, the
 * rest their output, whose trailing `# exit N` belongs to the command above);
 * any other block is a script, one command per line (`\` joins lines, `#`
 * lines are comments).
 */
export function readmeExamples(readme: string, file = 'README.md'): Example[] {
  const lines = readme.split('\n');
  const out: Example[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (/^#{2,4} /.test(l)) heading = l.replace(/^#+ /, '');
    if (!SHELL.test(l)) {
      if (l.startsWith('```')) while (++i < lines.length && !lines[i]!.startsWith('```'));
      continue;
    }
    const body: Array<{ n: number; text: string }> = [];
    while (++i < lines.length && !lines[i]!.startsWith('```')) body.push({ n: i + 1, text: lines[i]! });
    const transcript = body.some((b) => b.text.startsWith('$ '));
    const block = `${file}:${body[0]?.n ?? i} (${heading})`;
    let last: Example | undefined;
    for (let k = 0; k < body.length; k++) {
      const { n, text } = body[k]!;
      const source = `${file}:${n} (${heading})`;
      if (transcript) {
        if (text.startsWith('$ ')) {
          let cmd = text.slice(2);
          while (cmd.endsWith('\\') && k + 1 < body.length) cmd = `${cmd.slice(0, -1)}${body[++k]!.text}`;
          last = { text: cmd, source, exit: expectedExit(cmd) ?? 0, block };
          out.push(last);
        } else if (last && expectedExit(text) !== undefined) last.exit = expectedExit(text)!;
        continue;
      }
      if (!text.trim() || text.trim().startsWith('#')) continue;
      let cmd = text;
      while (cmd.endsWith('\\') && k + 1 < body.length) cmd = `${cmd.slice(0, -1)}${body[++k]!.text}`;
      out.push({ text: cmd.trim(), source, exit: expectedExit(cmd) ?? 0, block });
    }
  }
  return out;
}

/**
 * The pages whose shell blocks are examples a user pastes: the README and the
 * manual in docs/ (the generated command reference repeats the help texts,
 * which helpExamples reads from the tree itself).
 */
export const MANUAL = [
  'README.md',
  'docs/conventions.md',
  'docs/configuration.md',
  'docs/hosting.md',
  'docs/echo.md',
  'docs/protocol-servers.md',
  'docs/mailbox.md',
  'docs/health.md',
  'docs/scripts-and-ci.md',
  'docs/emulator-guide.md',
  'docs/library.md',
  'docs/reliability.md',
  'docs/development.md',
  'docs/benchmarks.md',
];

/** Every example of the README and the manual's pages, page by page in MANUAL's order. */
export function manualExamples(root: string): Example[] {
  return MANUAL.flatMap((file) => readmeExamples(readFileSync(join(root, file), 'utf8'), file));
}
