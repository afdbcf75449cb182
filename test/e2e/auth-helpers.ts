/** Helpers shared by the auth end-to-end tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { BIN, cleanEnv, startWorld, type CliResult, type World } from './harness.js';

export const MONA = { login: 'mona', password: 'lanyard-emulator-password' };
export const APP = { clientId: 'lanyard-cli-emulator', clientSecret: 'lanyard-cli-emulator-secret-0000000000000001' };
export const NO_DEVICE_APP = 'lanyard-web-only';
export const INSTALLABLE_APP = 'Iv1.lanyardinstallable';
export const PERSONAL_TOKEN = 'lyp_emulator_default_token_0000000000000001';

export interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  done: Promise<CliResult>;
  /** Resolves with the first match of `re` in stderr. */
  waitForStderr(re: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
}

/** Spawns the CLI in a world and keeps it running (to watch stderr, send signals, read /proc). */
export function start(
  world: World,
  args: string[],
  o: { env?: Record<string, string | undefined>; input?: string; noTerminal?: boolean; cwd?: string } = {},
): Running {
  const argv = [process.execPath, BIN, '--profile', 'emulator', ...args];
  // noTerminal: in a new session (`setsid`: no controlling terminal) with standard input /dev/null, as under `ssh host cmd`.
  const [cmd, ...rest] = o.noTerminal ? ['setsid', ...argv] : argv;
  const child = spawn(cmd!, rest, {
    env: cleanEnv({ ...world.env, ...o.env }),
    stdio: [o.noTerminal ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    ...(o.cwd ? { cwd: o.cwd } : {}),
  });
  let out = '';
  let err = '';
  const listeners: Array<() => void> = [];
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
    for (const l of [...listeners]) l();
  });
  if (o.input !== undefined) child.stdin!.end(o.input);
  else child.stdin?.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const done = new Promise<CliResult>((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: out, stderr: err });
    }),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    done,
    waitForStderr(re, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = re.exec(err);
          if (m) {
            listeners.splice(listeners.indexOf(check), 1);
            clearTimeout(t);
            resolve(m);
          }
        };
        const t = setTimeout(() => reject(new Error(`timed out waiting for ${re} in stderr: ${err}`)), timeoutMs);
        listeners.push(check);
        void done.then(() =>
          setTimeout(() => {
            if (listeners.includes(check)) reject(new Error(`process ended before ${re} appeared: ${err}`));
          }, 10),
        );
        check();
      });
    },
  };
}

/** Runs the CLI with --profile emulator. */
export function cli(world: World, args: string[], o: { env?: Record<string, string | undefined>; input?: string } = {}): Promise<CliResult> {
  return world.run(['--profile', 'emulator', ...args], o);
}

/** Waits for an element and returns its text. */
export async function text(page: Page, selector: string): Promise<string> {
  await page.locator(selector).first().waitFor();
  return (await page.locator(selector).first().textContent()) ?? '';
}

/** Opens `url` and fills in mona's login and password. */
export async function signIn(page: Page, url: string, password = MONA.password): Promise<void> {
  await page.goto(url);
  await page.fill('input[name=login]', MONA.login);
  await page.fill('input[name=password]', password);
}

/** On the device page at `verification`: signs in as mona, enters `code`, and authorizes (or, with `deny`, cancels). */
export async function answerDeviceCode(page: Page, verification: string, code: string, o: { deny?: boolean } = {}): Promise<void> {
  await signIn(page, verification);
  await page.fill('input[name=user_code]', code);
  await page.click('#continue');
  await page.click(`button[name=authorize][value="${o.deny ? 0 : 1}"]`);
}

export const USER_CODE = /one-time code: ([A-Z0-9]{4}-[A-Z0-9]{4})/;
export const VERIFICATION_URI = /(http:\/\/127\.0\.0\.1:\d+\/login\/device)/;

export interface TokenInfo {
  value: string;
  kind: string;
  login: string | null;
  client_id: string | null;
  scopes: string[];
  revoked: boolean;
  note: string | null;
  created_at: number;
  expires_at: number | null;
}

export async function tokens(world: World, filter: Record<string, string> = {}): Promise<TokenInfo[]> {
  return ((await world.admin('hosting/tokens', filter)) as { tokens: TokenInfo[] }).tokens;
}

/** The credentials file of a world (the 0600 fallback), parsed; {} when absent. */
export async function credentialsFile(world: World): Promise<Record<string, string>> {
  try {
    return JSON.parse(await readFile(join(world.configDir, 'credentials.json'), 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

/** A LANYARD_BROWSER script that appends every URL it is asked to open to a file. */
export async function recordingBrowser(dir: string): Promise<{ script: string; urls: () => Promise<string[]> }> {
  const script = join(dir, 'record-browser.sh');
  const log = join(dir, 'opened-urls.txt');
  await writeFile(script, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${log}'\n`);
  await chmod(script, 0o755);
  return {
    script,
    urls: async () => (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean),
  };
}

export async function waitFor<T>(f: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** GET {api}/user with a bearer token: the HTTP status. */
export async function userStatus(world: World, token: string): Promise<number> {
  const res = await fetch(`${world.url}/api/v3/user`, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  return res.status;
}

/**
 * One emulator world per test file: started before all tests, stopped after;
 * before each test the emulator is reset, the device interval set to 1 s
 * (unless `fastDevice: false`) and stored credentials removed.
 */
export function useAuthWorld(set: (w: World) => void, o: { fastDevice?: boolean } = {}): void {
  let w: World | undefined;
  beforeAll(async () => {
    w = await startWorld();
    set(w);
  });
  afterAll(async () => w?.stop());
  beforeEach(async () => {
    await w!.admin('reset');
    if (o.fastDevice !== false) await w!.admin('hosting/device-policy', { interval: 1 });
    await rm(join(w!.configDir, 'credentials.json'), { force: true });
  });
}

/** Signs mona in with `auth device` through the installable app (expiring tokens, rotating refresh tokens); returns her account's key in credentials.json. */
export async function signInInstallable(world: World): Promise<string> {
  expect((await cli(world, ['config', 'set', 'hosting.clientId', INSTALLABLE_APP])).code).toBe(0);
  const run = start(world, ['auth', 'device']);
  const [, code] = await run.waitForStderr(USER_CODE);
  await world.admin('hosting/device-approve', { user_code: code });
  const r = await run.done;
  expect(r.code, r.stderr).toBe(0);
  return `hosting:${new URL(world.url).host}:mona`;
}

/** The stored hosting token record under `key` in credentials.json. */
export async function storedRecord(world: World, key: string): Promise<{ token: string; refreshToken: string }> {
  return JSON.parse((await credentialsFile(world))[key]!) as { token: string; refreshToken: string };
}
