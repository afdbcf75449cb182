/**
 * Shell completions run by the real shells (bash, zsh, fish) against the
 * built CLI. That the checked-in scripts are the generator's output, and the
 * logins `__complete accounts` offers, are tested without spawning in
 * test/unit/cli/completion.test.ts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandPath, makeProgram, walk } from './examples.js';
import { BIN, ROOT, cleanEnv, runCli } from './harness.js';

const FILES = { bash: 'lanyard.bash', zsh: '_lanyard', fish: 'lanyard.fish' } as const;

/**
 * Each command line (ending at the cursor) whose candidates are declared in
 * the real commander tree: for every option with choices, each of its
 * spellings (long and short) after its own command; for every positional
 * argument with choices, the word after its command. Sorted candidates.
 */
function declaredChoices(): Array<[line: string, want: string[]]> {
  const out: Array<[string, string[]]> = [];
  for (const cmd of walk(makeProgram().program)) {
    const path = commandPath(cmd);
    for (const o of cmd.options) {
      if (!o.argChoices?.length || o.hidden) continue;
      for (const flag of [o.long, o.short].filter(Boolean)) out.push([`lanyard ${path} ${flag} `, [...o.argChoices].sort()]);
    }
    const first = cmd.registeredArguments[0];
    if (first?.argChoices?.length) out.push([`lanyard ${path} `, [...first.argChoices].sort()]);
  }
  return out;
}

/**
 * Lines where a flag means something else than elsewhere: `mailbox label -r`
 * is --remove (a label, free text), not --resource; a global option's value
 * before the command.
 */
const SPECIFIC: Array<[line: string, want: string[]]> = [
  ['lanyard mailbox label 5 -r ', []],
  ['lanyard --profile work exec --service ', ['echo', 'health', 'hosting', 'protocol']],
  ['lanyard -p work completion ', ['bash', 'fish', 'zsh']],
  // A positional argument's choices only at its own position.
  ['lanyard completion bash ', []],
];

describe('shell completions', () => {
  let binDir: string;
  let configDir: string;
  beforeAll(async () => {
    binDir = mkdtempSync(join(tmpdir(), 'lanyard-bin-'));
    configDir = mkdtempSync(join(tmpdir(), 'lanyard-cfg-'));
    symlinkSync(BIN, join(binDir, 'lanyard'));
    const env = { LANYARD_CONFIG_DIR: configDir };
    await runCli(['--profile', 'work', 'config', 'set', 'hosting.apiUrl', 'https://code.example.com/api/v3'], { env });
    await runCli(['--profile', 'staging', 'config', 'set', 'hosting.apiUrl', 'https://staging.example.com/api/v3'], { env });
  });
  afterAll(() => {
    rmSync(binDir, { recursive: true, force: true });
    rmSync(configDir, { recursive: true, force: true });
  });

  it('rejects an unknown shell with exit 2', async () => {
    const r = await runCli(['completion', 'tcsh']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bash, zsh, fish/);
  });

  /** Runs the bash completion function for a command line ending at the cursor. */
  function complete(line: string, extraEnv: Record<string, string> = {}): string[] {
    const words = line.split(' ');
    const script = `
      source ${JSON.stringify(join(ROOT, 'completions', 'lanyard.bash'))}
      complete -p lanyard >/dev/null || exit 9
      COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})
      COMP_CWORD=${words.length - 1}
      _lanyard
      printf '%s\\n' "\${COMPREPLY[@]}"`;
    const r = spawnSync('bash', ['--norc', '--noprofile', '-c', script], {
      env: { ...cleanEnv({ LANYARD_CONFIG_DIR: configDir, ...extraEnv }), PATH: `${binDir}:${process.env.PATH}` },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    return r.stdout.split('\n').filter(Boolean);
  }

  it('completes subcommands', () => {
    expect(complete('lanyard au')).toEqual(['auth']);
    expect(complete('lanyard auth ')).toEqual(expect.arrayContaining(['device', 'login', 'token', 'status', 'logout']));
    expect(complete('lanyard ratelimit s')).toEqual(['status']);
  });

  it('completes flags of the command at the cursor, with global flags', () => {
    const flags = complete('lanyard ratelimit status --');
    expect(flags).toEqual(expect.arrayContaining(['--resource', '--fail-under', '--json', '--profile', '--help']));
    expect(flags).not.toContain('--scopes');
  });

  it('completes profile names from the config', () => {
    expect(complete('lanyard --profile ').sort()).toEqual(['staging', 'work']);
    expect(complete('lanyard ratelimit status -p w')).toEqual(['work']);
  });

  it("completes --user with the logins stored for the profile's host (never the token, never another host's)", () => {
    const secret = 'lyp_completion_test_token_0000000000001';
    const record = (login: string) => JSON.stringify({ login, token: secret, scopes: [], origin: 'pasted', createdAt: '2026-11-25T00:00:00Z' });
    writeFileSync(
      join(configDir, 'credentials.json'),
      JSON.stringify({
        'hosting:code.example.com': 'octo',
        'hosting:code.example.com:octo': record('octo'),
        'hosting:code.example.com:mona': record('mona'),
        'hosting:staging.example.com:zed': record('zed'),
        'protocol:https://code.example.com': '{}',
      }),
      { mode: 0o600 },
    );
    try {
      const work = { LANYARD_PROFILE: 'work' };
      expect(complete('lanyard auth switch --user ', work)).toEqual(['mona', 'octo']);
      expect(complete('lanyard api /user --user o', work)).toEqual(['octo']);
      expect(complete('lanyard ratelimit status --user ', { LANYARD_PROFILE: 'staging' })).toEqual(['zed']);
      expect(complete('lanyard auth token -u ', work)).toEqual(['mona', 'octo']);
      // A profile that does not exist: no candidates, no error.
      expect(complete('lanyard auth switch --user ', { LANYARD_PROFILE: 'nowhere' })).toEqual([]);
    } finally {
      rmSync(join(configDir, 'credentials.json'), { force: true });
    }
  });

  it('completes --resource names and skips option values when finding the command', () => {
    expect(complete('lanyard ratelimit status --resource co')).toEqual(expect.arrayContaining(['core', 'code_search']));
    expect(complete('lanyard --profile work ratelimit ')).toEqual(expect.arrayContaining(['status', 'wait']));
  });

  it("bash offers each option's and argument's own choices, for that command, short flags included", () => {
    const cases = [...declaredChoices(), ...SPECIFIC];
    expect(cases.length).toBeGreaterThan(10);
    const got = cases.map(([line]) => [line, complete(line).sort()]);
    expect(got).toEqual(cases);
  });

  const hasZsh = spawnSync('sh', ['-c', 'command -v zsh']).status === 0;
  // zsh-complete.zsh types each line with a TAB into an interactive zsh through zpty and prints what compadd got.
  it.skipIf(!hasZsh && !process.env.CI)("zsh (its completion system, through a pseudo-terminal) offers each command's own choices", () => {
    const fpath = mkdtempSync(join(tmpdir(), 'lanyard-zsh-'));
    try {
      copyFileSync(join(ROOT, 'completions', FILES.zsh), join(fpath, FILES.zsh));
      const cases = [...declaredChoices(), ...SPECIFIC, ['lanyard au', ['auth']] as [string, string[]]];
      const r = spawnSync('zsh', ['-f', join(import.meta.dirname, 'zsh-complete.zsh'), fpath, ...cases.map(([line]) => line)], {
        env: { ...cleanEnv({ LANYARD_CONFIG_DIR: configDir }), PATH: `${binDir}:${process.env.PATH}` },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status, r.stderr).toBe(0);
      const blocks = r.stdout
        .split('<end>\n')
        .slice(0, -1)
        .map((b) => b.split('\n').filter(Boolean));
      expect(cases.map(([line], i) => [line, blocks[i]])).toEqual(cases);
    } finally {
      rmSync(fpath, { recursive: true, force: true });
    }
  });

  const hasFish = spawnSync('sh', ['-c', 'command -v fish']).status === 0;
  it.skipIf(!hasFish && !process.env.CI)('fish completes subcommands, flags and profiles for real', () => {
    const r = spawnSync(
      'fish',
      [
        '--no-config',
        '-c',
        `source ${JSON.stringify(join(ROOT, 'completions', FILES.fish))}; complete -C 'lanyard au'; complete -C 'lanyard ratelimit status --res'; complete -C 'lanyard --profile '`,
      ],
      {
        env: { ...cleanEnv({ LANYARD_CONFIG_DIR: configDir }), PATH: `${binDir}:${process.env.PATH}` },
        encoding: 'utf8',
      },
    );
    expect(r.stderr).toBe('');
    const names = r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t')[0]);
    expect(names).toEqual(['auth', '--resource', 'staging', 'work']);
  });

  it.skipIf(!hasFish && !process.env.CI)("fish offers each command's own choices, after a global option's value too", () => {
    const cases = [...declaredChoices(), ...SPECIFIC];
    const script = cases.map(([line]) => `complete -C ${JSON.stringify(line)}; echo '<end>'`).join('; ');
    const r = spawnSync('fish', ['--no-config', '-c', `source ${JSON.stringify(join(ROOT, 'completions', FILES.fish))}; ${script}`], {
      env: { ...cleanEnv({ LANYARD_CONFIG_DIR: configDir }), PATH: `${binDir}:${process.env.PATH}` },
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    const blocks = r.stdout
      .split('<end>\n')
      .slice(0, -1)
      .map((b) =>
        b
          .split('\n')
          .filter(Boolean)
          .map((l) => l.split('\t')[0])
          .sort(),
      );
    expect(cases.map(([line], i) => [line, blocks[i]])).toEqual(cases);
  });

  for (const shell of ['zsh', 'fish'] as const) {
    const has = spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;
    it.skipIf(!has && !process.env.CI)(`${shell} accepts the script's syntax`, () => {
      const out = execFileSync(shell, ['-n', join(ROOT, 'completions', FILES[shell])], { encoding: 'utf8' });
      expect(out).toBe('');
    });
  }
});
