/**
 * `auth status` tells a token the server refused (exit 4, state "invalid")
 * from one it could not ask about (state "unchecked", with the error's code in
 * `checkError`): a rate limit (exit 3; GET /rate_limit, free of the primary
 * budget, vouches for the token when it can), a refused connection, a stalled
 * server, a proxy answering 407 (exit 1). As gh reports a time-out apart from
 * a bad token. And `--expires-within`'s hint for a token from the environment
 * is one that works (`auth refresh` refuses those).
 */
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runAuthStatus, runAuthToken } from '../../../../src/cli/commands/auth/run.js';
import { useEmulatorCommands } from '../on-emulator.js';

const cmd = useEmulatorCommands();
const MONA = 'lyp_emulator_default_token_0000000000000001';

interface Entry {
  source: string;
  account?: string;
  valid: boolean;
  state?: string;
  checkError?: string;
  detail?: string;
  active?: boolean;
}
const accounts = (stdout: string) => (JSON.parse(stdout) as { accounts: Entry[] }).accounts;

const servers: Array<Server | import('node:http').Server> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});
/** A loopback TCP server doing `onConnection` with each connection; its port. */
async function tcp(onConnection: (c: import('node:net').Socket) => void): Promise<number> {
  const s = createServer((c) => {
    c.on('error', () => undefined);
    onConnection(c);
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return (s.address() as { port: number }).port;
}
/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const port = await tcp(() => undefined);
  await new Promise((r) => servers.pop()!.close(r));
  return port;
}

describe('auth status: a token that could not be checked is not called invalid', () => {
  it('rate-limited GET /user: GET /rate_limit vouches for the token (valid, exit 0), its user not checked', async () => {
    await cmd.emu.budget({ login: 'mona', remaining: 0, resetInSeconds: 600 });
    const j = await cmd.run((ctx) => runAuthStatus(ctx, {}), { env: { LANYARD_TOKEN: MONA }, format: 'json' });
    expect(j.code, j.stderr).toBe(0);
    const [e] = accounts(j.stdout);
    expect(e).toMatchObject({ source: 'env:LANYARD_TOKEN', valid: true, state: 'valid' });
    expect(e!.detail).toMatch(/not checked: .*rate limit/i);
    const human = await cmd.run((ctx) => runAuthStatus(ctx, {}), { env: { LANYARD_TOKEN: MONA } });
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/\tvalid: the server takes the token; whose it is was not checked/);
  });

  it('rate-limited GET /user, --expires-within: the expiry from GET /rate_limit’s token expiration header; without one it is not known (exit 3), never a silent 0', async () => {
    const { token } = (await cmd.emu.admin('hosting', 'issue-personal-token', { login: 'mona', scopes: 'repo', expiresIn: 3600 })) as { token: string };
    await cmd.emu.budget({ login: 'mona', remaining: 0, resetInSeconds: 600 });
    const soon = await cmd.run((ctx) => runAuthStatus(ctx, { expiresWithin: '2h' }), { env: { LANYARD_TOKEN: token }, format: 'json' });
    expect(soon.code, soon.stderr).toBe(4);
    expect(accounts(soon.stdout)[0]).toMatchObject({ state: 'valid', expiresAt: expect.any(String) });
    expect(soon.stderr).toMatch(/env:LANYARD_TOKEN.* expires at /);
    const later = await cmd.run((ctx) => runAuthStatus(ctx, { expiresWithin: '30m' }), { env: { LANYARD_TOKEN: token } });
    expect(later.code, later.stderr).toBe(0);
    // A token whose answers carry no expiry: the rate limit kept it from being known.
    const unknown = await cmd.run((ctx) => runAuthStatus(ctx, { expiresWithin: '7d' }), { env: { LANYARD_TOKEN: MONA }, format: 'json' });
    expect(unknown.code, unknown.stderr).toBe(3);
    expect(unknown.stderr).toMatch(/could not learn when the hosting credential \(env:LANYARD_TOKEN\) expires: .*rate limit/i);
    expect(accounts(unknown.stdout)[0]).toMatchObject({ valid: true, state: 'valid' });
    expect(accounts(unknown.stdout)[0]).not.toHaveProperty('checkError');
  });

  it('a secondary limit on GET /user: not waited for (its retry-after, even with --wait); GET /rate_limit vouches at once', async () => {
    for (const globals of [{}, { wait: true }]) {
      await cmd.emu.secondary({ retryAfter: 30, count: 1 });
      const j = await cmd.run((ctx) => runAuthStatus(ctx, {}), { env: { LANYARD_TOKEN: MONA }, format: 'json', globals });
      expect(j.code, j.stderr).toBe(0);
      expect(j.clock.sleeps).toEqual([]);
      expect(j.stderr).not.toMatch(/waiting/);
      const [e] = accounts(j.stdout);
      expect(e).toMatchObject({ source: 'env:LANYARD_TOKEN', valid: true, state: 'valid' });
      expect(e!.detail).toMatch(/not checked: .*secondary rate limit/i);
      await cmd.emu.reset();
    }
  });

  it('a secondary limit on GET /user and GET /rate_limit failing: exit 3 at once, unchecked, not waited for', async () => {
    await cmd.emu.secondary({ retryAfter: 20, count: 1 });
    cmd.emu.fault({ type: 'status', status: 502, path: '/api/v3/rate_limit', count: 50 });
    const j = await cmd.run((ctx) => runAuthStatus(ctx, {}), { env: { LANYARD_TOKEN: MONA }, format: 'json' });
    expect(j.code, j.stderr).toBe(3);
    expect(
      j.clock.sleeps.every((ms) => ms < 2000),
      String(j.clock.sleeps),
    ).toBe(true);
    expect(accounts(j.stdout)).toMatchObject([{ valid: false, state: 'unchecked', checkError: 'rate_limited' }]);
    expect(j.stderr).toMatch(/^could not check the hosting credential \(env:LANYARD_TOKEN\), so it is not known to be invalid: .*secondary rate limit.*\n/im);
    expect(j.stderr).toMatch(/try again after .* local time \(a status check does not wait for a rate limit\)/);
    expect(j.stderr).not.toMatch(/--wait|waiting/);
  });

  it('rate-limited and GET /rate_limit failing too: "could not check", exit 3, state unchecked / checkError rate_limited', async () => {
    await cmd.emu.budget({ login: 'mona', remaining: 0, resetInSeconds: 600 });
    cmd.emu.fault({ type: 'status', status: 502, path: '/api/v3/rate_limit', count: 50 });
    const j = await cmd.run((ctx) => runAuthStatus(ctx, {}), { env: { LANYARD_TOKEN: MONA }, format: 'json' });
    expect(j.code, j.stderr).toBe(3);
    expect(accounts(j.stdout)).toMatchObject([{ valid: false, state: 'unchecked', checkError: 'rate_limited' }]);
    expect(j.stderr).not.toMatch(/not valid|sign in again/);
    expect(j.stderr).toMatch(/could not check the hosting credential \(env:LANYARD_TOKEN\), so it is not known to be invalid: .*rate limit/i);
    expect(j.stderr).toMatch(/\nthe budget resets at .* local time \(a status check does not wait for a rate limit\)\n/);
    const human = await cmd.run((ctx) => runAuthStatus(ctx, {}), { env: { LANYARD_TOKEN: MONA } });
    expect(human.code).toBe(3);
    expect(human.stdout).toMatch(/\tcould not check: .*rate limit/i);
    expect(human.stdout).not.toMatch(/invalid/);
  });

  it('a stored account, rate-limited: still valid (the token was taken), not refreshed or refused', async () => {
    expect((await cmd.run((ctx) => runAuthToken(ctx, { withToken: true }), { stdin: `${MONA}\n` })).code).toBe(0);
    await cmd.emu.budget({ login: 'mona', remaining: 0, resetInSeconds: 600 });
    const j = await cmd.run((ctx) => runAuthStatus(ctx, {}), { format: 'json' });
    expect(j.code, j.stderr).toBe(0);
    expect(accounts(j.stdout).find((e) => e.account === 'mona')).toMatchObject({ valid: true, state: 'valid', active: true });
  });

  it('connection refused: exit 1, unchecked (network_error), not "invalid"', async () => {
    const api = `http://127.0.0.1:${await closedPort()}/api/v3`;
    const j = await cmd.run((ctx) => runAuthStatus(ctx, {}), { env: { LANYARD_TOKEN: MONA }, format: 'json', settings: { 'hosting.apiUrl': api } });
    expect(j.code, j.stderr).toBe(1);
    expect(accounts(j.stdout)).toMatchObject([{ valid: false, state: 'unchecked', checkError: 'network_error' }]);
    expect(j.stderr).toMatch(/could not check/);
    expect(j.stderr).not.toMatch(/is not valid|sign in again/);
  });

  it('a stalled server: --timeout ends it, exit 1, unchecked (timeout)', async () => {
    const port = await tcp((c) => c.on('data', () => undefined));
    const j = await cmd.run((ctx) => runAuthStatus(ctx, {}), {
      env: { LANYARD_TOKEN: MONA },
      format: 'json',
      globals: { timeout: '1s' },
      settings: { 'hosting.apiUrl': `http://127.0.0.1:${port}/api/v3` },
    });
    expect(j.code, j.stderr).toBe(1);
    expect(accounts(j.stdout)).toMatchObject([{ valid: false, state: 'unchecked', checkError: 'timeout' }]);
  });

  it('a proxy answering 407: exit 1, unchecked (proxy_error)', async () => {
    const port = await tcp((c) =>
      c.once('data', () => c.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="corp"\r\nContent-Length: 0\r\n\r\n')),
    );
    const j = await cmd.run((ctx) => runAuthStatus(ctx, {}), {
      env: { LANYARD_TOKEN: MONA, HTTPS_PROXY: `http://127.0.0.1:${port}` },
      format: 'json',
      settings: { 'hosting.apiUrl': 'https://api.corp.test', 'hosting.webUrl': 'https://corp.test' },
    });
    expect(j.code, j.stderr).toBe(1);
    expect(accounts(j.stdout)).toMatchObject([{ valid: false, state: 'unchecked', checkError: 'proxy_error' }]);
    expect(j.stderr).toMatch(/407/);
  });

  it('a token the server refuses is still invalid: exit 4, state invalid', async () => {
    const j = await cmd.run((ctx) => runAuthStatus(ctx, {}), { env: { LANYARD_TOKEN: 'lyp_not_a_token_000000000000000000000000' }, format: 'json' });
    expect(j.code).toBe(4);
    expect(accounts(j.stdout)).toMatchObject([{ valid: false, state: 'invalid' }]);
    expect(accounts(j.stdout)[0]!.checkError).toBeUndefined();
  });
});

/** A loopback HTTP server; its URL (`localhost` when asked: another origin than 127.0.0.1's). */
async function web(handle: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void, host = '127.0.0.1'): Promise<string> {
  const s = createHttpServer(handle);
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return `http://${host}:${(s.address() as { port: number }).port}`;
}

describe('auth status: GET /user redirected to another origin that answers 401 (it was sent no token)', () => {
  it('is no verdict on the token: unchecked (http_error), exit 1, the other origin named; a refreshable stored account is not refreshed', async () => {
    // The API moved: the old address answers 301 to the new origin, which the token is never sent to.
    const moved = await web((req, res) => {
      res.writeHead(req.headers.authorization ? 200 : 401, { 'content-type': 'application/json' });
      res.end(req.headers.authorization ? '{"login":"mona"}' : '{"message":"Requires authentication"}');
    }, 'localhost');
    let redirecting = false;
    const old = await web((req, res) => {
      if (redirecting) return res.writeHead(301, { location: `${moved}${req.url}` }).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"login":"mona","id":1}');
    });
    let tokenRequests = 0;
    const login = await web((_req, res) => (tokenRequests++, res.writeHead(500).end()));
    const settings = { 'hosting.apiUrl': `${old}/api/v3`, 'hosting.webUrl': login };
    expect((await cmd.run((ctx) => runAuthToken(ctx, { withToken: true }), { stdin: `${MONA}\n`, settings })).code).toBe(0);
    // A token that could be refreshed: a refused one would be.
    const key = [...cmd.store.data.keys()].find((k) => k.endsWith(':mona'))!;
    cmd.store.data.set(key, JSON.stringify({ ...JSON.parse(cmd.store.data.get(key)!), refreshToken: 'lyr_refresh_0000000001', clientId: 'Iv1.client' }));
    redirecting = true;
    const stored = await cmd.run((ctx) => runAuthStatus(ctx, {}), { format: 'json', settings });
    expect(stored.code, stored.stderr).toBe(1);
    expect(accounts(stored.stdout)).toMatchObject([{ account: 'mona', valid: false, state: 'unchecked', checkError: 'http_error' }]);
    expect(tokenRequests).toBe(0);
    const fromEnv = await cmd.run((ctx) => runAuthStatus(ctx, {}), { env: { LANYARD_TOKEN: MONA }, format: 'json', settings });
    expect(fromEnv.code, fromEnv.stderr).toBe(1);
    expect(accounts(fromEnv.stdout)[0]).toMatchObject({ source: 'env:LANYARD_TOKEN', state: 'unchecked', checkError: 'http_error' });
    expect(fromEnv.stderr).toContain(`redirected to ${moved}, which answered HTTP 401: Requires authentication (no credential is sent to another origin)`);
    expect(fromEnv.stderr).not.toMatch(/not valid|sign in|refused the token|proxy settings/);
    expect(fromEnv.stderr).toContain('check the API address: `lanyard config get hosting.apiUrl`');
  });
});

describe('auth status --expires-within', () => {
  it('an environment token that is not valid: the hint names the variable, not `auth refresh` (which refuses it)', async () => {
    const j = await cmd.run((ctx) => runAuthStatus(ctx, { expiresWithin: '7d' }), { env: { LANYARD_TOKEN: 'lyp_not_a_token_000000000000000000000000' } });
    expect(j.code).toBe(4);
    expect(j.stderr).toMatch(/LANYARD_TOKEN comes from the environment: put a new token in it/);
    expect(j.stderr).not.toMatch(/renew it with `lanyard auth refresh`/);
  });

  it("a token that could not be checked: the check's exit code (1), not 4", async () => {
    const api = `http://127.0.0.1:${await closedPort()}/api/v3`;
    const j = await cmd.run((ctx) => runAuthStatus(ctx, { expiresWithin: '7d' }), { env: { LANYARD_TOKEN: MONA }, settings: { 'hosting.apiUrl': api } });
    expect(j.code, j.stderr).toBe(1);
    expect(j.stderr).toMatch(/could not check/);
  });
});
