/**
 * Debian's `gh` (the code host's own CLI) against the emulator on HTTPS: a
 * host other than the public one is an enterprise server to gh, so it calls
 * `https://HOST/api/v3/` (the API root) and reads `x-oauth-scopes` to check
 * a token, and asks the query API who is signed in. gh trusts the
 * emulator's self-signed certificate through SSL_CERT_FILE (Go's variable).
 * gh refuses a port in a host name, so the emulator listens on port 443 of a
 * random 127.x.y.z address (binding 443 needs root, as in CI).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startCliEmulator } from './harness.js';
import { runGh, spareLoopback, startGhEmulator, stopGhEmulator } from './gh-harness.js';

let emu: RunningEmulator;
let home: string;
let host: string;

const gh = (args: string[], input?: string, caFile = emu.tls!.caFile) => runGh(args, { home, caFile, input });

beforeAll(async () => {
  ({ emu, home, host } = await startGhEmulator('lanyard-gh-'));
});
afterAll(() => stopGhEmulator(emu, home));
beforeEach(async () => {
  await emu.reset();
  await rm(join(home, 'gh'), { recursive: true, force: true });
});

describe('gh 2.23 against the emulator', () => {
  it('gh auth login --with-token, gh auth status and gh api user', async () => {
    const login = await gh(['auth', 'login', '--hostname', host, '--with-token'], `${emu.fixtures.hosting.personalToken}\n`);
    expect(login.stderr).toBe('');
    expect(login.code).toBe(0);
    expect(await readFile(join(home, 'gh', 'hosts.yml'), 'utf8')).toContain(host);

    const status = await gh(['auth', 'status', '--hostname', host]);
    expect(status.code).toBe(0);
    expect(status.stderr).toMatch(new RegExp(`Logged in to ${host.replace('.', '\\.')} as mona`));
    expect(status.stderr).toMatch(/Token scopes: .*repo.*read:org/);

    const user = await gh(['api', 'user', '--hostname', host]);
    expect(user.code).toBe(0);
    expect(JSON.parse(user.stdout)).toMatchObject({ login: 'mona', id: 1, type: 'User' });
  });

  it('gh api -i shows the ETag, and a conditional request with it gets 304 Not Modified without using the rate limit', async () => {
    expect((await gh(['auth', 'login', '--hostname', host, '--with-token'], `${emu.fixtures.hosting.personalToken}\n`)).code).toBe(0);
    const first = await gh(['api', '-i', 'user', '--hostname', host]);
    expect(first.code, first.stderr).toBe(0);
    const etag = /^etag: (.+)$/im.exec(first.stdout)?.[1]?.trim();
    expect(etag).toMatch(/^W\/"[0-9a-f]{64}"$/);
    expect(first.stdout).toMatch(/^X-Github-Media-Type: github\.v3; format=json/im);
    const remaining = /^x-ratelimit-remaining: (\d+)/im.exec(first.stdout)?.[1];
    const again = await gh(['api', '-i', 'user', '--hostname', host, '-H', `If-None-Match: ${etag}`]);
    expect(again.stdout).toMatch(/^HTTP\/1\.1 304 Not Modified/);
    expect(/^x-ratelimit-remaining: (\d+)/im.exec(again.stdout)?.[1]).toBe(remaining);
  });

  it('refuses a token that is not valid (Bad credentials) and one without read:org', async () => {
    const bad = await gh(['auth', 'login', '--hostname', host, '--with-token'], 'lyp_not_a_real_token\n');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/401.*Bad credentials/);

    const r = (await emu.admin('hosting', 'issue-token', { login: 'mona', clientId: emu.fixtures.hosting.app.clientId, scopes: ['repo'] })) as {
      access_token: string;
    };
    const narrow = await gh(['auth', 'login', '--hostname', host, '--with-token'], `${r.access_token}\n`);
    expect(narrow.code).toBe(1);
    expect(narrow.stderr).toMatch(/missing required scope 'read:org'/);
  });

  it('a revoked token: gh auth status reports it and gh api gets 401', async () => {
    const t = (await emu.admin('hosting', 'issue-token', { login: 'mona', clientId: emu.fixtures.hosting.app.clientId, scopes: ['repo', 'read:org'] })) as {
      access_token: string;
    };
    expect((await gh(['auth', 'login', '--hostname', host, '--with-token'], `${t.access_token}\n`)).code).toBe(0);
    await emu.admin('hosting', 'revoke-token', { token: t.access_token });
    const status = await gh(['auth', 'status', '--hostname', host]);
    expect(status.code).toBe(1);
    const api = await gh(['api', 'repos/mona/hello-world', '--hostname', host]);
    expect(api.code).toBe(1);
    expect(api.stderr).toMatch(/Bad credentials \(HTTP 401\)/);
  });
});

describe('gh 2.23 drives the query API’s mutations (gh api graphql)', () => {
  it('createIssue, addComment and addReaction with -f/-F variables; REST through gh lists them; a bad id is gh’s GraphQL error, exit 1', async () => {
    expect((await gh(['auth', 'login', '--hostname', host, '--with-token'], `${emu.fixtures.hosting.personalToken}\n`)).code).toBe(0);
    const api = (...args: string[]) => gh(['api', '--hostname', host, ...args]);
    const repo = await api(
      'graphql',
      '-f',
      'query=query($o: String!, $n: String!) { repository(owner: $o, name: $n) { id } }',
      '-f',
      'o=mona',
      '-f',
      'n=hello-world',
    );
    expect(repo.code, repo.stderr).toBe(0);
    const repoId = JSON.parse(repo.stdout).data.repository.id as string;
    const create = await api(
      'graphql',
      '-f',
      'query=mutation($r: ID!, $t: String!, $b: String) { createIssue(input: {repositoryId: $r, title: $t, body: $b}) { issue { id number title } } }',
      '-f',
      `r=${repoId}`,
      '-f',
      't=Filed by gh',
      '-f',
      'b=through the query API',
      '--jq',
      '.data.createIssue.issue',
    );
    expect(create.code, create.stderr).toBe(0);
    const issue = JSON.parse(create.stdout) as { id: string; number: number; title: string };
    expect(issue).toMatchObject({ number: 1, title: 'Filed by gh' });
    const comment = await api(
      'graphql',
      '-f',
      'query=mutation($s: ID!) { addComment(input: {subjectId: $s, body: "+1 from gh"}) { subject { id } } }',
      '-F',
      `s=${issue.id}`,
    );
    expect(comment.code, comment.stderr).toBe(0);
    const react = await api(
      'graphql',
      '-f',
      'query=mutation($s: ID!) { addReaction(input: {subjectId: $s, content: ROCKET}) { reaction { content } } }',
      '-F',
      `s=${issue.id}`,
    );
    expect(JSON.parse(react.stdout)).toEqual({ data: { addReaction: { reaction: { content: 'ROCKET' } } } });
    // REST (through gh too) sees what the mutations made.
    const listed = await api('repos/mona/hello-world/issues', '--jq', '[.[] | {number, title, node_id, comments, rockets: .reactions.rocket}]');
    expect(JSON.parse(listed.stdout)).toEqual([{ number: 1, title: 'Filed by gh', node_id: issue.id, comments: 1, rockets: 1 }]);
    // A bad id: gh prints the service's GraphQL error and exits 1.
    const bad = await api('graphql', '-f', 'query=mutation { closeIssue(input: {issueId: "nope"}) { issue { id } } }');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^gh: Could not resolve to a node with the global id of 'nope'\./);
  });
});

describe('gh 2.23 issue commands over the query API', () => {
  it('gh issue create, then gh issue list (table and --json, --author as filterBy), the issue also seen by REST', async () => {
    expect((await gh(['auth', 'login', '--hostname', host, '--with-token'], `${emu.fixtures.hosting.personalToken}\n`)).code).toBe(0);
    const R = ['-R', `${host}/mona/hello-world`];
    const created = await gh(['issue', 'create', ...R, '--title', 'Filed with gh issue create', '--body', 'details']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout.trim()).toBe(`https://${host}/mona/hello-world/issues/1`);
    const table = await gh(['issue', 'list', ...R]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^1\tOPEN\tFiled with gh issue create\t/);
    const mine = await gh(['issue', 'list', ...R, '--author', 'mona', '--json', 'number,title,state']);
    expect(JSON.parse(mine.stdout)).toEqual([{ number: 1, title: 'Filed with gh issue create', state: 'OPEN' }]);
    expect(JSON.parse((await gh(['issue', 'list', ...R, '--author', 'hubot', '--json', 'number'])).stdout)).toEqual([]);
    const rest = await gh(['api', '--hostname', host, 'repos/mona/hello-world/issues/1', '--jq', '{title, body, user: .user.login}']);
    expect(JSON.parse(rest.stdout)).toEqual({ title: 'Filed with gh issue create', body: 'details', user: 'mona' });
  });
});

describe("gh 2.23 against `lanyard emulator start --tls` (the README's recipe)", () => {
  it('the CLI-started emulator on port 443 of a spare loopback address: gh trusts the named file and signs in', async () => {
    const ip = spareLoopback();
    const dir = await mkdtemp(join(tmpdir(), 'lanyard-gh-cli-'));
    const emulator = await startCliEmulator(
      ['--tls', '--host', ip, '--port', '443', '--data-dir', join(dir, 'data'), '--no-profile', '-q'],
      { LANYARD_CONFIG_DIR: join(dir, 'config') },
      { readyOn: /SSL_CERT_FILE=/ },
    );
    try {
      expect(emulator.first).toBe(`Emulator listening on https://${ip}`);
      const caFile = /SSL_CERT_FILE=(\S+)/.exec(emulator.stderr())?.[1];
      expect(caFile).toBe(join(dir, 'data', 'emulator-ca.pem'));
      const login = await gh(['auth', 'login', '--hostname', ip, '--with-token'], `${emu.fixtures.hosting.personalToken}\n`, caFile);
      expect(login, login.stderr).toMatchObject({ code: 0, stderr: '' });
      const user = await gh(['api', 'user', '--hostname', ip], undefined, caFile);
      expect(user.code, user.stderr).toBe(0);
      expect(JSON.parse(user.stdout)).toMatchObject({ login: 'mona', url: `https://${ip}/api/v3/users/mona` });
      // Not trusted without the file: gh refuses the certificate.
      const untrusted = await gh(['api', 'user', '--hostname', ip], undefined, '/nonexistent.pem');
      expect(untrusted.code).not.toBe(0);
      expect(untrusted.stderr).toMatch(/certificate/i);
    } finally {
      await emulator.stop('SIGTERM');
      await rm(dir, { recursive: true, force: true });
    }
  });
});
