/**
 * End-to-end harness: spawns the built CLI (`bin/lanyard.js`) as a real
 * process against the emulator on 127.0.0.1 (the built emulator module in the
 * test's process, or `lanyard emulator start` in its own), each test world
 * with its own config directory and no keychain by default.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin', 'lanyard.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  signal: NodeJS.Signals | null;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string | Buffer;
  timeoutMs?: number;
  /** The working directory of the CLI (default: this process's). */
  cwd?: string;
  /** Called with the child once spawned (to send signals, read streams). */
  onSpawn?: (child: ChildProcess) => void;
}

/**
 * Variables of the machine a test's process must not inherit: the
 * developer's own Lanyard settings, and the machine's extra CA bundle
 * (NODE_EXTRA_CA_CERTS: the CLI's requests here go to loopback; a test of
 * trust sets its own CA, and must not pass because the machine trusts more).
 * Node 20 reads and parses that bundle when every process starts (Node 22
 * and later when TLS first needs it): with the system bundle set, as on this
 * project's machines, `node -e 0` cost 77 ms of CPU instead of 26 (2026-11-28).
 */
const INHERITED_NOT = (k: string): boolean =>
  k.startsWith('LANYARD_') || ['WORKFLOW_TOKEN', 'BROWSER', 'NODE_EXTRA_CA_CERTS', 'SSH_CONNECTION', 'SSH_TTY'].includes(k);

/** Environment with nothing of the developer's own Lanyard settings (see INHERITED_NOT) plus `extra`. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || INHERITED_NOT(k)) continue;
    env[k] = v;
  }
  env.NO_COLOR = '1';
  env.LANYARD_KEYCHAIN = 'off';
  env.LANYARD_BROWSER = 'true'; // a browser command that does nothing
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** git with no prompt and nothing of the user's own config: HOME and the global config under `dir` (`dir/gitconfig`). */
export function isolatedGitEnv(dir: string): Record<string, string> {
  return { HOME: dir, GIT_CONFIG_GLOBAL: join(dir, 'gitconfig'), GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '', SSH_ASKPASS: '' };
}

/** A shell-quoted word. */
export const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * A shell command that prints the account names of the keychain's service
 * `lanyard` as `KEYCHAIN=[…]`, read straight through the keyring package (run
 * it inside the D-Bus session of the keyring under test).
 */
export const LIST_KEYCHAIN = `${process.execPath} -e ${shellQuote("import('@napi-rs/keyring/keytar.js').then(async (m) => { const k = m.default ?? m; console.log('KEYCHAIN=' + JSON.stringify((await k.findCredentials('lanyard')).map((c) => c.account).sort())); })")}`;

/**
 * Runs shell `steps` inside a private D-Bus session with an unlocked
 * gnome-keyring (Secret Service) keeping its files under env.HOME; `$LY`
 * runs the CLI with `lyArgs`. `noCollection`: the daemon started without a
 * login collection (no password given), as on a headless machine: it answers,
 * but refuses to store a secret.
 */
export function inSecretService(
  steps: string,
  env: Record<string, string> & { HOME: string },
  lyArgs = '',
  o: { noCollection?: boolean } = {},
): { status: number | null; stdout: string; stderr: string } {
  const script = [
    o.noCollection
      ? 'gnome-keyring-daemon --start --components=secrets >/dev/null 2>&1 || exit 97'
      : 'printf %s "$KEYRING_PASSWORD" | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 || exit 97',
    `LY="${process.execPath} ${BIN}${lyArgs ? ` ${lyArgs}` : ''}"`,
    steps,
  ].join('\n');
  const full = cleanEnv({
    ...env,
    LANYARD_KEYCHAIN: undefined,
    XDG_DATA_HOME: join(env.HOME, 'data'),
    XDG_RUNTIME_DIR: env.HOME,
    KEYRING_PASSWORD: 'test-keyring-password',
  });
  const r = spawnSync('dbus-run-session', ['--', 'sh', '-c', script], { env: full, encoding: 'utf8', timeout: 60_000, cwd: ROOT });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Waits for a spawned child to end, collecting what it printed (for a child this process must keep serving meanwhile). */
export function collect(child: ChildProcess): Promise<{ status: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

/** The JSON event lines (CI events) of a run's stderr. */
export const eventLines = (stderr: string): Array<Record<string, unknown>> =>
  stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

/** An onSpawn that sends SIGINT (Ctrl-C) once the child's stderr shows the event `name`; `seen()` is that event. */
export function interruptOnEvent(name: string): { onSpawn: (child: ChildProcess) => void; seen: () => Record<string, unknown> | undefined } {
  let seen: Record<string, unknown> | undefined;
  return {
    seen: () => seen,
    onSpawn: (child) => {
      let err = '';
      child.stderr!.on('data', (c: Buffer) => {
        err += c.toString();
        if (!seen && err.includes(`"${name}"`)) {
          seen = eventLines(err).find((e) => e.event === name);
          child.kill('SIGINT');
        }
      });
    },
  };
}

export function runCli(args: string[], o: RunOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cleanEnv(o.env), stdio: ['pipe', 'pipe', 'pipe'], ...(o.cwd ? { cwd: o.cwd } : {}) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, signal });
    });
    o.onSpawn?.(child);
    if (o.input !== undefined) child.stdin.end(o.input);
    else child.stdin.end();
  });
}

export interface World {
  /** Emulator base URL. */
  url: string;
  configDir: string;
  env: Record<string, string>;
  /** Runs the CLI in this world (profile "emulator" is registered, not active unless given). */
  run(args: string[], o?: RunOptions): Promise<CliResult>;
  /** POST /_emulator/<path> with a JSON body. */
  admin(path: string, body?: unknown, method?: string): Promise<unknown>;
  stop(): Promise<void>;
}

/** A `lanyard emulator start` run by hand (see startCliEmulator). */
export interface CliEmulator {
  /** Its first stdout line (`Emulator listening on …`). */
  first: string;
  /** Its stderr so far. */
  stderr(): string;
  /** Sends `signal`; resolves with the exit code, or the signal's name when the process died of one. */
  stop(signal: NodeJS.Signals): Promise<number | string | null>;
}

/**
 * Starts `lanyard emulator start ARGS` (this checkout's CLI, or `bin`, an
 * installed one) in a clean environment plus `env`; resolves after its first
 * line, once stderr also shows `readyOn` (default: the console's address,
 * the last line the command prints before serving, with or without a
 * profile; waited for at most 2 s).
 */
export async function startCliEmulator(
  args: string[],
  env: Record<string, string | undefined>,
  o: { bin?: string; readyOn?: RegExp } = {},
): Promise<CliEmulator> {
  const [cmd, pre] = o.bin ? [o.bin, []] : [process.execPath, [BIN]];
  const child = spawn(cmd, [...pre, 'emulator', 'start', ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (c) => reject(new Error(`emulator exited ${c}: ${stderr}`)));
  });
  const ready = o.readyOn ?? /^Console: /m;
  for (let i = 0; i < 100 && !ready.test(stderr); i++) await new Promise((r) => setTimeout(r, 20));
  return {
    first,
    stderr: () => stderr,
    stop: (signal) =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode ?? child.signalCode);
        child.once('exit', (code, sig) => resolve(code ?? sig));
        child.kill(signal);
      }),
  };
}

export interface WorldOptions {
  /** The CLI's environment in this world (beside LANYARD_CONFIG_DIR). */
  env?: Record<string, string>;
  /** Options of `lanyard emulator start`: --tls-cert/--tls-key, --allow-host, --public-host, --data-dir. */
  emulatorArgs?: string[];
  /**
   * Run the emulator as `lanyard emulator start` in its own process (for a
   * file whose subject is that process: its exit, its data directory across
   * restarts). Default: the same emulator (dist/lib/emulator-server.js, the
   * module that command runs) in a worker thread of this process, serving
   * over real HTTP; the profile "emulator" written as the command writes it.
   */
  process?: boolean;
}

/**
 * A world: a config directory with the profile "emulator" pointing at a
 * running emulator, and the built CLI run in it. The emulator runs in a thread
 * of this process by default (a spawned `emulator start` cost every file
 * Node's start-up and the CLI's loading; the CLI runs stay spawned).
 */
export async function startWorld(options: WorldOptions = {}): Promise<World> {
  const configDir = await mkdtemp(join(tmpdir(), 'lanyard-e2e-'));
  const env = { LANYARD_CONFIG_DIR: configDir, ...options.env };
  const emulator = options.process ? await spawnedEmulator(env, options.emulatorArgs ?? []) : await inProcessEmulator(configDir, options.emulatorArgs ?? []);
  const { url } = emulator;
  return {
    url,
    configDir,
    env,
    run: (args, o = {}) => runCli(args, { ...o, env: { ...env, ...o.env } }),
    async admin(path, body, method = 'POST') {
      const res = await fetch(`${url}/_emulator/${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`admin ${path}: ${res.status} ${text}`);
      return text ? JSON.parse(text) : undefined;
    },
    async stop() {
      await emulator.stop();
      await rm(configDir, { recursive: true, force: true });
    },
  };
}

interface WorldEmulator {
  url: string;
  stop(): Promise<void>;
}

/** `lanyard emulator start --port 0 -q ARGS` in the world's environment, once it has written the profile. */
async function spawnedEmulator(env: Record<string, string>, args: string[]): Promise<WorldEmulator> {
  const child = spawn(process.execPath, [BIN, 'emulator', 'start', '--port', '0', '-q', ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout });
    const timer = setTimeout(() => reject(new Error(`emulator did not start: ${stderr}`)), 15_000);
    rl.once('line', (line) => {
      clearTimeout(timer);
      const m = /^Emulator listening on (\S+)$/.exec(line);
      if (m) resolve(m[1]!);
      else reject(new Error(`unexpected first line: ${line}`));
    });
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}: ${stderr}`)));
  });
  // The profile is written before the first line (run.ts): nothing to wait for.
  return {
    url,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The options of `lanyard emulator start` a world may pass, as the emulator module takes them. */
function emulatorOptions(args: string[]): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  const allowed: string[] = [];
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if (value === undefined) throw new Error(`startWorld: ${flag} needs a value`);
    if (flag === '--tls-cert') o.tlsCertFile = value;
    else if (flag === '--tls-key') o.tlsKeyFile = value;
    else if (flag === '--data-dir') o.dataDir = value;
    else if (flag === '--public-host') o.publicHost = value.toLowerCase();
    else if (flag === '--allow-host') allowed.push(value);
    else throw new Error(`startWorld: ${flag} is not known in process; start the world with { process: true }`);
  }
  if (allowed.length) o.allowedHosts = allowed;
  return o;
}

/**
 * The emulator module in a worker thread of this process (world-emulator.mjs
 * says why a thread), and the profile "emulator" written into `configDir` as
 * `emulator start` writes it.
 */
async function inProcessEmulator(configDir: string, args: string[]): Promise<WorldEmulator> {
  const worker = new Worker(new URL('./world-emulator.mjs', import.meta.url), { workerData: { port: 0, host: '127.0.0.1', ...emulatorOptions(args) } });
  const started = await new Promise<{ url: string; profile: Record<string, string> }>((resolve, reject) => {
    worker.once('message', (m: { url: string; profile: Record<string, string> } | { error: string }) =>
      'error' in m ? reject(new Error(`emulator did not start: ${m.error}`)) : resolve(m),
    );
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`emulator thread exited with ${code}`)));
  });
  await writeFile(join(configDir, 'config.json'), JSON.stringify({ profiles: { emulator: started.profile } }, null, '\t'), { mode: 0o600 });
  return {
    url: started.url,
    async stop() {
      const stopped = new Promise((resolve) => {
        worker.once('message', resolve);
        worker.once('exit', resolve);
      });
      worker.postMessage('stop');
      await stopped;
      await worker.terminate();
    },
  };
}

/** A self-signed certificate for 127.0.0.1 (openssl, valid one day): `cert.pem` and `key.pem` in `dir`. */
export function selfSignedCert(dir: string): { cert: string; key: string } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  const args = ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1'];
  execFileSync('openssl', [...args, '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  return { cert, key };
}

/** The emulator answers the next request under `path` with `status` and `Retry-After: retryAfter` (one status fault). */
export function refuseNext(world: World, o: { status: number; retryAfter: string; path: string; method?: string }): Promise<CliResult> {
  const method = o.method ? ['--method', o.method] : [];
  const args = ['--type', 'status', '--status', String(o.status), '--retry-after', o.retryAfter, '--path', o.path, '--count', '1', ...method];
  return world.run(['--profile', 'emulator', 'emulator', 'fault', 'add', ...args]);
}
