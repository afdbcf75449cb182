/**
 * The auth commands' run functions with fake IO, a stub server and a fake
 * clock (no wall-clock waits): what goes to stdout and stderr, what is stored.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createContext, type Context } from '../../../../src/cli/context.js';
import { Output } from '../../../../src/cli/output/output.js';
import { runAuthDevice, runAuthLogout, runAuthStatus, runAuthToken } from '../../../../src/cli/commands/auth/run.js';
import { exitCodeFor } from '../../../../src/cli/errors/exit.js';
import { ConfigStore } from '../../../../src/core/config/store.js';
import { openHostingStores } from '../../../../src/cli/services/hosting/wiring.js';
import { FakeClock } from '../../../fakes/clock.js';
import { createTestIO, type TestIO } from '../../../fakes/io.js';
import { StubHttp } from '../../../fakes/stub-http.js';

let dir: string;
let stub: StubHttp;
let clock: FakeClock;
let io: TestIO;

function context(env: Record<string, string> = {}): Context {
  io = createTestIO();
  return createContext({
    io,
    env: { LANYARD_CONFIG_DIR: dir, LANYARD_KEYCHAIN: 'off', ...env },
    signal: new AbortController().signal,
    version: 'test',
    globals: () => ({ profile: 'p' }),
    clock,
  });
}

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-run-'));
  stub = await StubHttp.start();
  clock = new FakeClock();
  await (await ConfigStore.open({ dir })).putProfile('p', { 'hosting.apiUrl': `${stub.url}/api/v3`, 'hosting.webUrl': stub.url, 'hosting.clientId': 'cid' });
});
afterEach(async () => {
  await stub.close();
  await rm(dir, { recursive: true, force: true });
});

describe('runAuthDevice', () => {
  it('shows the code on stderr, honours slow_down on the fake clock, stores under the login', async () => {
    stub.on('POST', '/login/device/code', {
      body: { device_code: 'd'.repeat(40), user_code: 'WDJB-MJHT', verification_uri: `${stub.url}/login/device`, expires_in: 900, interval: 5 },
    });
    stub.on('POST', '/login/oauth/access_token', { body: { error: 'slow_down', interval: 10 } });
    stub.on('POST', '/login/oauth/access_token', { body: { error: 'authorization_pending' } });
    stub.on('POST', '/login/oauth/access_token', { body: { access_token: 'lyo_secret_token', token_type: 'bearer', scope: 'repo' } });
    stub.on('GET', '/api/v3/user', { headers: { 'x-oauth-scopes': 'repo' }, body: { login: 'mona' } });
    // LANYARD_BROWSER: an automated sign-in (the IO is no terminal), as in the end-to-end tests.
    const ctx = context({ LANYARD_BROWSER: 'true' });
    await runAuthDevice(ctx, { scopes: 'repo' });
    expect(clock.sleeps).toEqual([5000, 10000, 10000]);
    expect(io.stdoutText()).toBe('');
    expect(io.stderrText()).toContain('! First copy your one-time code: WDJB-MJHT');
    expect(io.stderrText()).toContain('Logged in as mona');
    expect(io.stderrText()).not.toContain('lyo_secret_token');
    const creds = JSON.parse(await readFile(join(dir, 'credentials.json'), 'utf8')) as Record<string, string>;
    const host = new URL(stub.url).host;
    expect(creds[`hosting:${host}`]).toBe('mona');
    expect(JSON.parse(creds[`hosting:${host}:mona`]!)).toMatchObject({ token: 'lyo_secret_token', scopes: ['repo'], origin: 'device', clientId: 'cid' });
    expect(await readFile(join(dir, 'config.json'), 'utf8')).not.toContain('lyo_secret_token');
    stub.verify();

    // auth token prints it on stdout; status masks it; logout removes it and shows the review link.
    const t = context();
    await runAuthToken(t, {});
    expect(io.stdoutText()).toBe('lyo_secret_token\n');
    const s = context().forRun({ io, output: new Output(io, { format: 'json' }) });
    stub.on('GET', '/api/v3/user', { headers: { 'x-oauth-scopes': 'repo' }, body: { login: 'mona' } });
    await runAuthStatus(s, {});
    expect(io.stdoutText()).not.toContain('lyo_secret_token');
    expect(JSON.parse(io.stdoutText())).toMatchObject({ accounts: [{ account: 'mona', source: 'file', valid: true, active: true, scopes: ['repo'] }] });
    const l = context();
    await runAuthLogout(l, {});
    expect(io.stderrText()).toContain(`${stub.url}/settings/connections/applications/cid`);
  });

  it('access_denied: exit 4 and nothing stored', async () => {
    stub.on('POST', '/login/device/code', {
      body: { device_code: 'd'.repeat(40), user_code: 'WDJB-MJHT', verification_uri: `${stub.url}/login/device`, expires_in: 900, interval: 5 },
    });
    stub.on('POST', '/login/oauth/access_token', { headers: { 'content-type': 'application/xml' }, body: '<OAuth><error>access_denied</error></OAuth>' });
    const err = await runAuthDevice(context({ LANYARD_BROWSER: 'true' }), {}).catch((e: unknown) => e);
    expect(exitCodeFor(err)).toBe(4);
    expect((err as Error).message).toMatch(/access denied/);
    await expect(readFile(join(dir, 'credentials.json'), 'utf8')).rejects.toThrow();
  });

  it('a bad scope is a usage error before any request (exit 2)', async () => {
    const err = await runAuthDevice(context(), { scopes: 'repo <script>' }).catch((e: unknown) => e);
    expect(exitCodeFor(err)).toBe(2);
    expect(stub.requests).toHaveLength(0);
  });
});

/** A session bus that accepts the connection and never answers: the keychain is unavailable, only the 0600 file is looked in. */
async function withSilentBus(body: (env: Record<string, string>) => Promise<void>): Promise<void> {
  const sockets: Socket[] = [];
  const bus = createServer((s) => sockets.push(s));
  const path = join(dir, 'bus');
  await new Promise<void>((r) => bus.listen(path, r));
  try {
    await body({ LANYARD_KEYCHAIN: '', DBUS_SESSION_BUS_ADDRESS: `unix:path=${path}`, LANYARD_KEYCHAIN_TIMEOUT_MS: '50' });
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise((r) => bus.close(r));
  }
}

describe('runAuthLogout', () => {
  it.runIf(process.platform === 'linux')('a keychain that does not answer is said, not taken for "no account stored" (exit 1, nothing deleted)', async () => {
    await withSilentBus(async (env) => {
      const err = await runAuthLogout(context(env), {}).catch((e: unknown) => e);
      expect(exitCodeFor(err)).toBe(1);
      expect((err as Error).message).toMatch(
        /^the OS keychain is unavailable \(.*did not answer within 50 ms\), and the 0600 file holds no hosting account of .*: nothing was deleted$/,
      );
    });
  });

  it.runIf(process.platform === 'linux')(
    "a keychain that does not answer while the 0600 file holds the account: refused, the file's copy kept (the keychain may hold one too)",
    async () => {
      const apiUrl = `${stub.url}/api/v3`;
      const accounts = async (env: Record<string, string> = {}) => (await openHostingStores(context(env), apiUrl)).accounts;
      for (const login of ['mona', 'hubot'])
        await (await accounts()).save({ login, token: `tok-${login}`, scopes: [], origin: 'pasted', createdAt: '2026-01-01T00:00:00Z' });
      await withSilentBus(async (env) => {
        for (const user of [undefined, 'mona']) {
          const err = await runAuthLogout(context(env), user === undefined ? {} : { user }).catch((e: unknown) => e);
          expect(exitCodeFor(err)).toBe(1);
          expect((err as Error).message).toMatch(/^the OS keychain is unavailable \(.*did not answer within 50 ms\): nothing was deleted$/);
          expect((err as { hint?: string }).hint).toMatch(/LANYARD_KEYCHAIN=off/);
          expect(io.stderrText()).not.toMatch(/Logged out/);
        }
        const err = await runAuthLogout(context(env), { user: 'octocat' }).catch((e: unknown) => e);
        expect((err as Error).message).toMatch(/the 0600 file holds no stored token for octocat on .*: nothing was deleted$/);
      });
      expect((await (await accounts()).list()).map((a) => a.record.login).sort()).toEqual(['hubot', 'mona']);
      // With the keychain off, only the file's copy is removed, as the hint says.
      await runAuthLogout(context(), { user: 'mona' });
      expect((await (await accounts()).list()).map((a) => a.record.login)).toEqual(['hubot']);
      // With no session bus at all (a headless machine) no keychain can answer later: the file's copy is removed.
      await runAuthLogout(context({ LANYARD_KEYCHAIN: '', DBUS_SESSION_BUS_ADDRESS: '', LANYARD_KEYCHAIN_TIMEOUT_MS: '2000' }), { user: 'hubot' });
      expect(io.stderrText()).toMatch(/Logged out .* hubot/);
      expect(await (await accounts()).list()).toEqual([]);
    },
  );

  it('with nothing stored anywhere: not signed in', async () => {
    const err = await runAuthLogout(context(), {}).catch((e: unknown) => e);
    expect(exitCodeFor(err)).toBe(1);
    expect((err as Error).message).toBe(`no hosting account is stored for ${new URL(stub.url).host}`);
  });
});
