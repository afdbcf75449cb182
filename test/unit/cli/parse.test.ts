/**
 * Every command of the real tree parses each of its options without running:
 * the action of every leaf is replaced by a spy (cli/cli's runF idea), then
 * each option is given alone (with the command's mandatory arguments and
 * options) and must reach the spy under its attribute name with the value
 * given. Nothing is sent, read or stored.
 */
import { type Command, CommanderError, type Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { createContext } from '../../../src/cli/context.js';
import { buildProgram } from '../../../src/cli/program.js';
import { createTestIO } from '../../fakes/io.js';

function makeProgram(): Command {
  let program: Command | undefined;
  const ctx = createContext({
    io: createTestIO(),
    env: { LANYARD_CONFIG_DIR: '/nonexistent/lanyard-parse-test' },
    signal: new AbortController().signal,
    version: '0.0.0-test',
    globals: () => program?.opts() ?? {},
  });
  program = buildProgram(ctx);
  return program;
}

type Internal = Command & { _actionHandler?: unknown; _hidden?: boolean };

/** Commands that run something (leaves and groups with their own action), hidden internals excluded. */
function runnable(cmd: Command, out: Command[] = []): Command[] {
  for (const sub of cmd.commands as Internal[]) {
    if (sub._hidden) continue;
    if (sub._actionHandler) out.push(sub);
    runnable(sub, out);
  }
  return out;
}

function pathOf(cmd: Command): string[] {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names;
}

/** Values checked before the action runs (the root's preAction hook compiles them). */
const VALID: Record<string, string> = { jq: '.', template: '{{ data }}', authParam: 'audience=api://x' };

/** A value commander accepts for an option or argument: its first choice, else a word. */
const sample = (choices: readonly string[] | undefined, name: string) => choices?.[0] ?? VALID[name] ?? `v-${name}`;

function optionArgs(o: Option): { args: string[]; expected: unknown } {
  const flag = o.long ?? o.short!;
  if (!o.required && !o.optional) return { args: [flag], expected: !o.negate };
  const v = sample(o.argChoices, o.attributeName());
  // Repeatable options collect into their default array.
  if (o.variadic) return { args: [flag, v], expected: [v] };
  // A custom parser (repeatable options collect into an array) decides the value, as commander does.
  return { args: [flag, v], expected: o.parseArg ? o.parseArg(v, o.defaultValue) : v };
}

interface Spied {
  calls: Array<{ args: unknown[]; opts: Record<string, unknown> }>;
}

/** Replaces every runnable command's action with a spy recording its arguments and options. */
function spyAll(program: Command): Map<Command, Spied> {
  const spies = new Map<Command, Spied>();
  for (const cmd of runnable(program)) {
    const s: Spied = { calls: [] };
    spies.set(cmd, s);
    cmd.action((...a: unknown[]) => {
      const self = a[a.length - 1] as Command;
      // With its parents' options: one a parent shares (auth token's --insecure-storage) lands there.
      s.calls.push({ args: a.slice(0, -2), opts: self.optsWithGlobals() });
    });
  }
  return spies;
}

function requiredArgs(cmd: Command): string[] {
  return cmd.registeredArguments.filter((a) => a.required).map((a) => sample(a.argChoices, a.name()));
}

function mandatory(cmd: Command, except?: Option): string[] {
  return cmd.options.filter((o) => o.mandatory && o !== except).flatMap((o) => optionArgs(o).args);
}

const commands = runnable(makeProgram());

describe('every command parses without running', () => {
  it('finds the commands', () => {
    expect(commands.length).toBeGreaterThan(30);
  });

  for (const cmd of commands) {
    const path = pathOf(cmd);
    it(`lanyard ${path.join(' ')}: each option reaches the run function`, async () => {
      for (const o of cmd.options.filter((x) => !x.hidden)) {
        const program = makeProgram();
        const spies = spyAll(program);
        const target = runnable(program).find((c) => pathOf(c).join(' ') === path.join(' '))!;
        const { args, expected } = optionArgs(o);
        await program.parseAsync([...path, ...requiredArgs(cmd), ...mandatory(cmd, o), ...args], { from: 'user' });
        const calls = spies.get(target)!.calls;
        expect(calls, `${path.join(' ')} ${args.join(' ')}`).toHaveLength(1);
        expect(calls[0]!.opts[o.attributeName()], `${path.join(' ')} ${args.join(' ')}`).toEqual(expected);
        for (const [other, s] of spies) if (other !== target) expect(s.calls).toHaveLength(0);
      }
    });
  }

  it('the check can fail: an unknown option is a usage error and nothing runs', async () => {
    const program = makeProgram();
    const spies = spyAll(program);
    await expect(program.parseAsync(['ratelimit', 'status', '--no-such-option'], { from: 'user' })).rejects.toBeInstanceOf(CommanderError);
    for (const s of spies.values()) expect(s.calls).toHaveLength(0);
  });
});
