/**
 * `auth setup-git` and `auth git-credential` with a real git: a loopback
 * server that demands Basic authentication with the token and fronts
 * `git http-backend` (git's own smart-HTTP CGI) for a bare repository.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedGitEnv, startWorld, type World } from './harness.js';

/** A smart-HTTP git server on 127.0.0.1 that accepts only `password === token`. */
function gitServer(root: string, token: string): Promise<{ server: Server; url: string; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    const auth = req.headers.authorization ?? '';
    const [user, pass] = auth.startsWith('Basic ') ? Buffer.from(auth.slice(6), 'base64').toString().split(/:(.*)/s) : [];
    seen.push(user ?? '(none)');
    if (pass !== token) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://x');
    const cgi: ChildProcess = spawn('git', ['http-backend'], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method,
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        REMOTE_USER: user,
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(cgi.stdin!);
    let head = Buffer.alloc(0);
    let headerDone = false;
    cgi.stdout!.on('data', (c: Buffer) => {
      if (headerDone) return void res.write(c);
      head = Buffer.concat([head, c]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headerDone = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString().split('\r\n')) {
        const i = line.indexOf(':');
        const k = line.slice(0, i).trim();
        const v = line.slice(i + 1).trim();
        if (k.toLowerCase() === 'status') status = Number.parseInt(v, 10);
        else res.setHeader(k, v);
      }
      res.writeHead(status);
      res.write(head.subarray(end + 4));
    });
    cgi.on('close', () => res.end());
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen })),
  );
}

/** git against the server in this process: asynchronously (a synchronous spawn would block the server). */
function gitAsync(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('git', args, { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
    child.stdin.end(input ?? '');
  });
}

function sh(cmd: string, args: string[], o: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}) {
  return spawnSync(cmd, args, { cwd: o.cwd, env: o.env ?? process.env, input: o.input, encoding: 'utf8', timeout: 60_000 });
}

describe('git credential helper', () => {
  let world: World;
  let token: string;
  let dir: string;
  let git: { server: Server; url: string; seen: string[] };
  let gitEnv: NodeJS.ProcessEnv;
  beforeAll(async () => {
    world = await startWorld();
    token = ((await world.admin('info', undefined, 'GET')) as { hosting: { personalToken: string } }).hosting.personalToken;
    dir = await mkdtemp(join(tmpdir(), 'lanyard-git-'));
    const who = ['-c', 'user.name=Test', '-c', 'user.email=test@example.com'];
    expect(sh('git', ['init', '-q', '--bare', join(dir, 'srv', 'demo.git')]).status).toBe(0);
    expect(sh('git', ['init', '-q', join(dir, 'seed')]).status).toBe(0);
    await writeFile(join(dir, 'seed', 'README'), 'hello from the bare repo\n');
    expect(sh('git', [...who, 'add', 'README'], { cwd: join(dir, 'seed') }).status).toBe(0);
    expect(sh('git', [...who, 'commit', '-q', '-m', 'seed'], { cwd: join(dir, 'seed') }).status).toBe(0);
    expect(sh('git', ['push', '-q', join(dir, 'srv', 'demo.git'), 'HEAD:refs/heads/main'], { cwd: join(dir, 'seed') }).status).toBe(0);
    sh('git', ['--git-dir', join(dir, 'srv', 'demo.git'), 'symbolic-ref', 'HEAD', 'refs/heads/main']);
    git = await gitServer(join(dir, 'srv'), token);
    // A profile whose web host is the git server (its API is the emulator's).
    expect((await world.run(['config', 'set', 'hosting.webUrl', git.url, '--profile', 'git'])).code).toBe(0);
    expect((await world.run(['config', 'set', 'hosting.apiUrl', `${world.url}/api/v3`, '--profile', 'git'])).code).toBe(0);
    gitEnv = {
      ...process.env,
      LANYARD_CONFIG_DIR: world.configDir,
      LANYARD_KEYCHAIN: 'off',
      LANYARD_TOKEN: token,
      ...isolatedGitEnv(dir),
    };
    await writeFile(join(dir, 'gitconfig'), '');
  });
  afterAll(async () => {
    git?.server.close();
    await world.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('without the helper the server refuses the clone', async () => {
    const r = await gitAsync(['clone', '-q', `${git.url}/demo.git`, join(dir, 'refused')], gitEnv);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/Authentication failed|could not read Username/);
  });

  it('setup-git registers the helper for the web host; git clone then authenticates with the token', async () => {
    const setup = await world.run(['--profile', 'git', 'auth', 'setup-git'], {
      env: { HOME: dir, GIT_CONFIG_GLOBAL: join(dir, 'gitconfig'), GIT_CONFIG_NOSYSTEM: '1' },
    });
    expect(setup.code, setup.stderr).toBe(0);
    const helpers = sh('git', ['config', '--global', '--get-all', `credential.${git.url}.helper`], { env: gitEnv }).stdout.split('\n');
    expect(helpers[0]).toBe('');
    expect(helpers[1]).toMatch(/^!.* --profile 'git' auth git-credential$/);
    expect(await readFile(join(dir, 'gitconfig'), 'utf8')).not.toContain(token);
    const clone = await gitAsync(['clone', '-q', `${git.url}/demo.git`, join(dir, 'clone')], gitEnv);
    expect(clone.status, clone.stderr).toBe(0);
    expect(await readFile(join(dir, 'clone', 'README'), 'utf8')).toBe('hello from the bare repo\n');
    expect(git.seen).toContain('x-access-token');
  });

  it('git credential fill gets the token for the web host from the helper', () => {
    const host = new URL(git.url).host;
    const r = sh('git', ['credential', 'fill'], { env: gitEnv, input: `protocol=http\nhost=${host}\n\n` });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`password=${token}\n`);
    expect(r.stdout).toContain('username=x-access-token\n');
  });

  it('the helper answers nothing for another host or scheme, and store/erase are accepted', async () => {
    const host = new URL(git.url).host;
    for (const input of [`protocol=https\nhost=${host}\n\n`, 'protocol=http\nhost=example.com\n\n']) {
      const r = await world.run(['--profile', 'git', 'auth', 'git-credential', 'get'], { env: { LANYARD_TOKEN: token }, input });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe('');
    }
    for (const op of ['store', 'erase']) {
      const r = await world.run(['--profile', 'git', 'auth', 'git-credential', op], {
        env: { LANYARD_TOKEN: token },
        input: `protocol=http\nhost=${host}\npassword=x\n\n`,
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
    }
    const bad = await world.run(['--profile', 'git', 'auth', 'git-credential', 'fetch'], { input: '' });
    expect(bad.code).toBe(2);
  });
});
