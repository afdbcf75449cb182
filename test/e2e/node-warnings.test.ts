/**
 * Nothing on stderr but Lanyard's own words: the main path of every command
 * group, shared pacing over TLS to a server named by its IP address
 * (`rediss://127.0.0.1`), the stdio bridge, the keychain through a real Secret
 * Service and the emulator itself print no Node.js warning (a line starting
 * `(node:` - deprecation, experimental feature, listener leak, an ES module
 * importing an addon, …). `.ci/run` runs the suite on Node 20, 24 and 26, so
 * this runs on each; the Node is in the test names.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliEmulator, type CliResult, inSecretService, runCli, type RunOptions, startCliEmulator } from './harness.js';
import { privateCa } from './private-ca.js';
import { type RedisServer, startRedis } from '../fakes/redis-server.js';

/** The emulator's default personal access token (user mona), its seeded echo key and the protocol server's confidential client. */
const TOKEN = 'lyp_emulator_default_token_0000000000000001';
const ECHO_KEY = 'AIzaSyLanyardEmulatorEchoKey0000000001';
const CLIENT_SECRET = 'ctx-service-secret';

/** The lines of a stderr that Node.js wrote, not Lanyard: `(node:1234) [DEP0123] DeprecationWarning: …` and its `(Use `node --trace-…` line. */
export function nodeWarnings(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.startsWith('(node:') || /^\w*Warning: /.test(l));
}

let dir: string;
let emulator: CliEmulator;
let url: string;
let tlsEmulator: CliEmulator;
let tlsUrl: string;
let tlsCa: string;
let redis: RedisServer | undefined;
let redisCa: string;

/**
 * The launcher keeps Node's warnings off stderr unless asked for them
 * (bin/lanyard.js, quietNodeWarnings); these runs ask, with --trace-warnings,
 * so that a warning Lanyard causes is seen here rather than hidden.
 */
const SHOW_WARNINGS = { NODE_OPTIONS: '--trace-warnings' };
const env = (extra: Record<string, string | undefined> = {}) => ({ LANYARD_CONFIG_DIR: dir, LANYARD_TOKEN: TOKEN, ...SHOW_WARNINGS, ...extra });
const lanyard = (args: string[], o: RunOptions = {}) => runCli(['--profile', 'emulator', ...args], { timeoutMs: 60_000, ...o, env: env(o.env) });

/** Runs and expects exit 0 and no warning on stderr. */
async function clean(args: string[], o: RunOptions = {}): Promise<CliResult> {
  const r = await lanyard(args, o);
  expect(nodeWarnings(r.stderr), `lanyard ${args.join(' ')}`).toEqual([]);
  expect(r.code, `lanyard ${args.join(' ')}: ${r.stderr}`).toBe(0);
  return r;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lanyard-warnings-'));
  const tlsDir = join(dir, 'tls-emulator');
  // Redis over TLS with a certificate for 127.0.0.1 from a private CA.
  const ca = privateCa(dir);
  const cert = ca.issue('redis', ['localhost']);
  redisCa = ca.caFile;
  // The two emulators and Redis start side by side (each its own process and directory).
  [emulator, tlsEmulator, redis] = await Promise.all([
    startCliEmulator(['--port', '0'], { LANYARD_CONFIG_DIR: dir, ...SHOW_WARNINGS }),
    // ready at its console line (--no-profile: no profile line to wait for), the CA file named before it
    startCliEmulator(
      ['--port', '0', '--tls', '--data-dir', tlsDir, '--no-profile'],
      { LANYARD_CONFIG_DIR: join(dir, 'unused'), ...SHOW_WARNINGS },
      { readyOn: /Console: / },
    ),
    startRedis({ tls: { cert: cert.cert, key: cert.key, ca: ca.caFile } }),
  ]);
  url = /^Emulator listening on (\S+)$/.exec(emulator.first)![1]!;
  tlsUrl = /^Emulator listening on (\S+)$/.exec(tlsEmulator.first)![1]!;
  tlsCa = /(\/\S+\.pem)/.exec(tlsEmulator.stderr())?.[1] ?? '';
}, 60_000);
afterAll(async () => {
  await emulator?.stop('SIGTERM');
  await tlsEmulator?.stop('SIGTERM');
  await redis?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe(`no Node.js warning on stderr (node ${process.version})`, () => {
  it('the warnings check can fail: it sees what Node prints', () => {
    const r = spawnSync(process.execPath, ['-e', "process.emitWarning('x', 'DeprecationWarning', 'DEP0000')"], { encoding: 'utf8' });
    expect(nodeWarnings(r.stderr)[0]).toMatch(/^\(node:\d+\) \[DEP0000\] DeprecationWarning: x/);
  });

  it('a warning Node prints while Lanyard runs stays off stderr unless asked for (--debug, --trace-warnings)', async () => {
    // A preloaded module makes Node warn once the launcher runs (as a newer Node or a dependency might).
    const preload = join(dir, 'warn.cjs');
    await writeFile(preload, "setImmediate(() => process.emitWarning('made by the test', 'DeprecationWarning', 'DEP0999'));\n");
    const warn = { NODE_OPTIONS: `--require ${preload}` };
    const quiet = await lanyard(['config', 'list', '--json'], { env: warn });
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).toBe('');
    const traced = await lanyard(['config', 'list', '--json'], { env: { NODE_OPTIONS: `--trace-warnings --require ${preload}` } });
    expect(nodeWarnings(traced.stderr)[0]).toMatch(/^\(node:\d+\) \[DEP0999\] DeprecationWarning: made by the test/);
    const debug = await lanyard(['--debug', 'config', 'list', '--json'], { env: warn });
    expect(nodeWarnings(debug.stderr)[0]).toMatch(/DEP0999/);
  });

  it('root, help, completion', async () => {
    for (const args of [
      ['--version'],
      ['--help'],
      ['help', 'auth'],
      ['mailbox', 'list', '--help'],
      ['completion', 'bash'],
      ['completion', 'zsh'],
      ['completion', 'fish'],
    ]) {
      await clean(args);
    }
    const typo = await lanyard(['ratelimt']);
    expect(typo.code).toBe(2);
    expect(nodeWarnings(typo.stderr)).toEqual([]);
  });

  it('auth, ratelimit, api, exec, config, profile (hosting)', async () => {
    await clean(['auth', 'token', '--with-token'], { input: TOKEN, env: { LANYARD_TOKEN: undefined } });
    await clean(['auth', 'status', '--json'], { env: { LANYARD_TOKEN: undefined } });
    await clean(['ratelimit', 'status', '--json']);
    expect((await clean(['api', '/user', '--jq', '.login'])).stdout).toBe('mona\n');
    await clean(['api', '--paginate', '/user/repos', '--ndjson']);
    await clean(['api', '-X', 'POST', '/user/repos', '-f', 'name=warnings-local-pacing']);
    await clean(['exec', '--', process.execPath, '-e', 'process.exit(process.env.LANYARD_TOKEN ? 0 : 1)']);
    await clean(['config', 'set', 'mailbox.user', 'alice']);
    await clean(['config', 'list', '--json']);
    await clean(['profile', 'list', '--json']);
  });

  it('echo, mailbox, health, doctor, emulator verbs', async () => {
    await clean(['echo', 'send', 'hello'], { env: { LANYARD_API_KEY: ECHO_KEY } });
    await clean(['mailbox', 'list', '--json']);
    const health = (await (
      await fetch(`${url}/_emulator/health/issue-token`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })
    ).json()) as {
      access_token: string;
    };
    await clean(['health', 'events', '--json'], { env: { LANYARD_HEALTH_TOKEN: health.access_token } });
    await clean(['doctor', '--json'], { env: { LANYARD_API_KEY: ECHO_KEY, LANYARD_HEALTH_TOKEN: health.access_token } });
    await clean(['emulator', 'fault', 'clear', '--url', url]);
  });

  it('protocol: sign-in, request and the stdio bridge', async () => {
    const mcp = `${url}/mcp`;
    await clean(['auth', 'login', '--server', mcp, '--client-id', 'ctx-service', '--client-credentials'], { input: `${CLIENT_SECRET}\n` });
    await clean(['protocol', 'request', mcp, '--method', 'tools/list', '--json']);
    const host = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'warnings-test', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'through the bridge' } } },
    ];
    const r = await clean(['protocol', 'bridge', mcp], { input: `${host.map((m) => JSON.stringify(m)).join('\n')}\n` });
    const answers = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id?: number; result?: unknown });
    expect(answers.filter((a) => a.result !== undefined).map((a) => a.id)).toEqual([1, 2, 3]);
  });

  it('api over TLS to the emulator named by its IP address', async () => {
    expect(tlsCa).not.toBe('');
    const tls = { LANYARD_PROFILE: 'tls', LANYARD_CA_FILE: tlsCa };
    await runCli(['config', 'set', 'hosting.apiUrl', `${tlsUrl}/api/v3`], { env: env(tls) });
    const r = await runCli(['api', '/user', '--jq', '.login'], { env: env(tls) });
    expect(nodeWarnings(r.stderr)).toEqual([]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('mona\n');
  });

  it('shared pacing over TLS to a server named by its IP address (rediss://127.0.0.1)', async () => {
    const pacing = { LANYARD_PACING_URL: redis!.url, LANYARD_PACING_REQUIRED: '1', NODE_EXTRA_CA_CERTS: redisCa };
    for (const name of ['paced-1', 'paced-2']) await clean(['api', '-X', 'POST', '/user/repos', '-f', `name=${name}`], { env: pacing });
    // It went through that server: the admissions are counted there.
    expect(await redis!.cli('KEYS', '*')).toMatch(/\S/);
  });

  it.skipIf(!hasSecretService())('the keychain through a real Secret Service (the native addon)', async () => {
    const home = await mkdtemp(join(tmpdir(), 'lanyard-warnings-keyring-'));
    try {
      const r = inSecretService(
        [
          `printf %s ${TOKEN} | $LY auth token --with-token || exit 11`,
          '$LY auth status --json >/dev/null || exit 12',
          `$LY api /user --jq .login || exit 13`,
        ].join('\n'),
        { HOME: home, LANYARD_CONFIG_DIR: dir, ...SHOW_WARNINGS },
        '--profile emulator',
      );
      expect(nodeWarnings(r.stderr)).toEqual([]);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toBe('mona\n');
      expect(r.stderr).toMatch(/OS keychain/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('the emulators printed none either', async () => {
    expect(nodeWarnings(emulator.stderr())).toEqual([]);
    expect(nodeWarnings(tlsEmulator.stderr())).toEqual([]);
    expect(await readFile(tlsCa, 'utf8')).toMatch(/BEGIN CERTIFICATE/);
  });
});

function hasSecretService(): boolean {
  return ['dbus-run-session', 'gnome-keyring-daemon'].every((c) => spawnSync('sh', ['-c', `command -v ${c}`]).status === 0);
}
