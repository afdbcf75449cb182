/**
 * No secret ever leaks: tokens, client secret, codes and passwords never
 * reach stdout (except `auth token`), stderr, `--debug` traces or process
 * arguments (the CLI's own and those of the processes it starts).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, type World } from './harness.js';
import { APP, cli, MONA, recordingBrowser, start, tokens, useAuthWorld, USER_CODE, waitFor } from './auth-helpers.js';

let world: World;
let dir: string;
useAuthWorld((w) => (world = w));
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-secrets-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

/** The argument vectors of every process on the machine we may read. */
async function allCmdlines(): Promise<string[]> {
  const out: string[] = [];
  for (const pid of (await readdir('/proc')).filter((p) => /^\d+$/.test(p))) {
    const c = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (c) out.push(c.split('\0').join(' '));
  }
  return out;
}

async function cmdline(pid: number): Promise<string[]> {
  return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').filter(Boolean);
}

describe('secrets stay secret', () => {
  it('device flow with --debug: the trace redacts device_code and access_token; argv holds no secret', async () => {
    const run = start(world, ['--debug', 'auth', 'device', '--scopes', 'repo']);
    const [, code] = await run.waitForStderr(USER_CODE);
    expect(await cmdline(run.child.pid!)).toEqual([process.execPath, BIN, '--profile', 'emulator', '--debug', 'auth', 'device', '--scopes', 'repo']);
    await world.admin('hosting/device-approve', { user_code: code });
    const r = await run.done;
    expect(r.code).toBe(0);
    const token = (await tokens(world, { clientId: APP.clientId }))[0]!.value;
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toContain(token);
    // the device code (40 hex digits); the answers' entity tags (a hash of the body, not a secret) are not it
    expect(r.stderr.replace(/^.*\betag: .*$/gim, '')).not.toMatch(/[0-9a-f]{40}/);
    expect(r.stderr).toMatch(/device_code=\[REDACTED\]/);
    expect(r.stderr).toMatch(/"access_token":"\[REDACTED\]"/);
    expect(r.stderr).toMatch(/authorization: Bearer \[REDACTED\]/);
    expect((await allCmdlines()).some((c) => c.includes(token))).toBe(false);
    // The one exception: auth token prints it on stdout, and only there.
    const printed = await cli(world, ['--debug', 'auth', 'token']);
    expect(printed.stdout).toBe(`${token}\n`);
    expect(printed.stderr).not.toContain(token);
    const status = await cli(world, ['--debug', 'auth', 'status', '--json']);
    expect(status.stdout + status.stderr).not.toContain(token);
  });

  it('web flow with --debug: client secret, code and token never shown; the browser gets only the authorize URL', async () => {
    const rec = await recordingBrowser(await mkdtemp(join(dir, 'b-')));
    const run = start(world, ['--debug', 'auth', 'login'], { env: { LANYARD_BROWSER: rec.script, LANYARD_CLIENT_SECRET: APP.clientSecret } });
    const url = await waitFor(async () => (await rec.urls())[0]);
    expect((await allCmdlines()).some((c) => c.includes(APP.clientSecret))).toBe(false);
    expect(url).not.toContain(APP.clientSecret);
    // The user signs in and authorizes; the browser follows the redirect to the loopback.
    const u = new URL(url);
    const res = await fetch(`${world.url}/login/oauth/authorize`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ ...Object.fromEntries(u.searchParams), login: MONA.login, password: MONA.password, authorize: '1' }),
    });
    const callback = res.headers.get('location')!;
    const code = new URL(callback).searchParams.get('code')!;
    expect((await fetch(callback)).status).toBe(200);
    const r = await run.done;
    expect(r.code).toBe(0);
    const token = (await tokens(world, { clientId: APP.clientId }))[0]!.value;
    for (const secret of [APP.clientSecret, code, token]) {
      expect(r.stdout).not.toContain(secret);
      expect(r.stderr).not.toContain(secret);
    }
    expect(r.stderr).toMatch(/client_secret=\[REDACTED\]/);
    expect(r.stderr).toMatch(/code=\[REDACTED\]/);
    expect(await rec.urls()).toEqual([url]);
  });

  it('auth token create with --debug: password and new token never shown', async () => {
    const r = await cli(world, ['--debug', 'auth', 'token', 'create', '--user', 'mona', '--note', 'leak-check'], { input: MONA.password });
    expect(r.code).toBe(0);
    const token = (await tokens(world, { login: 'mona' })).find((t) => t.note === 'leak-check')!.value;
    for (const secret of [MONA.password, token, token.slice(-8), Buffer.from(`mona:${MONA.password}`).toString('base64')]) {
      expect(r.stdout + r.stderr).not.toContain(secret);
    }
    expect(r.stderr).toMatch(/authorization: Basic \[REDACTED\]/);
    expect(r.stderr).toMatch(/"token":"\[REDACTED\]"/);
  });

  it('a refused pasted token is not echoed in the error', async () => {
    const r = await cli(world, ['--debug', 'auth', 'token', '--with-token'], { input: 'lyo_this_is_secret_but_wrong' });
    expect(r.code).toBe(4);
    expect(r.stdout + r.stderr).not.toContain('lyo_this_is_secret_but_wrong');
  });
});
