/**
 * Values that go into a line protocol: a hostile `/user` login with line
 * breaks must not reach git's credential protocol (git's CVE-2020-5260 class:
 * a second `host=` line makes git hand the token to another host's helpers).
 * Checked with the real `git credential fill`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cleanEnv, isolatedGitEnv, shellQuote } from '../e2e/harness.js';
import { expectOrderly, hostileWorld, type HostileWorld } from './hostile.js';

const HOSTILE_LOGIN = 'mona\nprotocol=https\nhost=evil.example\nusername=x';
const TOKEN = 'lyp_hostile_line_protocol_token_0001';

let w: HostileWorld;
let dir: string;
let host: string;
beforeAll(async () => {
  w = await hostileWorld();
  dir = await mkdtemp(join(tmpdir(), 'lanyard-git-hostile-'));
  host = new URL(w.server.url).host;
  w.server.handle((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'x-oauth-scopes': 'repo' });
    res.end(JSON.stringify(req.url?.endsWith('/user') ? { login: HOSTILE_LOGIN, id: 1 } : {}));
  });
  // git runs this Lanyard as its helper for the hostile web host.
  const helper = `!${shellQuote(process.execPath)} ${shellQuote(BIN)} auth git-credential`;
  await writeFile(join(dir, 'gitconfig'), `[credential "http://${host}"]\n\thelper = ${JSON.stringify(helper).slice(1, -1)}\n`);
});
afterAll(async () => {
  await w.close();
  await rm(dir, { recursive: true, force: true });
});

function gitFill(env: Record<string, string> = {}) {
  return spawnSync('git', ['credential', 'fill'], {
    env: cleanEnv({
      LANYARD_CONFIG_DIR: w.configDir,
      ...isolatedGitEnv(dir),
      ...env,
    }),
    input: `protocol=http\nhost=${host}\n\n`,
    encoding: 'utf8',
    timeout: 30_000,
  });
}

describe('git credential helper against a hostile login', () => {
  it('auth token --with-token refuses a /user login with line breaks: exit 1, nothing stored', async () => {
    const r = await w.run(['auth', 'token', '--with-token'], { input: TOKEN });
    expect(expectOrderly(r, [1]), r.stderr).toBeUndefined();
    expect(r.stderr).toMatch(/not a valid login/);
    const stored = await readFile(join(w.configDir, 'credentials.json'), 'utf8').catch(() => '');
    expect(stored).not.toContain(TOKEN);
  });

  it('a record stored with such a login (by an older version) is ignored: git fill gets no evil host', async () => {
    const record = { login: HOSTILE_LOGIN, token: TOKEN, scopes: ['repo'], origin: 'pasted', createdAt: new Date().toISOString() };
    await writeFile(
      join(w.configDir, 'credentials.json'),
      JSON.stringify({ [`hosting:${host}:${HOSTILE_LOGIN}`]: JSON.stringify(record), [`hosting:${host}`]: HOSTILE_LOGIN }),
      { mode: 0o600 },
    );
    const r = gitFill();
    expect(r.stdout).not.toContain('evil.example');
    expect(r.stdout).not.toContain(TOKEN);
    await rm(join(w.configDir, 'credentials.json'), { force: true });
  });

  it('a token with a line break in LANYARD_TOKEN is refused, not written as two fields', () => {
    const r = gitFill({ LANYARD_TOKEN: `${TOKEN}\nhost=evil.example` });
    expect(r.stdout).not.toContain('evil.example');
    expect(r.stdout).not.toContain('password=');
  });

  it('the helper itself prints one host line at most', async () => {
    const r = await w.run(['auth', 'git-credential', 'get'], {
      input: `protocol=http\nhost=${host}\n\n`,
      env: { LANYARD_TOKEN: `${TOKEN}\rhost=evil.example` },
    });
    expect(r.stdout).not.toContain('evil.example');
    // The token variable itself is refused (one line, exit 2), before any field is written.
    expect(expectOrderly(r, [2]), r.stderr).toBeUndefined();
    expect(r.stderr).toMatch(/LANYARD_TOKEN holds a line break or control character/);
  });
});
