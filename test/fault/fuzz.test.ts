/**
 * Fuzzed arguments for every command, generated from the commander tree:
 * each leaf command gets hostile values in each of its value-taking options
 * and in its arguments (empty, newline, `..`, a URL with userinfo, a huge
 * number, a negative one, a terminal escape). What must hold: the command
 * ends (a hostile server answers every request with a 500), with an exit
 * code the README documents, and never with "unexpected error" (an
 * unhandled failure). Run in process, through the same parse → run →
 * exit-code path as main.ts, so a thousand cases take seconds.
 */
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../src/cli/context.js';
import { buildProgram } from '../../src/cli/program.js';
import { createTestIO } from '../fakes/io.js';
import { hostileWorld, type HostileWorld } from './hostile.js';
import { inProcessEnv, runInProcess } from './in-process.js';

let w: HostileWorld;
beforeAll(async () => {
  w = await hostileWorld();
});
afterAll(async () => w.close());

const HOSTILE = ['', '\n', '..', 'http://user:pw@127.0.0.1:9/x', '99999999999999999999999', '-1', '\u001b]0;x\u0007'];
/** Commands that start something long-lived or run another program: not fuzzed here. */
const SKIP = new Set(['emulator start', 'exec', 'completion', '__complete']);

interface Leaf {
  words: string[];
  cmd: Command;
}

function leaves(cmd: Command, words: string[] = []): Leaf[] {
  const out: Leaf[] = [];
  for (const sub of cmd.commands) {
    const w2 = [...words, sub.name()];
    if (SKIP.has(w2.join(' ')) || SKIP.has(sub.name())) continue;
    if (sub.commands.length) out.push(...leaves(sub, w2));
    else out.push({ words: w2, cmd: sub });
  }
  return out;
}

function treeOf(): Command {
  const io = createTestIO();
  const ctx = createContext({ io, env: {}, signal: new AbortController().signal, version: '0.0.0', globals: () => ({}) });
  return buildProgram(ctx, 'full');
}

/** Placeholder values of a command's arguments (a UUID where ids are expected, else a word). */
function placeholders(cmd: Command): string[] {
  return cmd.registeredArguments.filter((a) => a.required).map(() => '0f9e8d7c-6b5a-4938-8271-605f4e3d2c1b');
}

function cases(): Array<[string, string[]]> {
  const out: Array<[string, string[]]> = [];
  for (const leaf of leaves(treeOf())) {
    const args = placeholders(leaf.cmd);
    const valued = leaf.cmd.options.filter((o) => (o.required || o.optional) && o.long);
    for (const v of HOSTILE) {
      for (const o of valued) out.push([`${leaf.words.join(' ')} ${o.long} ${JSON.stringify(v)}`, [...leaf.words, ...args, o.long!, v]]);
      leaf.cmd.registeredArguments.forEach((_a, i) => {
        const a2 = [...args];
        a2[i] = v;
        out.push([`${leaf.words.join(' ')} <arg ${i + 1}> ${JSON.stringify(v)}`, [...leaf.words, ...a2]]);
      });
    }
  }
  return out;
}

/** Runs argv as main.ts does, in this process; a run still going after 5 s is interrupted. */
async function run(argv: string[]): Promise<{ code: number; stderr: string }> {
  const io = createTestIO({ stdin: '' });
  const code = await runInProcess(argv, io, inProcessEnv(w.configDir), 5000);
  return { code, stderr: io.stderrText() };
}

describe('fuzzed arguments for every command', () => {
  const all = cases();
  it('covers every leaf command', () => {
    expect(all.length).toBeGreaterThan(300);
  });
  it.each(all)('%s', async (_name, argv) => {
    const r = await run(argv);
    expect([0, 1, 2, 3, 4, 130], r.stderr).toContain(r.code);
    expect(r.stderr).not.toMatch(/unexpected error/);
    expect(r.stderr).not.toMatch(/^\s+at .+[(:]\d+/m);
  });
});
