/**
 * Every command of the real commander tree (groups and leaves) shows an
 * "Examples:" block in its --help, and every example parses: it is run
 * through a copy of the program whose actions are replaced by no-ops, so
 * commander checks the subcommand path, the options (and their value
 * parsers), missing and excess arguments — without doing any work.
 */
import { CommanderError, type Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { commandPath as path, examplesIn, helpOf, makeProgram, walk } from './examples.js';
import { runCli } from './harness.js';

/**
 * The arguments of the `lanyard` invocation in an example shell line:
 * quotes honoured, `$(...)`/pipes/redirections/comments end it, leading
 * `VAR=value` assignments and pipe producers skipped.
 */
export function lanyardArgs(line: string): string[] | undefined {
  // `$(lanyard …)`, also inside double quotes: the substitution is the invocation
  const sub = /\$\((lanyard\b[^)]*)\)/.exec(line);
  if (sub) line = sub[1];
  const words: { text: string; op?: boolean }[] = [];
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (c === '#') break;
    if ('|&;()<>'.includes(c)) {
      let op: string = c;
      while (i + op.length < line.length && '|&;()<>'.includes(line[i + op.length]) && op.length < 2) op += line[i + op.length];
      words.push({ text: op, op: true });
      i += op.length;
      continue;
    }
    let w = '';
    while (i < line.length && !' \t|&;()<>'.includes(line[i])) {
      const ch = line[i];
      if (ch === "'") {
        const end = line.indexOf("'", i + 1);
        if (end < 0) throw new Error(`unbalanced ' in: ${line}`);
        w += line.slice(i + 1, end);
        i = end + 1;
      } else if (ch === '"') {
        let j = i + 1;
        while (j < line.length && line[j] !== '"') {
          if (line[j] === '\\') j++;
          j++;
        }
        if (j >= line.length) throw new Error(`unbalanced " in: ${line}`);
        w += line.slice(i + 1, j).replace(/\\(.)/g, '$1');
        i = j + 1;
      } else {
        w += ch;
        i++;
      }
    }
    words.push({ text: w });
  }
  const start = words.findIndex((w) => !w.op && w.text === 'lanyard');
  if (start < 0) return undefined;
  const args: string[] = [];
  for (const w of words.slice(start + 1)) {
    if (w.op) break;
    args.push(w.text);
  }
  return args;
}

/** Parses argv with every action replaced by a no-op; returns the command that would run. */
async function dryParse(args: string[]): Promise<string> {
  const { program } = makeProgram();
  let ran = '';
  for (const c of [program, ...walk(program)]) {
    // only commands that run something (a group with an action would swallow unknown subcommands)
    if (!(c as unknown as { _actionHandler?: unknown })._actionHandler) continue;
    c.action(function (this: Command) {
      ran = path(this);
    });
  }
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError && (err.code === 'commander.helpDisplayed' || err.code === 'commander.help')) return 'help';
    throw err;
  }
  return ran;
}

const { program: tree, io: treeIO } = makeProgram();
const commands = walk(tree);

describe('--help examples', () => {
  it('walks the whole tree (groups and leaves)', () => {
    const names = commands.map(path);
    for (const expected of [
      'auth',
      'auth login',
      'auth token create',
      'ratelimit status',
      'api',
      'echo send',
      'protocol request',
      'mailbox list',
      'health events',
      'config set',
      'profile use',
      'emulator start',
      'emulator admin',
      'completion',
    ]) {
      expect(names).toContain(expected);
    }
    expect(names.length).toBeGreaterThan(40);
  });

  for (const cmd of commands) {
    const name = path(cmd);
    it(`lanyard ${name} --help has examples that parse`, async () => {
      const help = helpOf(cmd, treeIO);
      const lines = examplesIn(help);
      expect(lines.length, `no "Examples:" block with a "$ lanyard …" line in \`lanyard ${name} --help\``).toBeGreaterThan(0);
      const own = lines.filter((l) => lanyardArgs(l) !== undefined);
      expect(own.length, `examples of ${name} never run lanyard`).toBe(lines.length);
      const mentions = own.filter((l) => {
        const args = lanyardArgs(l)!;
        const words = name.split(' ');
        // the example's subcommand path (global options skipped) starts with this command's path
        const positional = args.filter((a, k) => !a.startsWith('-') && !(k > 0 && /^(-p|--profile|--max-wait)$/.test(args[k - 1])));
        return words.every((w, k) => positional[k] === w);
      });
      expect(mentions.length, `no example of ${name} actually runs \`lanyard ${name}\``).toBeGreaterThan(0);
      for (const line of own) {
        const args = lanyardArgs(line)!;
        let ran: string;
        try {
          ran = await dryParse(args);
        } catch (err) {
          throw new Error(`example of \`${name}\` does not parse: $ ${line}\n  ${(err as Error).message}`);
        }
        expect(ran, `example runs no command: $ ${line}`).not.toBe('');
      }
    });
  }
});

describe('help text is well-formed', () => {
  it('every option and argument uses <value> / [value] placeholders', () => {
    const bad: string[] = [];
    for (const c of [tree, ...commands]) {
      for (const o of c.options) {
        if (!/^(-[A-Za-z], )?--[a-z][\w-]*( <[\w|./=@-]+>| \[[\w|./=@-]+\])?$/.test(o.flags)) bad.push(`${path(c) || 'lanyard'}: option ${o.flags}`);
      }
      for (const a of (c as unknown as { registeredArguments: { name(): string }[] }).registeredArguments) {
        if (!/^[\w.-]+$/.test(a.name())) bad.push(`${path(c)}: argument ${a.name()}`);
      }
    }
    expect(bad).toEqual([]);
  });
});

describe('the example checker can fail', () => {
  it('rejects an unknown flag, an unknown subcommand, a bad value and a missing argument', async () => {
    await expect(dryParse(['ratelimit', 'status', '--nope'])).rejects.toThrow(/unknown option/);
    await expect(dryParse(['ratelimit', 'statuz'])).rejects.toThrow(/unknown command/);
    await expect(dryParse(['emulator', 'fault', 'add', '--path', '/x'])).rejects.toThrow(/required option/);
    await expect(dryParse(['emulator', 'service-account', 'create', '--algorithm', 'HS256'])).rejects.toThrow(/Allowed choices/);
    await expect(dryParse(['config', 'set'])).rejects.toThrow(/missing required argument/);
    expect(await dryParse(['--profile', 'work', 'ratelimit', 'status', '--json'])).toBe('ratelimit status');
  });

  it('extracts the lanyard words of a shell line', () => {
    expect(lanyardArgs(`printf %s "$SECRET" | lanyard auth login --scopes 'repo gist' # note`)).toEqual(['auth', 'login', '--scopes', 'repo gist']);
    expect(lanyardArgs('export TOKEN=$(lanyard auth token)')).toEqual(['auth', 'token']);
    expect(lanyardArgs('lanyard ratelimit wait && ./bulk-job.sh')).toEqual(['ratelimit', 'wait']);
    expect(lanyardArgs('LANYARD_TOKEN=x lanyard api /user > out.json')).toEqual(['api', '/user']);
    expect(lanyardArgs('curl -s example.com')).toBeUndefined();
  });

  it('finds a group without examples', () => {
    const { program, io } = makeProgram();
    const bare = program.command('bare').description('no examples');
    expect(examplesIn(helpOf(bare, io))).toEqual([]);
  });
});

describe('the built CLI prints the examples', () => {
  it('for a group and a leaf', async () => {
    for (const args of [
      ['emulator', '--help'],
      ['mailbox', 'list', '--help'],
      ['help', 'auth'],
    ]) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).toMatch(/\nExamples:\n {2}\$ lanyard /);
    }
  });
});

describe('examples that once failed when pasted run against the emulator', () => {
  it('health event (published example needs --since; a seeded id) and mailbox part --output DIR/ (created)', { timeout: 120_000 }, async () => {
    const { startWorld, BIN, cleanEnv } = await import('./harness.js');
    const { mkdtemp, writeFile, chmod, rm, readdir } = await import('node:fs/promises');
    const { execFile } = await import('node:child_process');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const world = await startWorld();
    const dir = await mkdtemp(join(tmpdir(), 'lanyard-examples-'));
    try {
      await writeFile(join(dir, 'lanyard'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
      await chmod(join(dir, 'lanyard'), 0o755);
      const info = (await (await fetch(`${world.url}/_emulator/info`)).json()) as { health: { token: string } };
      const raw = [
        'Subject: with attachment',
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary=b',
        '',
        '--b',
        'Content-Type: text/plain',
        '',
        'body',
        '--b',
      ];
      raw.push('Content-Type: application/pdf', 'Content-Disposition: attachment; filename="report.pdf"', '', '%PDF-1.4', '--b--', '');
      const id = (await world.run(['--profile', 'emulator', 'mailbox', 'store', '-'], { input: raw.join('\r\n') })).stdout.trim();
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      const env = cleanEnv({ ...world.env, PATH: `${dir}:${process.env.PATH}`, LANYARD_PROFILE: 'emulator', LANYARD_HEALTH_TOKEN: info.health.token, ID: id });
      const lines = commands
        .filter((c) => ['health', 'health event', 'mailbox part'].includes(path(c)))
        .flatMap((c) => examplesIn(helpOf(c, treeIO)))
        .filter((l) => /lanyard (health event |mailbox part .*--output)/.test(l));
      expect(lines.length).toBeGreaterThanOrEqual(4);
      for (const line of lines) {
        const r = await new Promise<{ code: number; out: string }>((resolve) =>
          execFile('bash', ['-c', line], { cwd: dir, env, timeout: 30_000 }, (err, stdout, stderr) =>
            resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
          ),
        );
        expect(r.code, `$ ${line}\n${r.out}`).toBe(0);
      }
      expect(await readdir(join(dir, 'downloads'))).toEqual(['report.pdf']);
    } finally {
      await world.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
