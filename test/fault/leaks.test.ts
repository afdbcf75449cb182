/**
 * Secrets stay where they belong and server text cannot act on the terminal:
 * no secret in config.json, none in the browser's environment, none echoed
 * back by a server onto stderr; no control sequence from a server on stderr;
 * private files whatever the umask.
 */
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, cleanEnv } from '../e2e/harness.js';
import { runOnPty } from '../e2e/pty.js';
import { expectOrderly, hostileWorld, type HostileWorld } from './hostile.js';

let w: HostileWorld;
let dir: string;
beforeAll(async () => {
  w = await hostileWorld();
  dir = await mkdtemp(join(tmpdir(), 'lanyard-leaks-'));
});
afterAll(async () => {
  await w.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  w.server.seen.length = 0;
});

const SECRETS = {
  LANYARD_TOKEN: 'plain-hosting-secret-4711',
  LANYARD_CLIENT_SECRET: 'plain-client-secret-4712',
  LANYARD_API_KEY: 'plain-echo-api-key-4713',
  LANYARD_HEALTH_TOKEN: 'plain-health-token-4714',
  GH_TOKEN: 'plain-gh-token-4715',
  DEPLOY_PASSWORD: 'plain-password-4716',
};

describe('config.json never holds a secret', () => {
  it.each([
    ['hosting.apiUrl', 'http://user:pw-4717@127.0.0.1:9/api/v3'],
    ['hosting.webUrl', 'http://user@127.0.0.1:9'],
    ['echo.baseUrl', 'http://127.0.0.1:9/?access_token=tok-4718'],
    ['hosting.clientId', 'lyp_AAAAAAAAAAAAAAAAAAAAAAAA'],
    ['echo.audience', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl'],
  ])('config set %s %s: exit 2, nothing written', async (key, value) => {
    const before = await readFile(join(w.configDir, 'config.json'), 'utf8');
    const r = await w.run(['config', 'set', key, value]);
    expect(expectOrderly(r, [2]), r.stderr).toBeUndefined();
    expect(r.stderr).toMatch(/never holds a secret/);
    expect(await readFile(join(w.configDir, 'config.json'), 'utf8')).toBe(before);
  });
});

/** A browser that writes its environment to $FAULT_ENV_OUT. */
async function recordingBrowser(name: string): Promise<{ script: string; out: string }> {
  const script = join(dir, name);
  const out = join(dir, `${name}.env`);
  await writeFile(script, '#!/bin/sh\nenv > "$FAULT_ENV_OUT.tmp" && mv "$FAULT_ENV_OUT.tmp" "$FAULT_ENV_OUT"\n');
  await chmod(script, 0o755);
  return { script, out };
}

async function waitForFile(path: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const t = await readFile(path, 'utf8').catch(() => undefined);
    if (t !== undefined) return t;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${path} never appeared`);
}

describe('the browser gets no secret', () => {
  it('LANYARD_BROWSER: the command runs without any secret variable', async () => {
    const b = await recordingBrowser('browser-a');
    let child: import('node:child_process').ChildProcess | undefined;
    const done = w.run(['auth', 'login'], { env: { ...SECRETS, LANYARD_BROWSER: b.script, FAULT_ENV_OUT: b.out }, onSpawn: (c) => (child = c) });
    const env = await waitForFile(b.out);
    child?.kill('SIGINT');
    const r = await done;
    expect(r.code, r.stderr).toBe(130);
    expect(env).toContain('FAULT_ENV_OUT=');
    for (const [k, v] of Object.entries(SECRETS)) {
      expect(env, k).not.toContain(v);
      expect(env, k).not.toContain(`${k}=`);
    }
  });

  it('the `open` package (xdg-open, then www-browser on PATH): no secret either', async () => {
    const b = await recordingBrowser('www-browser');
    // Without LANYARD_BROWSER a sign-in starts only with a person there: on a terminal.
    const r = await runOnPty({
      args: ['auth', 'login'],
      env: {
        ...SECRETS,
        LANYARD_CONFIG_DIR: w.configDir,
        FAULT_ENV_OUT: b.out,
        LANYARD_BROWSER: undefined,
        BROWSER: undefined,
        DISPLAY: undefined,
        WAYLAND_DISPLAY: undefined,
        XDG_CURRENT_DESKTOP: undefined,
        PATH: `${dir}:${process.env.PATH}`,
      },
      waitFor: 'Asked the system to open a browser',
    });
    const env = await waitForFile(b.out);
    expect(r.exitCode, r.output).toBe(130);
    for (const [k, v] of Object.entries(SECRETS)) expect(env, k).not.toContain(v);
  });
});

/** The server answers `status` with the request's credentials (and a given tail) in the message. */
function reflect(status: number, tail = ''): void {
  w.server.handle((req, res) => {
    const got = [req.headers.authorization, req.headers['x-api-key'], req.headers['api-key'], req.url].filter(Boolean).join(' ');
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ message: `you sent ${got}${tail}`, error: { code: 'Reflected', message: `you sent ${got}${tail}` } }));
  });
}

const reflected: Array<[string, string[]]> = [
  ['api /user', ['api', '/user']],
  ['ratelimit status', ['ratelimit', 'status']],
  ['health events', ['health', 'events']],
  ['echo send', ['echo', 'send', 'hi']],
  ['mailbox list', ['mailbox', 'list']],
];

describe('a server that echoes the credential gets it redacted on stderr', () => {
  for (const status of [401, 500]) {
    it.each(reflected)(`%s, HTTP ${status}`, async (_name, args) => {
      reflect(status);
      const r = await w.run(args, { env: SECRETS });
      expect(expectOrderly(r), r.stderr).toBeUndefined();
      expect(w.server.seen.length).toBeGreaterThan(0);
      for (const [k, v] of Object.entries(SECRETS)) expect(r.stderr, k).not.toContain(v);
    });
  }

  it('a stored API key (not from the environment) is redacted too', async () => {
    const set = await w.run(['echo', 'key', 'set'], { input: 'stored-echo-key-4719\n' });
    expect(set.code, set.stderr).toBe(0);
    reflect(401);
    const r = await w.run(['echo', 'send', 'hi']);
    expect(expectOrderly(r), r.stderr).toBeUndefined();
    expect(w.server.seen.length).toBeGreaterThan(0);
    expect(r.stderr).not.toContain('stored-echo-key-4719');
    expect(r.stderr).toContain('[REDACTED]');
  });
});

describe('every encoding of a credential is a secret; identifiers are not', () => {
  const basic = (user: string, pass: string) => Buffer.from(`${user}:${pass}`).toString('base64');

  it('--basic-client: the Basic header (client id and secret, base64) reflected in a 401 body is redacted', async () => {
    reflect(401);
    const r = await w.run(['--basic-client', 'api', '/user'], { env: { LANYARD_CLIENT_SECRET: 'client-secret+/=4721' } });
    expect(expectOrderly(r, [4]), r.stderr).toBeUndefined();
    expect(w.server.seen[0]?.headers.authorization).toBe(`Basic ${basic('lanyard-cli-emulator', 'client-secret+/=4721')}`);
    expect(r.stderr).not.toContain(basic('lanyard-cli-emulator', 'client-secret+/=4721'));
    expect(r.stderr).not.toContain('client-secret+/=4721');
    expect(r.stderr).toContain('[REDACTED]');
    // the hint names what Lanyard reads: the profile's client id (there is no LANYARD_CLIENT_ID)
    expect(r.stderr).toContain("check the profile's hosting.clientId and LANYARD_CLIENT_SECRET");
  });

  it('an API key sent in a query string is redacted in its URL-encoded form too', async () => {
    w.server.handle((req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: `you sent ${req.url?.split('key=')[1]}` }));
    });
    const r = await w.run(['echo', 'send', 'hi'], { env: { LANYARD_API_KEY: 'echo key+with/odd=chars4722' } });
    expect(expectOrderly(r, [1]), r.stderr).toBeUndefined();
    expect(w.server.seen[0]?.url).toMatch(/key=echo(\+|%20)key%2Bwith%2Fodd%3Dchars4722/);
    expect(r.stderr).not.toContain('key%2Bwith%2Fodd%3Dchars4722');
    expect(r.stderr).toContain('[REDACTED]');
  });

  it('the active login is not remembered as a secret: "Logged in as <login>", in auth switch and logout too', async () => {
    w.server.handle((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-oauth-scopes': 'repo' });
      res.end(JSON.stringify(req.url?.endsWith('/user') ? { login: 'ent-octo', id: 7 } : {}));
    });
    const stored = await w.run(['auth', 'token', '--with-token'], { input: 'lyp_emulator_enterprise_user_token_000000001' });
    expect(stored.code, stored.stderr).toBe(0);
    expect(stored.stderr).toContain('Logged in as ent-octo');
    const status = await w.run(['auth', 'status']);
    expect(status.stderr + status.stdout).toContain('ent-octo');
    expect(status.stderr + status.stdout).not.toContain('lyp_emulator_enterprise_user_token_000000001');
    const out = await w.run(['auth', 'logout']);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stderr).toContain('ent-octo');
    expect(out.stderr).not.toContain('[REDACTED]');
  });
});

describe('control sequences from a server do not reach the terminal', () => {
  const NASTY = '\u001b]0;pwned\u0007\u001b[2J\u001b[31m\r\u009b1m\u202e';
  it.each(reflected)('%s', async (_name, args) => {
    reflect(500, NASTY);
    const r = await w.run(args, { env: SECRETS });
    expect(expectOrderly(r), r.stderr).toBeUndefined();
    expect(w.server.seen.length).toBeGreaterThan(0);
    expect(r.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
  });
});

describe('private files whatever the umask', () => {
  function underUmask000(args: string[], configDir: string, input = ''): Promise<number | null> {
    return new Promise((resolve) => {
      const child = spawn('sh', ['-c', `umask 000; exec "${process.execPath}" "${BIN}" "$@"`, 'sh', ...args], {
        env: cleanEnv({ LANYARD_CONFIG_DIR: configDir }),
        stdio: ['pipe', 'ignore', 'ignore'],
      });
      child.stdin.end(input);
      child.on('close', resolve);
    });
  }

  it('config directory 0700, config.json and credentials.json 0600', async () => {
    const configDir = join(dir, 'umask', 'lanyard');
    expect(await underUmask000(['config', 'set', 'echo.baseUrl', w.server.url, '--profile', 'p'], configDir)).toBe(0);
    expect((await stat(configDir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(configDir, 'config.json'))).mode & 0o777).toBe(0o600);
    expect(await underUmask000(['--profile', 'p', 'echo', 'key', 'set'], configDir, 'umask-key-4720\n')).toBe(0);
    expect((await stat(join(configDir, 'credentials.json'))).mode & 0o777).toBe(0o600);
  });
});
