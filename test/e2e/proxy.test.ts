/**
 * Proxies (issue 25) against a real squid with basic authentication. The
 * emulator serves HTTPS with a certificate from a private CA for
 * `lanyard-emu.test`, a name only squid resolves (its hosts_file): a request
 * that bypasses the proxy cannot find the host. HTTPS goes through a CONNECT
 * tunnel (the private CA trusted through LANYARD_CA_FILE); plain HTTP in
 * absolute form (a second, plain emulator).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorld, type World } from './harness.js';
import { privateCa } from './private-ca.js';
import { startSquid, type Squid } from './squid.js';
import { PERSONAL_TOKEN, start, USER_CODE } from './auth-helpers.js';
import { readFileSync } from 'node:fs';

const HOST = 'lanyard-emu.test';
const PASSWORD = 'pr0xy-S3cret-pass';
let dir: string;
let squid: Squid;
let tls: World;
let plain: World;
/** The TLS emulator that names itself HOST (--public-host): its metadata, its profile and its URL. */
let pub: World;
let caFile: string;
let squidDir: string;

/** Adds a profile that is the emulator's with its host replaced by HOST. */
async function addProfile(world: World, name: string): Promise<void> {
  const file = join(world.configDir, 'config.json');
  const config = JSON.parse(await readFile(file, 'utf8')) as { profiles: Record<string, Record<string, string>> };
  const origin = new URL(world.url);
  config.profiles[name] = Object.fromEntries(
    Object.entries(config.profiles.emulator!).map(([k, v]) => [k, v.split(origin.host).join(`${HOST}:${origin.port}`)]),
  );
  await writeFile(file, JSON.stringify(config));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-proxy-'));
  const ca = privateCa(dir);
  caFile = ca.caFile;
  const leaf = ca.issue('emulator', [HOST]);
  // Its own directory right under the temporary one: squid's user must reach it.
  squidDir = await mkdtemp(join(tmpdir(), 'lanyard-squid-'));
  [squid, tls, plain] = await Promise.all([
    startSquid(squidDir, { users: { alice: PASSWORD }, hosts: [HOST] }),
    startWorld({ emulatorArgs: ['--tls-cert', leaf.cert, '--tls-key', leaf.key], env: { LANYARD_CA_FILE: caFile } }),
    startWorld({ emulatorArgs: ['--allow-host', HOST] }),
  ]);
  pub = await startWorld({ emulatorArgs: ['--tls-cert', leaf.cert, '--tls-key', leaf.key, '--public-host', HOST], env: { LANYARD_CA_FILE: caFile } });
  await addProfile(tls, 'corp');
  await addProfile(plain, 'corp');
}, 60_000);
afterAll(async () => {
  await Promise.all([squid?.stop(), tls?.stop(), plain?.stop(), pub?.stop()]);
  await rm(dir, { recursive: true, force: true });
  if (squidDir) await rm(squidDir, { recursive: true, force: true });
});

const through = (extra: Record<string, string | undefined> = {}) => ({ HTTPS_PROXY: squid.url(), ...extra });

describe('through a proxy (squid, basic auth, CONNECT)', () => {
  it('api: the request goes through the tunnel; without the proxy the host is not found', async () => {
    const r = await tls.run(['--profile', 'corp', 'api', '/user'], { env: through({ LANYARD_TOKEN: PERSONAL_TOKEN }) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ login: expect.any(String) });
    expect(await squid.accessLog()).toMatch(new RegExp(`CONNECT ${HOST.replace(/\./g, '\\.')}:${new URL(tls.url).port} .*alice`));
    const direct = await tls.run(['--profile', 'corp', 'api', '/user'], { env: { LANYARD_TOKEN: PERSONAL_TOKEN } });
    expect(direct.code).toBe(1);
    expect(direct.stderr).toMatch(/ENOTFOUND|EAI_AGAIN|not found|resolve/i);
  });

  it('lower-case https_proxy wins over HTTPS_PROXY; ALL_PROXY serves when neither is set', async () => {
    const lower = await tls.run(['--profile', 'corp', 'api', '/rate_limit'], { env: { https_proxy: squid.url(), HTTPS_PROXY: 'http://127.0.0.1:1' } });
    expect(lower.code, lower.stderr).toBe(0);
    const all = await tls.run(['--profile', 'corp', 'api', '/rate_limit'], { env: { ALL_PROXY: squid.url() } });
    expect(all.code, all.stderr).toBe(0);
  });

  it('a wrong proxy password: one line naming the proxy without the password, exit 1, also with --debug', async () => {
    const wrong = 'wr0ng-Pa55word-xyz';
    for (const debug of [[], ['--debug']]) {
      const r = await tls.run([...debug, '--profile', 'corp', 'api', '/user'], {
        env: { HTTPS_PROXY: squid.url('alice', wrong), LANYARD_TOKEN: PERSONAL_TOKEN },
      });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`the proxy http://alice@127.0.0.1:${squid.port} refused the credentials (407 Proxy Authentication Required)`);
      expect(r.stdout + r.stderr).not.toContain(wrong);
      expect(r.stdout + r.stderr).not.toContain(PERSONAL_TOKEN);
      if (debug.length) expect(r.stderr).toContain(`* via proxy http://alice@127.0.0.1:${squid.port}`);
      else expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
    }
  });

  it('the right password never shows in --debug either', async () => {
    const r = await tls.run(['--debug', '--profile', 'corp', 'api', '/rate_limit'], { env: through() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
  });

  it('a proxy that is not there: one line naming it, exit 1', async () => {
    const r = await tls.run(['--profile', 'corp', 'api', '/rate_limit'], { env: { HTTPS_PROXY: `http://alice:${PASSWORD}@127.0.0.1:1` } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('cannot reach the proxy http://alice@127.0.0.1:1');
    expect(r.stderr).not.toContain(PASSWORD);
  });

  it('NO_PROXY: a matching suffix, host:port or * goes direct (and fails here); another entry does not', async () => {
    const port = new URL(tls.url).port;
    for (const noProxy of ['.test', `${HOST}:${port}`, '*', `lanyard-EMU.test`]) {
      const r = await tls.run(['--profile', 'corp', 'api', '/rate_limit'], { env: through({ NO_PROXY: noProxy }) });
      expect(r.code, noProxy).toBe(1);
    }
    for (const noProxy of ['other.test', `${HOST}:1`, '10.0.0.0/8', 'emu.test.example']) {
      const r = await tls.run(['--profile', 'corp', 'api', '/rate_limit'], { env: through({ no_proxy: noProxy }) });
      expect(r.code, `${noProxy}: ${r.stderr}`).toBe(0);
    }
  });

  it('the profile setting network.proxy (without credentials) is used when no variable is set', async () => {
    const set = await tls.run(['--profile', 'corp', 'config', 'set', 'network.proxy', squid.url()]);
    expect(set.code).toBe(2);
    expect(set.stderr).toMatch(/never holds a secret/);
    // squid wants a password: the profile names the proxy, the environment cannot add one, so 407 says it is used.
    await tls.run(['--profile', 'corp', 'config', 'set', 'network.proxy', `http://127.0.0.1:${squid.port}`]);
    const r = await tls.run(['--profile', 'corp', 'api', '/rate_limit']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the proxy http://127.0.0.1:${squid.port} refused the credentials`);
    await tls.run(['--profile', 'corp', 'config', 'unset', 'network.proxy']);
  });

  it('health events and mailbox raw go through it too', async () => {
    const info = (await (await fetch(`${plain.url}/_emulator/info`)).json()) as { health: { token: string } };
    const before = (await squid.accessLog()).split('\n').length;
    const health = await tls.run(['--profile', 'corp', 'health', 'events', '--json'], { env: through({ LANYARD_HEALTH_TOKEN: info.health.token }) });
    expect(health.code, health.stderr).toBe(0);
    const list = await tls.run(['--profile', 'corp', 'mailbox', 'list', '--json'], { env: through() });
    expect(list.code, list.stderr).toBe(0);
    const id = (JSON.parse(list.stdout) as Array<{ id: string }>)[0]!.id;
    const raw = await tls.run(['--profile', 'corp', 'mailbox', 'raw', id], { env: through() });
    expect(raw.code, raw.stderr).toBe(0);
    expect(raw.stdout).toMatch(/^[A-Za-z-]+: /m);
    const log = (await squid.accessLog()).split('\n').slice(before - 1);
    expect(log.filter((l) => l.includes(`CONNECT ${HOST}`)).length).toBeGreaterThanOrEqual(3);
  });
});

/** POST /_emulator/<path> of `world` (a name only squid resolves) through squid. */
async function adminThroughProxy(world: World, path: string, body: unknown): Promise<unknown> {
  const [{ HttpsProxyAgent }, https] = await Promise.all([import('https-proxy-agent'), import('node:https')]);
  const agent = new HttpsProxyAgent(squid.url());
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${world.url}/_emulator/${path}`,
      { method: 'POST', agent, ca: readFileSync(caFile), headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () =>
          (res.statusCode ?? 500) < 300 ? resolve(text ? JSON.parse(text) : undefined) : reject(new Error(`${path}: ${res.statusCode} ${text}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('sign-ins and the protocol through the proxy (the emulator named HOST with --public-host)', () => {
  it('the emulator names itself HOST: its URL and profile, so a request that bypasses squid cannot find it', async () => {
    expect(new URL(pub.url).hostname).toBe(HOST);
    const direct = await pub.run(['--profile', 'emulator', 'api', '/rate_limit']);
    expect(direct.code).toBe(1);
    expect(direct.stderr).toMatch(/ENOTFOUND|EAI_AGAIN|not found/i);
  });

  it('protocol: sign-in (discovery, metadata, token) and a request, all through squid', async () => {
    const before = (await squid.accessLog()).split('\n').length;
    const mcp = `${pub.url}/mcp`;
    const login = await pub.run(['--profile', 'emulator', 'auth', 'login', '--server', mcp, '--client-id', 'ctx-service', '--client-credentials'], {
      input: 'ctx-service-secret\n',
      env: through(),
    });
    expect(login.code, login.stderr).toBe(0);
    const r = await pub.run(['--profile', 'emulator', 'protocol', 'request', mcp, '--method', 'tools/list', '--json'], { env: through() });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ result: { tools: expect.any(Array) } });
    const log = (await squid.accessLog()).split('\n').slice(before - 1);
    expect(log.filter((l) => l.includes(`CONNECT ${HOST}:${new URL(pub.url).port}`)).length).toBeGreaterThanOrEqual(2);
    expect(r.stdout + r.stderr + login.stdout + login.stderr).not.toContain(PASSWORD);
    const direct = await pub.run(['--profile', 'emulator', 'protocol', 'request', mcp, '--method', 'tools/list', '--json']);
    expect(direct.code).not.toBe(0);
  });

  it('auth device: the device code and the token requests through squid; approved, the token is stored', async () => {
    await adminThroughProxy(pub, 'hosting/device-policy', { interval: 1 });
    const run = start(pub, ['auth', 'device'], { env: through() });
    const [, code] = await run.waitForStderr(USER_CODE);
    await adminThroughProxy(pub, 'hosting/device-approve', { user_code: code });
    const r = await run.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain(PASSWORD);
    const status = await pub.run(['--profile', 'emulator', 'auth', 'status', '--json'], { env: through() });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).accounts[0]).toMatchObject({ service: 'hosting', account: 'mona', valid: true });
  });
});

describe('lanyard doctor through the proxy', () => {
  interface Report {
    ok: boolean;
    services: Array<{
      service: string;
      status: string;
      proxy?: string;
      checks: Array<{ name: string; status: string; problem?: string; summary: string; fix?: string }>;
    }>;
  }

  it('every service reached through squid (the proxy named without its password); without it, the DNS step fails with its fix', async () => {
    const before = (await squid.accessLog()).split('\n').length;
    const r = await tls.run(['--profile', 'corp', 'doctor', '--json'], { env: through({ LANYARD_TOKEN: PERSONAL_TOKEN }) });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as Report;
    for (const s of j.services) {
      expect(s.proxy, s.service).toBe(`http://alice@127.0.0.1:${squid.port}`);
      expect(s.checks[0], s.service).toMatchObject({ name: 'endpoint', status: 'ok', summary: expect.stringContaining('through the proxy') });
    }
    expect(j.services.find((s) => s.service === 'hosting')!.checks.find((c) => c.name === 'accepted')?.status).toBe('ok');
    expect(r.stdout + r.stderr).not.toContain(PASSWORD);
    expect(r.stdout + r.stderr).not.toContain(PERSONAL_TOKEN);
    const log = (await squid.accessLog()).split('\n').slice(before - 1);
    // One tunnel serves every service of the emulator (one host:port, kept alive).
    expect(log.filter((l) => l.includes(`CONNECT ${HOST}`)).length).toBeGreaterThanOrEqual(1);
    const direct = await tls.run(['--profile', 'corp', 'doctor', '--json'], { env: { LANYARD_TOKEN: PERSONAL_TOKEN } });
    expect(direct.code).toBe(1);
    const hosting = (JSON.parse(direct.stdout) as Report).services.find((s) => s.service === 'hosting')!;
    expect(hosting.checks[0]).toMatchObject({ name: 'endpoint', status: 'fail', problem: 'dns', fix: expect.stringContaining('HTTPS_PROXY') });
  });

  it('a wrong proxy password: the proxy step fails, naming the proxy, never the password', async () => {
    const wrong = 'wr0ng-D0ctor-pass';
    const r = await tls.run(['--profile', 'corp', 'doctor'], { env: { HTTPS_PROXY: squid.url('alice', wrong), LANYARD_TOKEN: PERSONAL_TOKEN } });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(new RegExp(`FAIL endpoint +the proxy http://alice@127\\.0\\.0\\.1:${squid.port} refused the credentials \\(407`));
    expect(r.stdout).toMatch(/fix: check HTTPS_PROXY/);
    expect(r.stdout + r.stderr).not.toContain(wrong);
  });
});

describe('plain HTTP through a proxy (absolute form)', () => {
  it('api: GET http://host/… to the proxy, with the lab opt-in for the token', async () => {
    const r = await plain.run(['--profile', 'corp', 'api', '/user'], {
      env: { HTTP_PROXY: squid.url(), LANYARD_TOKEN: PERSONAL_TOKEN, LANYARD_ALLOW_PLAIN_HTTP: HOST },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(await squid.accessLog()).toContain(`GET http://${HOST}:${new URL(plain.url).port}/api/v3/user`);
    const wrong = await plain.run(['--profile', 'corp', 'api', '/rate_limit'], { env: { HTTP_PROXY: squid.url('alice', 'nope-nope-nope') } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain(`the proxy http://alice@127.0.0.1:${squid.port} refused the credentials`);
  });
});
