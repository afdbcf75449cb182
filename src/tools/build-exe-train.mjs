// The V8 code caches the linux-x64 executable carries (src/cli/sea/main.ts
// hands them to bin/lanyard.js when the user's cache directory has none).
//
// bin/lanyard.js keeps a code cache of dist/cli.cjs per command in the
// user's cache directory, written after the command's first run: that first
// run parses and compiles what it runs (≈ 30 ms of CPU for `auth status`,
// 1.5x a run with its cache). A CI job in a fresh container makes every
// command a first run. So the build runs the commands scripts and CI jobs run
// most (TRAINING) with the npm layout (bin/lanyard.js, dist/) on the Node the
// executable is made of, against the emulator on loopback, in a scratch home
// with the keychain off, and the executable carries the caches those runs
// wrote. A cache is valid only for the V8 build and flags that made it: only
// the linux-x64 executable (whose Node runs here) carries them; the other two
// write their own at run time, as before. Each cache is checked here to be
// accepted by that Node's V8 before it is carried.
import { spawn } from 'node:child_process';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** The longest a training run may take (each takes a fraction of a second). */
const RUN_LIMIT_MS = 60_000;

/** The emulator's own personal token (its default account). */
const TOKEN = 'lyp_emulator_default_token_0000000000000001';

/**
 * The commands whose caches are carried (each ≈ 0.4–0.6 MB, stored as they
 * are: the executable's size is bounded), in the order run, with the exit
 * code each must end with. `main` (the root cache, from an unknown word) is
 * what every other command starts from: its own cache is then written on its
 * first run. The emulator that answers them is `emulator start`'s run.
 */
const TRAINING = (url, info, node) => [
  { args: ['--profile', 't', 'config', 'set', 'hosting.apiUrl', `${url}/api/v3`] },
  { args: ['--profile', 't', 'auth', 'token', '--with-token'], input: TOKEN },
  { args: ['--profile', 't', 'auth', 'status', '--json'] },
  { args: ['--profile', 't', 'api', '/user'] },
  { args: ['--profile', 't', 'ratelimit', 'status', '--json'] },
  { args: ['--profile', 't', 'exec', '--', node, '-e', '0'] },
  // The profile `emulator start` made; a CI gate's token from the environment.
  { args: ['--profile', 'emulator', 'health', 'check', '--json'], env: { LANYARD_HEALTH_TOKEN: info.health.token } },
  { args: ['no-such-command'], code: 2 },
];

/** `child`, in `children` (the build kills those when it fails) until it exits. */
function tracked(children, child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** A script (`node -e`, argv: the bundle, then caches) exiting 1 when V8 rejects a cache of the bundle. */
const ACCEPTED = `const { readFileSync } = require('node:fs');
const { Script } = require('node:vm');
const [file, ...caches] = process.argv.slice(1);
const source = readFileSync(file, 'latin1');
for (const c of caches)
  if (new Script(source, { filename: file, cachedData: readFileSync(c) }).cachedDataRejected) {
    process.stderr.write(c + '\\n');
    process.exitCode = 1;
  }`;

/** Runs `script` (bin/lanyard.js, or -e and its text) on `node` with `args`, resolving with its exit code and stderr. */
function runCli(node, script, args, env, input, children) {
  return new Promise((resolve, reject) => {
    // Bounded: a run that hangs fails the build (killed: exit SIGTERM) instead of holding it.
    const child = tracked(children, spawn(node, [script, ...args], { env, stdio: ['pipe', 'ignore', 'pipe'], timeout: RUN_LIMIT_MS }));
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve({ code: code ?? signal, stderr }));
    child.stdin.end(input ?? '');
  });
}

/** The emulator's URL once it listens and has written the `emulator` profile (its stderr says so). */
function emulatorReady(emulator, stopped) {
  let stderr = '';
  return new Promise((resolve, reject) => {
    let url;
    const check = () => url && /Profile "emulator"/.test(stderr) && resolve(url);
    createInterface({ input: emulator.stdout }).once('line', (line) => {
      url = /^Emulator listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(line)?.[1];
      if (url) check();
      else reject(new Error(`the training emulator said: ${line}`));
    });
    emulator.stderr.on('data', (c) => {
      stderr += c;
      check();
    });
    stopped.then((code) => reject(new Error(`the training emulator exited ${code}: ${stderr.trim()}`)));
  });
}

/**
 * Trains the caches with `node` in `work`/train and returns them as
 * { key: file } (`auth.status` → …/auth.status.bin). `root`: the package
 * root; `children`: the build's set of running children.
 */
export async function trainCodeCaches(node, root, work, children) {
  const home = join(work, 'train');
  await rm(home, { recursive: true, force: true });
  await mkdir(home, { recursive: true });
  const bin = join(root, 'bin', 'lanyard.js');
  // Nothing of the builder's environment (profiles, tokens, proxies, LANYARD_*) reaches the runs.
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    LANYARD_CONFIG_DIR: join(home, 'config'),
    LANYARD_CACHE_DIR: join(home, 'cache'),
    LANYARD_KEYCHAIN: 'off',
    NO_COLOR: '1',
  };
  const emulator = tracked(children, spawn(node, [bin, 'emulator', 'start', '--port', '0', '-q'], { env, stdio: ['ignore', 'pipe', 'pipe'] }));
  const stopped = new Promise((resolve) => emulator.once('exit', (code, signal) => resolve(code ?? signal)));
  const limit = setTimeout(() => emulator.kill('SIGKILL'), 5 * RUN_LIMIT_MS);
  try {
    const url = await emulatorReady(emulator, stopped);
    const info = await (await fetch(`${url}/_emulator/info`)).json();
    for (const step of TRAINING(url, info, node)) {
      const r = await runCli(node, bin, step.args, { ...env, ...step.env }, step.input, children);
      if (r.code !== (step.code ?? 0)) throw new Error(`training run \`lanyard ${step.args.join(' ')}\` exited ${r.code}: ${r.stderr.trim()}`);
    }
    // Its own cache is written as it ends, as any command's.
    emulator.kill('SIGTERM');
    const code = await stopped;
    if (code !== 0) throw new Error(`the training emulator ended with ${code}`);
  } finally {
    clearTimeout(limit);
    emulator.kill('SIGKILL');
  }
  const base = join(home, 'cache', 'compile-cache');
  const dirs = await readdir(base);
  if (dirs.length !== 1) throw new Error(`training wrote caches for ${dirs.length} builds`);
  const dir = join(base, dirs[0]);
  const files = {};
  for (const name of (await readdir(dir)).filter((n) => n.endsWith('.bin')).sort()) files[name.slice(0, -'.bin'.length)] = join(dir, name);
  // Accepted by the V8 of `node` (the executable's own: the machine's Node would reject them all).
  const check = await runCli(node, '-e', [ACCEPTED, join(root, 'dist', 'cli.cjs'), ...Object.values(files)], env, '', children);
  if (check.code !== 0) throw new Error(`V8 rejects a trained cache: ${check.stderr.trim()}`);
  return files;
}
