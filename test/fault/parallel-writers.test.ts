/**
 * Parallel writers of every store, as a CI matrix or a shell loop makes them:
 * separate CLI processes writing different entries of one store at once must
 * all keep theirs (the stores' read-modify-write holds the config directory's
 * lock and re-reads after taking it; writes are atomic). Each case runs
 * several rounds, each round on a fresh config directory:
 *   - four accounts at once (two `auth token --with-token` for different
 *     users, `echo key set`, a client-credentials `auth login --server`) in
 *     the 0600 file, and in the OS keychain (real gnome-keyring);
 *   - the protocol registration store (`auth login --server` through the
 *     browser: dynamic registration, then tokens) beside other writers;
 *   - the health token store (`auth login --health`) beside other writers;
 *   - `config set` of many different keys at once under `umask 000`: no key
 *     lost, valid JSON, the file 0600 and the directory 0700.
 * The emulator runs as its own process; the person at the browser is the
 * stand-in scripts of the e2e tests.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, type CliResult, cleanEnv, collect, LIST_KEYCHAIN, ROOT, shellQuote as q, runCli, startWorld, type World } from '../e2e/harness.js';
import { CONSENT_BROWSER } from '../e2e/protocol-helpers.js';

const PERSON_BROWSER = join(ROOT, 'test', 'e2e', 'person-browser.mjs');
const ROUNDS = 3;

interface Info {
  protocol: { serverUrl: string };
  health: { user: { login: string; password: string } };
}

let world: World;
let info: Info;
let emulatorProfile: Record<string, string>;
let host: string;
const dirs: string[] = [];

beforeAll(async () => {
  world = await startWorld();
  info = (await (await fetch(`${world.url}/_emulator/info`)).json()) as Info;
  const config = JSON.parse(await readFile(join(world.configDir, 'config.json'), 'utf8')) as { profiles: Record<string, Record<string, string>> };
  emulatorProfile = config.profiles.emulator!;
  host = new URL(world.url).host;
});
afterAll(async () => {
  await world?.stop();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** A fresh config directory; with `profile`, its config.json selects the emulator's profile. */
async function freshDir(profile = true): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lanyard-fault-writers-'));
  dirs.push(dir);
  if (profile)
    await writeFile(join(dir, 'config.json'), JSON.stringify({ activeProfile: 'emulator', profiles: { emulator: emulatorProfile } }), { mode: 0o600 });
  return dir;
}

const run = (dir: string, args: string[], o: { input?: string; env?: Record<string, string> } = {}): Promise<CliResult> =>
  runCli(args, { env: { LANYARD_CONFIG_DIR: dir, ...o.env }, input: o.input, timeoutMs: 90_000 });

/** A fresh hosting token of `login` (as a finished sign-in would have issued it). */
async function hostingToken(login: string): Promise<string> {
  return ((await world.admin('hosting/issue-token', { clientId: 'lanyard-cli-emulator', login, scopes: ['repo'] })) as { access_token: string }).access_token;
}

async function echoKey(): Promise<string> {
  return ((await world.admin('echo/api-key', { name: 'parallel' })) as { key: string }).key;
}

/** The writers of one round; each resolves to its result. */
type Writer = (dir: string) => Promise<CliResult>;

const withToken =
  (login: string): Writer =>
  async (dir) =>
    run(dir, ['auth', 'token', '--with-token'], { input: await hostingToken(login) });
const echoKeySet: Writer = async (dir) => run(dir, ['echo', 'key', 'set'], { input: `${await echoKey()}\n` });
const clientCredentials: Writer = (dir) =>
  run(dir, ['auth', 'login', '--server', info.protocol.serverUrl, '--client-id', 'ctx-service', '--client-credentials'], { input: 'ctx-service-secret\n' });
const protocolBrowserLogin: Writer = (dir) =>
  run(dir, ['auth', 'login', '--server', info.protocol.serverUrl], {
    env: { LANYARD_BROWSER: CONSENT_BROWSER, LANYARD_TEST_CONSENT: 'allow', LANYARD_TEST_URL_LOG: join(dir, 'urls.log') },
  });
const healthLogin: Writer = (dir) =>
  run(dir, ['auth', 'login', '--health', '--timeout', '60s'], {
    env: { LANYARD_BROWSER: PERSON_BROWSER, LANYARD_TEST_PERSONS: JSON.stringify({ health: info.health.user }) },
  });

/** Runs the writers at once in a fresh directory; every one must succeed. Returns the credential file's entries. */
async function round(writers: Writer[]): Promise<Record<string, string>> {
  const dir = await freshDir();
  const results = await Promise.all(writers.map((w) => w(dir)));
  for (const r of results) expect(r.code, r.stderr).toBe(0);
  const file = join(dir, 'credentials.json');
  expect((await stat(file)).mode & 0o777).toBe(0o600);
  return JSON.parse(await readFile(file, 'utf8')) as Record<string, string>;
}

const keys = (entries: Record<string, string>) => Object.keys(entries).sort();

describe.sequential('parallel writers of the credential file (0600 fallback)', () => {
  it(`four accounts stored at once (two users' tokens, an echo key, a client-credentials protocol sign-in) are all there, ${ROUNDS} rounds`, async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const entries = await round([withToken('mona'), withToken('hubot'), echoKeySet, clientCredentials]);
      expect(keys(entries), `round ${i + 1}`).toEqual(
        expect.arrayContaining([`hosting:${host}:mona`, `hosting:${host}:hubot`, `echo:apikey:${host}`, `protocol:${info.protocol.serverUrl}`]),
      );
      expect(JSON.parse(entries[`hosting:${host}:hubot`]!).login).toBe('hubot');
    }
  }, 300_000);

  it(`the protocol registration store: a browser sign-in's client registration and tokens survive three other writers, ${ROUNDS} rounds`, async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const entries = await round([protocolBrowserLogin, withToken('mona'), withToken('hubot'), echoKeySet]);
      const names = keys(entries);
      expect(names, `round ${i + 1}`).toEqual(expect.arrayContaining([`hosting:${host}:mona`, `hosting:${host}:hubot`, `echo:apikey:${host}`]));
      expect(
        names.filter((n) => n.startsWith('protocol-client:')),
        `round ${i + 1}`,
      ).toHaveLength(1);
      expect(names, `round ${i + 1}`).toContain(`protocol:${info.protocol.serverUrl}`);
    }
  }, 300_000);

  it(`the health token store: a health sign-in's token survives three other writers, ${ROUNDS} rounds`, async () => {
    const authHost = new URL(emulatorProfile['health.authUrl']!).host;
    for (let i = 0; i < ROUNDS; i++) {
      const entries = await round([healthLogin, withToken('mona'), withToken('hubot'), echoKeySet]);
      expect(keys(entries), `round ${i + 1}`).toEqual(
        expect.arrayContaining([`health:${authHost}`, `hosting:${host}:mona`, `hosting:${host}:hubot`, `echo:apikey:${host}`]),
      );
    }
  }, 300_000);
});

/** Runs `steps` (sh) in a private D-Bus session with an unlocked gnome-keyring; `$LY` is the CLI. */
async function inKeyringSession(dir: string, steps: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const home = join(dir, 'home');
  const script = [
    'mkdir -p "$HOME"',
    'printf %s "$KEYRING_PASSWORD" | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 || exit 97',
    `LY="${process.execPath} ${BIN}"`,
    steps,
  ].join('\n');
  const env = cleanEnv({
    LANYARD_CONFIG_DIR: dir,
    LANYARD_KEYCHAIN: undefined,
    HOME: home,
    XDG_DATA_HOME: join(home, 'data'),
    XDG_RUNTIME_DIR: home,
    KEYRING_PASSWORD: 'parallel-writers-keyring',
  });
  // Not spawnSync: this process's event loop keeps serving the test.
  const child = spawn('dbus-run-session', ['--', 'sh', '-c', script], { env, cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  return collect(child);
}

describe.sequential('parallel writers of the OS keychain (real gnome-keyring)', () => {
  it(`four accounts stored at once are all in the keychain, none in a file, ${ROUNDS} rounds`, async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const dir = await freshDir();
      const input = { mona: await hostingToken('mona'), hubot: await hostingToken('hubot'), echo: `${await echoKey()}\n`, secret: 'ctx-service-secret\n' };
      for (const [name, value] of Object.entries(input)) await writeFile(join(dir, `${name}.in`), value, { mode: 0o600 });
      const at = (name: string) => q(join(dir, `${name}.in`));
      const r = await inKeyringSession(
        dir,
        [
          `$LY auth token --with-token < ${at('mona')} & a=$!`,
          `$LY auth token --with-token < ${at('hubot')} & b=$!`,
          `$LY echo key set < ${at('echo')} & c=$!`,
          `$LY auth login --server ${q(info.protocol.serverUrl)} --client-id ctx-service --client-credentials < ${at('secret')} & d=$!`,
          'wait $a; ra=$?; wait $b; rb=$?; wait $c; rc=$?; wait $d; rd=$?',
          'echo "RC=$ra$rb$rc$rd"',
          LIST_KEYCHAIN,
        ].join('\n'),
      );
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout, r.stderr).toContain('RC=0000');
      const names = JSON.parse(/^KEYCHAIN=(.*)$/m.exec(r.stdout)?.[1] ?? 'null') as string[] | null;
      expect(names, `round ${i + 1}: ${r.stdout}`).toEqual(
        expect.arrayContaining([`hosting:${host}:mona`, `hosting:${host}:hubot`, `echo:apikey:${host}`, `protocol:${info.protocol.serverUrl}`]),
      );
      expect(r.stderr).not.toMatch(/keychain is unavailable/);
      await expect(stat(join(dir, 'credentials.json'))).rejects.toThrow(/ENOENT/);
    }
  }, 300_000);
});

/** Settings and values for parallel `config set` (every one valid). */
const SETTINGS: Record<string, string> = {
  'hosting.webUrl': 'https://code.example.com',
  'hosting.apiUrl': 'https://code.example.com/api/v3',
  'hosting.clientId': 'client-a',
  'echo.baseUrl': 'https://echo.example.com',
  'echo.audience': 'echo.example.com',
  'echo.idpClientId': 'idp-client',
  'echo.appPlatformProject': 'project-a',
  'mailbox.baseUrl': 'https://mail.example.com',
  'mailbox.domain': 'example.com',
  'mailbox.user': 'alice',
  'health.clientId': 'health-client',
  'protocol.serverUrl': 'https://ctx.example.com/mcp',
};

describe.sequential('parallel writers of the config file', () => {
  it(`${Object.keys(SETTINGS).length} \`config set\` of different keys at once under umask 000: no key lost, valid JSON, file 0600 and directory 0700, ${ROUNDS} rounds`, async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const parent = await freshDir(false);
      const dir = join(parent, 'config'); // created by the writers themselves
      const shells = await Promise.all(
        Object.entries(SETTINGS).map(
          ([k, v]) =>
            new Promise<number | null>((resolve) => {
              const child = spawn('sh', ['-c', 'umask 000; exec "$@"', 'sh', process.execPath, BIN, 'config', 'set', k, v, '--profile', 'work'], {
                env: cleanEnv({ LANYARD_CONFIG_DIR: dir }),
                stdio: ['ignore', 'ignore', 'pipe'],
              });
              child.on('close', resolve);
            }),
        ),
      );
      expect(shells, `round ${i + 1}`).toEqual(Object.keys(SETTINGS).map(() => 0));
      const file = join(dir, 'config.json');
      const config = JSON.parse(await readFile(file, 'utf8')) as { activeProfile?: string; profiles: Record<string, Record<string, string>> };
      expect(config.profiles.work, `round ${i + 1}`).toEqual(SETTINGS);
      expect(config.activeProfile).toBe('work');
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
    }
  }, 300_000);
});
