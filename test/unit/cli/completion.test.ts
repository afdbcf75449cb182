/**
 * `lanyard completion <shell>` and `__complete accounts` without spawning:
 * the checked-in scripts are what the generator makes from the command tree,
 * and the stored logins offered for `--user` are the profile's host's, from
 * the 0600 file, never a token. test/e2e/completion.test.ts keeps the real
 * shells (bash, zsh, fish) running the scripts.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedLogins } from '../../../src/cli/commands/completion/accounts.js';
import { generateCompletion } from '../../../src/cli/completion/generate.js';
import { createContext } from '../../../src/cli/context.js';
import { buildProgram } from '../../../src/cli/program.js';
import { createTestIO } from '../../fakes/io.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const FILES = { bash: 'lanyard.bash', zsh: '_lanyard', fish: 'lanyard.fish' } as const;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-completion-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const context = (env: NodeJS.ProcessEnv = {}) =>
  createContext({
    io: createTestIO(),
    env: { LANYARD_CONFIG_DIR: dir, LANYARD_KEYCHAIN: 'off', ...env },
    signal: new AbortController().signal,
    version: '0.0.0',
    globals: () => ({}),
  });

describe('completion <shell>', () => {
  it.each(Object.entries(FILES))('checked-in completions for %s match the generator', async (shell, file) => {
    const program = buildProgram(context());
    expect(generateCompletion(program, shell as keyof typeof FILES)).toBe(await readFile(join(ROOT, 'completions', file), 'utf8'));
  });
});

describe('__complete accounts', () => {
  it("the logins stored for the profile's host, never the token, never another host's; none for a missing profile", async () => {
    const secret = 'lyp_completion_test_token_0000000000001';
    const record = (login: string) => JSON.stringify({ login, token: secret, scopes: [], origin: 'pasted', createdAt: '2026-11-25T00:00:00Z' });
    await writeFile(
      join(dir, 'config.json'),
      JSON.stringify({
        profiles: { work: { 'hosting.apiUrl': 'https://code.example.com/api/v3' }, staging: { 'hosting.apiUrl': 'https://staging.example.com/api/v3' } },
      }),
    );
    await writeFile(
      join(dir, 'credentials.json'),
      JSON.stringify({
        'hosting:code.example.com': 'octo',
        'hosting:code.example.com:octo': record('octo'),
        'hosting:code.example.com:mona': record('mona'),
        'hosting:staging.example.com:zed': record('zed'),
        'protocol:https://code.example.com': '{}',
      }),
      { mode: 0o600 },
    );
    expect((await storedLogins(context({ LANYARD_PROFILE: 'work' }))).sort()).toEqual(['mona', 'octo']);
    expect(await storedLogins(context({ LANYARD_PROFILE: 'staging' }))).toEqual(['zed']);
    await expect(storedLogins(context({ LANYARD_PROFILE: 'nowhere' }))).rejects.toThrow();
  });
});
