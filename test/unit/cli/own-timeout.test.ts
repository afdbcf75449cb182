/**
 * Commands with their own `--timeout` (the bound of a sign-in or of
 * `ratelimit wait`) describe it in their help, and take the value of the root
 * option (each request's deadline), which commander hands the value to
 * wherever it stands.
 * Each command's action is replaced by a spy that resolves the bound the way
 * the command does (waitTimeoutMs).
 */
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { type Context, createContext } from '../../../src/cli/context.js';
import { waitTimeoutMs } from '../../../src/cli/option-parse.js';
import { buildProgram } from '../../../src/cli/program.js';
import { createTestIO } from '../../fakes/io.js';

function makeProgram(): { program: Command; ctx: Context; io: ReturnType<typeof createTestIO> } {
  let program: Command | undefined;
  const io = createTestIO();
  const ctx = createContext({
    io,
    env: { LANYARD_CONFIG_DIR: '/nonexistent/lanyard-own-timeout-test' },
    signal: new AbortController().signal,
    version: '0.0.0-test',
    globals: () => program?.opts() ?? {},
  });
  program = buildProgram(ctx);
  return { program, ctx, io };
}

function leaves(cmd: Command, out: Command[] = []): Command[] {
  for (const sub of cmd.commands) {
    if (sub.options.some((o) => o.long === '--timeout')) out.push(sub);
    leaves(sub, out);
  }
  return out;
}

const pathOf = (cmd: Command) => {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names;
};

const mandatory = (cmd: Command) => cmd.options.filter((o: Option) => o.mandatory).flatMap((o) => [o.long!, o.argChoices?.[0] ?? `v-${o.attributeName()}`]);
const required = (cmd: Command) => cmd.registeredArguments.filter((a) => a.required).map((a) => `v-${a.name()}`);

/** The bound the command `path` computes from `argv`, in ms (undefined: none). */
async function boundOf(path: string[], argv: (cmdArgs: string[]) => string[]): Promise<number | undefined> {
  const { program, ctx } = makeProgram();
  const target = leaves(program).find((c) => pathOf(c).join(' ') === path.join(' '))!;
  const seen: Array<number | undefined> = [];
  const byDefault = path[0] === 'ratelimit' ? undefined : '5m';
  target.action((...a: unknown[]) => {
    // The command's own option never gets the value: the root's does, wherever it stands (so no option type has it).
    expect(((a[a.length - 1] as Command).opts() as { timeout?: string }).timeout).toBeUndefined();
    seen.push(byDefault === undefined ? waitTimeoutMs(ctx) : waitTimeoutMs(ctx, byDefault));
  });
  await program.parseAsync(argv([...path, ...required(target), ...mandatory(target)]), { from: 'user' });
  expect(seen).toHaveLength(1);
  return seen[0];
}

const commands = leaves(makeProgram().program).map(pathOf);

describe('a command’s own --timeout', () => {
  it('the commands that have one', () => {
    expect(commands.map((p) => p.join(' ')).sort()).toEqual([
      'auth login',
      'auth refresh',
      'echo auth-info',
      'echo token',
      'protocol bridge',
      'protocol request',
      'ratelimit wait',
    ]);
  });

  for (const path of commands) {
    const name = path.join(' ');
    it(`lanyard ${name} --timeout 2s bounds its wait; before the command name too; help shows it`, async () => {
      expect(await boundOf(path, (c) => [...c, '--timeout', '2s'])).toBe(2000);
      expect(await boundOf(path, (c) => [...c, '--timeout=3s'])).toBe(3000);
      expect(await boundOf(path, (c) => ['--timeout', '4s', ...c])).toBe(4000);
      expect(await boundOf(path, (c) => c)).toBe(name === 'ratelimit wait' ? undefined : 300_000);
      // No commander default: it would hide the value the root option took.
      const { program, io } = makeProgram();
      const cmd = leaves(program).find((c) => pathOf(c).join(' ') === name)!;
      expect(cmd.options.find((o) => o.long === '--timeout')!.defaultValue).toBeUndefined();
      await program.parseAsync([...path, '--help'], { from: 'user' }).catch(() => undefined);
      expect(io.stdoutText()).toMatch(/--timeout <duration>\s+(give up|.*wait)/);
    });
  }
});
