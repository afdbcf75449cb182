#!/usr/bin/env node
// Start-up benchmark: `lanyard --version`, `--help`, `auth status` (credential
// store read + one GET /user; target with a real Secret Service: 1.6x) and `ratelimit status --json` against an
// emulator in its own process, versus `node -e 0` of the same Node (the Node
// that runs this script: `path/to/node bench/startup.mjs` measures that one).
// And `lanyard api /user` over TLS against an emulator on port 443 of a
// loopback address, versus the code host's own CLI doing the same work,
// `gh api user` (Debian's gh, its token in its hosts file as Lanyard's is in
// its 0600 file; target 1.0x, aim 0.8x) - when gh is on PATH and port 443
// can be bound (root). Runs are interleaved; prints medians, ratios and the
// machine. `auth status` runs twice: with
// LANYARD_KEYCHAIN=off (0600 file) and, when gnome-keyring-daemon and
// dbus-run-session exist, against a real Secret Service (a private D-Bus
// session with an unlocked gnome-keyring; its own `node -e 0` baseline is
// measured inside that session). Usage: npm run bench:startup
//   BENCH_RUNS=N (default 21)   --json (machine-readable output)
//   BENCH_ONLY=REGEX: only the commands whose names match (with the baselines
//   they are timed against); e.g. BENCH_ONLY=api times gh and `api /user`.
//   BENCH_OTHER=DIR: also times another build (a checkout with dist/ built)
//   for the Secret Service and `api /user` rows, in the same rounds.
// The floors: bench/floor-auth-status.cjs and bench/floor-api-user.cjs are
// what a hand-written Node program needs for the same answers (the D-Bus read
// and GET /user; https.get of /user), timed in the same rounds, so a row says
// how much of the gap to its target is Lanyard's and how much Node's.
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem, type as osType, release } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const self = fileURLToPath(import.meta.url);
const bin = join(root, 'bin', 'lanyard.js');
const runs = Number(process.env.BENCH_RUNS ?? 21);
const otherBin = process.env.BENCH_OTHER ? join(process.env.BENCH_OTHER, 'bin', 'lanyard.js') : undefined;
const floorAuth = join(root, 'bench', 'floor-auth-status.cjs');
const floorApi = join(root, 'bench', 'floor-api-user.cjs');
const asJson = process.argv.includes('--json');
/** The emulator's default personal access token (user mona). */
const TOKEN = 'lyp_emulator_default_token_0000000000000001';

/**
 * Runs a command through a small python3 helper that starts it and reaps it
 * with wait4(), so the run's CPU time (user + system, of that process alone)
 * comes with its wall time: on a loaded machine the wall time mostly measures
 * the wait for a core, the CPU time much less so. Without python3, CPU is NaN.
 */
const WAIT4 = `import os, sys, time, threading
tty = sys.argv[1] == '--pty'
argv = sys.argv[2:] if tty else sys.argv[1:]
out = os.open(os.devnull, os.O_WRONLY)
if tty:
    # A pseudo-terminal of 100 columns as stdout, drained as a terminal would be.
    import fcntl, struct, termios
    master, out = os.openpty()
    fcntl.ioctl(out, termios.TIOCSWINSZ, struct.pack('HHHH', 30, 100, 0, 0))
    def drain():
        try:
            while os.read(master, 65536):
                pass
        except OSError:
            pass
    threading.Thread(target=drain, daemon=True).start()
t0 = time.perf_counter()
pid = os.posix_spawnp(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, out, 1)])
_, status, ru = os.wait4(pid, 0)
print((time.perf_counter() - t0) * 1000, (ru.ru_utime + ru.ru_stime) * 1000, os.waitstatus_to_exitcode(status))`;
const havePython = spawnSync('python3', ['-c', 'import os; os.posix_spawnp; os.waitstatus_to_exitcode']).status === 0;

function once(args, env, cmd = process.execPath, pty = false) {
  if (havePython) {
    const r = spawnSync('python3', ['-c', WAIT4, ...(pty ? ['--pty'] : []), cmd, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
    const [wall, cpu, status] = r.stdout.trim().split(' ').map(Number);
    if (r.status !== 0 || status !== 0) throw new Error(`${args.join(' ')} exited ${status ?? r.status}: ${r.stderr}`);
    return { wall, cpu };
  }
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { wall, cpu: Number.NaN };
}

/** Interleaved runs of every case (after one warm-up each); wall[j], cpu[j] = case j's runs. */
function measure(cases, env) {
  const wall = cases.map(() => []);
  const cpu = cases.map(() => []);
  for (const c of cases) once(c.args, c.env ?? env, c.cmd, c.pty); // warm-up (compile cache, page cache)
  for (let i = 0; i < runs; i++)
    cases.forEach((c, j) => {
      const r = once(c.args, c.env ?? env, c.cmd, c.pty);
      wall[j].push(r.wall);
      cpu[j].push(r.cpu);
    });
  return { wall, cpu };
}

const GH_LANYARD = 'lanyard api /user (TLS)';
const authStatus = { name: 'lanyard auth status', args: [bin, '--profile', 'bench', 'auth', 'status', '--json'] };

if (process.argv.includes('--keychain-inner')) {
  // Inside dbus-run-session with an unlocked keyring: store the token in the
  // keychain, then time `node -e 0` and `auth status` here.
  const env = { ...process.env };
  const r = spawnSync(process.execPath, [bin, '--profile', 'bench', 'auth', 'token', '--with-token'], { env, input: TOKEN, encoding: 'utf8' });
  if (r.status !== 0 || !/OS keychain/.test(r.stderr)) throw new Error(`storing the token in the keychain failed: ${r.stderr}`);
  const kcases = [{ name: 'node -e 0', args: ['-e', '0'] }, authStatus, { name: 'floor', args: [floorAuth, 'bench'] }];
  if (otherBin) kcases.push({ name: 'other', args: [otherBin, ...authStatus.args.slice(1)] });
  process.stdout.write(JSON.stringify(measure(kcases, env)) + '\n');
  process.exit(0);
}

const configDir = mkdtempSync(join(tmpdir(), 'lanyard-bench-'));
// The code cache in a directory of the run's own: a shared one may be pruned
// by another build's first run in the middle of the measurement.
const env = { ...process.env, LANYARD_CONFIG_DIR: configDir, LANYARD_CACHE_DIR: join(configDir, 'cache'), LANYARD_KEYCHAIN: 'off', NO_COLOR: '1' };
for (const k of Object.keys(env)) if (k.startsWith('LANYARD_') && !['LANYARD_CONFIG_DIR', 'LANYARD_CACHE_DIR', 'LANYARD_KEYCHAIN'].includes(k)) delete env[k];
for (const k of ['WORKFLOW_TOKEN']) delete env[k];
// The emulator runs in its own process: the measured runs block this one.
const emulator = spawn(process.execPath, [bin, 'emulator', 'start', '--port', '0', '-q', '--no-profile'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
const first = await new Promise((resolve, reject) => {
  createInterface({ input: emulator.stdout }).once('line', resolve);
  emulator.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
});
const emuUrl = /^Emulator listening on (\S+)$/.exec(first)?.[1];
if (!emuUrl) throw new Error(`unexpected emulator output: ${first}`);
spawnSync(process.execPath, [bin, '--profile', 'bench', 'config', 'set', 'hosting.apiUrl', `${emuUrl}/api/v3`], { env });
const stored = spawnSync(process.execPath, [bin, '--profile', 'bench', 'auth', 'token', '--with-token'], { env, input: TOKEN, encoding: 'utf8' });
if (stored.status !== 0) throw new Error(`auth token failed: ${stored.stderr}`);

const gh = await startGhCases();

const cases = [
  { name: 'node -e 0', args: ['-e', '0'] },
  { name: 'lanyard --version', args: [bin, '--version'] },
  { name: 'lanyard --help', args: [bin, '--help'] },
  // On a terminal (100 columns): commander's wrapping at its width, against `node -e 0` on the same kind of terminal.
  ...(havePython
    ? [
        { name: 'node -e 0 (terminal)', args: ['-e', '0'], pty: true },
        { name: 'lanyard --help (terminal)', args: [bin, '--help'], pty: true, against: 'node -e 0 (terminal)' },
      ]
    : []),
  // The CLI and commander (the root help above is the build's pre-rendered text; a terminal gets this path).
  { name: 'lanyard auth --help', args: [bin, 'auth', '--help'] },
  { ...authStatus, name: 'lanyard auth status (LANYARD_KEYCHAIN=off)' },
  { name: 'lanyard ratelimit status --json', args: [bin, '--profile', 'bench', 'ratelimit', 'status', '--json'] },
  ...(gh?.cases ?? []),
];

// BENCH_ONLY: the matching cases, `node -e 0` and whatever a kept case is timed against.
const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;
if (only) {
  const kept = new Set(cases.filter((c) => only.test(c.name)).flatMap((c) => [c.name, c.against ?? 'node -e 0']));
  kept.add('node -e 0');
  cases.splice(0, cases.length, ...cases.filter((c) => kept.has(c.name)));
}

const times = measure(cases, env);

// The same `auth status` against a real Secret Service, if this machine has one to start.
let keychain;
const have = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
if (have('dbus-run-session') && have('gnome-keyring-daemon') && (!only || only.test(authStatus.name) || only.test('Secret Service'))) {
  const home = mkdtempSync(join(tmpdir(), 'lanyard-bench-keyring-'));
  const kenv = { ...env, HOME: home, XDG_DATA_HOME: join(home, 'data'), XDG_RUNTIME_DIR: home, KEYRING_PASSWORD: 'bench-keyring-password' };
  delete kenv.LANYARD_KEYCHAIN;
  const script = `printf %s "$KEYRING_PASSWORD" | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1 || exit 97
exec "${process.execPath}" "${self}" --keychain-inner`;
  const r = spawnSync('dbus-run-session', ['--', 'sh', '-c', script], { env: kenv, encoding: 'utf8', timeout: 30 * 60_000 });
  rmSync(home, { recursive: true, force: true });
  if (r.status === 0) keychain = JSON.parse(r.stdout.trim().split('\n').at(-1));
  else process.stderr.write(`(keychain run skipped: exit ${r.status}: ${r.stderr.trim().split('\n').at(-1)})\n`);
}
emulator.kill('SIGTERM');
await new Promise((r) => emulator.once('exit', r));
await gh?.stop();
rmSync(configDir, { recursive: true, force: true });

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
// Two ratios to `node -e 0`: of the medians, and the median of the ratios
// round by round (each run against the `node -e 0` of its own round, moments
// before it), which a machine whose speed drifts during the runs moves less.
// The targets are checked against the second.
const row = (name, xs, baseXs) => ({
  command: name,
  medianMs: Math.round(median(xs) * 10) / 10,
  minMs: Math.round(Math.min(...xs) * 10) / 10,
  ratio: Math.round((median(xs) / median(baseXs)) * 100) / 100,
  pairedRatio: Math.round(median(xs.map((x, i) => x / baseXs[i])) * 100) / 100,
});
const rowOf = (name, m, j, base) => ({
  ...row(name, m.wall[j], m.wall[base]),
  pairedCpuRatio: Math.round(median(m.cpu[j].map((x, i) => x / m.cpu[base][i])) * 100) / 100,
});
const results = cases.map((c, j) => rowOf(c.name, times, j, c.against === undefined ? 0 : cases.findIndex((x) => x.name === c.against)));
if (keychain) {
  results.push(rowOf('lanyard auth status (Secret Service keychain)*', keychain, 1, 0));
  results.push(rowOf('floor of auth status (Secret Service): D-Bus read + GET /user*', keychain, 2, 0));
  if (otherBin) results.push(rowOf('BENCH_OTHER: lanyard auth status (Secret Service keychain)*', keychain, 3, 0));
}
const machine = {
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  os: `${osType()} ${release()}`,
  node: process.version,
  loadAverage: loadavg().map((x) => Math.round(x * 100) / 100),
  runs,
};
if (asJson) {
  process.stdout.write(JSON.stringify({ machine, results }, null, 2) + '\n');
} else {
  process.stdout.write(
    `| command | median ms | min ms | against | ratio of medians | median of paired ratios | paired ratio of CPU time |\n|---|---:|---:|---|---:|---:|---:|\n`,
  );
  for (const [j, r] of results.entries())
    process.stdout.write(
      `| \`${r.command}\` | ${r.medianMs} | ${r.minMs} | \`${cases[j]?.against ?? (j >= cases.length ? 'node -e 0 (session)' : 'node -e 0')}\` | ${r.ratio.toFixed(2)}x | ${r.pairedRatio.toFixed(2)}x | ${r.pairedCpuRatio.toFixed(2)}x |\n`,
    );
  process.stdout.write(
    `\n${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}, Node ${machine.node}, ${runs} runs each (interleaved), load average ${machine.loadAverage.join(' ')}\n`,
  );
  if (keychain)
    process.stdout.write(
      `* inside a private D-Bus session with gnome-keyring; ratio to \`node -e 0\` timed in that session (median ${row('', keychain.wall[0], keychain.wall[0]).medianMs} ms)\n`,
    );
  const targets = [
    ['lanyard --version', 1.15],
    ['lanyard --help', 1.15],
    ...(havePython ? [['lanyard --help (terminal)', 1.15]] : []),
    ['lanyard ratelimit status --json', 1.6],
  ];
  if (keychain) targets.push(['lanyard auth status (Secret Service keychain)*', 1.6]);
  if (gh) targets.push([GH_LANYARD, 1.0]);
  // The floor each target row is timed beside (the same work without Lanyard): how much of the gap is Node's.
  const floors = {
    'lanyard auth status (Secret Service keychain)*': 'floor of auth status (Secret Service): D-Bus read + GET /user*',
    [GH_LANYARD]: 'floor of api /user (TLS): https.get',
  };
  for (const [name, max] of targets) {
    const r = results.find((x) => x.command === name);
    if (!r) continue; // left out by BENCH_ONLY
    const f = results.find((x) => x.command === floors[name]);
    const floor = f ? `; its floor ${f.pairedRatio.toFixed(2)}x paired, CPU time ${f.pairedCpuRatio.toFixed(2)}x` : '';
    process.stdout.write(
      `${name} target <= ${max}x: ${r.pairedRatio <= max ? 'met' : 'NOT met'} (${r.pairedRatio.toFixed(2)}x paired; ${r.ratio.toFixed(2)}x of medians; CPU time ${r.pairedCpuRatio.toFixed(2)}x paired${floor})\n`,
    );
  }
}

/**
 * `lanyard api /user` and `gh api user` over TLS against a second emulator on
 * port 443 of a spare loopback address (gh takes no port in a host name), each
 * with the token it stored itself (Lanyard's 0600 file, gh's hosts.yml) and
 * trusting the emulator's certificate (NODE_EXTRA_CA_CERTS; SSL_CERT_FILE for gh,
 * which is Go). Undefined when gh is missing or port 443 cannot be bound.
 */
async function startGhCases() {
  if (spawnSync('sh', ['-c', 'command -v gh']).status !== 0) return skipGh('gh is not on PATH');
  const home = mkdtempSync(join(tmpdir(), 'lanyard-bench-gh-'));
  const host = `127.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${2 + Math.floor(Math.random() * 250)}`;
  const tlsEmulator = spawn(
    process.execPath,
    [bin, 'emulator', 'start', '--tls', '--host', host, '--port', '443', '--data-dir', join(home, 'emulator'), '--no-profile', '-q'],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  tlsEmulator.stderr.on('data', (c) => (stderr += c));
  const line = await new Promise((resolve) => {
    createInterface({ input: tlsEmulator.stdout }).once('line', resolve);
    tlsEmulator.once('exit', () => resolve(undefined));
  });
  const stop = async () => {
    if (tlsEmulator.exitCode === null) {
      tlsEmulator.kill('SIGTERM');
      await new Promise((r) => tlsEmulator.once('exit', r));
    }
    rmSync(home, { recursive: true, force: true });
  };
  for (let i = 0; i < 100 && line && !/\.pem/.test(stderr); i++) await new Promise((r) => setTimeout(r, 20));
  const ca = /(\/\S+\.pem)/.exec(stderr)?.[1];
  if (!line || !ca) {
    await stop();
    return skipGh(`the TLS emulator on ${host}:443 did not start (root is needed for port 443): ${stderr.trim().split('\n').at(-1)}`);
  }
  const ghEnv = {
    PATH: process.env.PATH,
    HOME: home,
    GH_CONFIG_DIR: join(home, 'gh'),
    SSL_CERT_FILE: ca,
    GH_NO_UPDATE_NOTIFIER: '1',
    GH_PROMPT_DISABLED: '1',
    NO_COLOR: '1',
  };
  const login = spawnSync('gh', ['auth', 'login', '--hostname', host, '--with-token'], { env: ghEnv, input: `${TOKEN}\n`, encoding: 'utf8' });
  // What the emulator tells Node programs to set (LANYARD_CA_FILE works too).
  const lyEnv = { ...env, NODE_EXTRA_CA_CERTS: ca };
  spawnSync(process.execPath, [bin, '--profile', 'tls', 'config', 'set', 'hosting.apiUrl', `https://${host}/api/v3`], { env: lyEnv });
  const stored = spawnSync(process.execPath, [bin, '--profile', 'tls', 'auth', 'token', '--with-token'], { env: lyEnv, input: TOKEN, encoding: 'utf8' });
  if (login.status !== 0 || stored.status !== 0) {
    await stop();
    return skipGh(`signing in failed: ${login.stderr}${stored.stderr}`);
  }
  return {
    stop,
    cases: [
      { name: 'gh api user (TLS)', cmd: 'gh', args: ['api', 'user', '--hostname', host], env: ghEnv },
      { name: GH_LANYARD, args: [bin, '--profile', 'tls', 'api', '/user'], env: lyEnv, against: 'gh api user (TLS)' },
      // The floor: https.get of the same URL with the same token and trust, the body to stdout (no Lanyard).
      { name: 'floor of api /user (TLS): https.get', args: [floorApi, 'tls'], env: { ...lyEnv, FLOOR_TOKEN: TOKEN }, against: 'gh api user (TLS)' },
      ...(otherBin
        ? [{ name: `BENCH_OTHER: ${GH_LANYARD}`, args: [otherBin, '--profile', 'tls', 'api', '/user'], env: lyEnv, against: 'gh api user (TLS)' }]
        : []),
      // The same trusting the CA through Lanyard's own setting (one secure context per process, src/core/http/trust.ts).
      // Without the environment's NODE_EXTRA_CA_CERTS, as the row above replaces it: a machine that sets it to the
      // system bundle (Debian's 144 certificates) would add Node's parsing of those (≈ 7-9 ms) to this row alone.
      {
        name: 'lanyard api /user (TLS, LANYARD_CA_FILE)',
        args: [bin, '--profile', 'tls', 'api', '/user'],
        env: Object.fromEntries(Object.entries({ ...env, LANYARD_CA_FILE: ca }).filter(([k]) => k !== 'NODE_EXTRA_CA_CERTS')),
        against: 'gh api user (TLS)',
      },
    ],
  };
}

function skipGh(why) {
  process.stderr.write(`(gh comparison skipped: ${why})\n`);
  return undefined;
}
