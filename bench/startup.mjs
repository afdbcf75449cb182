#!/usr/bin/env node
// Start-up benchmark: `lanyard --version`, `--help` and `ratelimit status --json`
// (against an in-process emulator) versus `node -e 0`. Runs are interleaved;
// prints medians, ratios and the machine. Usage: npm run bench:startup
//   BENCH_RUNS=N (default 21)   --json (machine-readable output)
import { spawn, spawnSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem, type as osType, release } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'lanyard.js');
const runs = Number(process.env.BENCH_RUNS ?? 21);
const asJson = process.argv.includes('--json');

const configDir = mkdtempSync(join(tmpdir(), 'lanyard-bench-'));
const env = { ...process.env, LANYARD_CONFIG_DIR: configDir, LANYARD_KEYCHAIN: 'off', NO_COLOR: '1' };
for (const k of Object.keys(env)) if (k.startsWith('LANYARD_') && !['LANYARD_CONFIG_DIR', 'LANYARD_KEYCHAIN'].includes(k)) delete env[k];
// The emulator runs in its own process: the measured runs block this one.
const emulator = spawn(process.execPath, [bin, 'emulator', 'start', '--port', '0', '-q', '--no-profile'], { env, stdio: ['ignore', 'pipe', 'ignore'] });
const first = await new Promise((resolve, reject) => {
  createInterface({ input: emulator.stdout }).once('line', resolve);
  emulator.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
});
const emuUrl = /^Emulator listening on (\S+)$/.exec(first)?.[1];
if (!emuUrl) throw new Error(`unexpected emulator output: ${first}`);
spawnSync(process.execPath, [bin, '--profile', 'bench', 'config', 'set', 'hosting.apiUrl', `${emuUrl}/api/v3`], { env });

const cases = [
  { name: 'node -e 0', args: ['-e', '0'] },
  { name: 'lanyard --version', args: [bin, '--version'] },
  { name: 'lanyard --help', args: [bin, '--help'] },
  { name: 'lanyard ratelimit status --json', args: [bin, '--profile', 'bench', 'ratelimit', 'status', '--json'] },
];

function once(args) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const times = cases.map(() => []);
for (const c of cases) once(c.args); // warm-up (compile cache, page cache)
for (let i = 0; i < runs; i++) cases.forEach((c, j) => times[j].push(once(c.args)));
emulator.kill('SIGTERM');
await new Promise((r) => emulator.once('exit', r));
rmSync(configDir, { recursive: true, force: true });

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const base = median(times[0]);
const results = cases.map((c, j) => ({
  command: c.name,
  medianMs: Math.round(median(times[j]) * 10) / 10,
  minMs: Math.round(Math.min(...times[j]) * 10) / 10,
  ratio: Math.round((median(times[j]) / base) * 100) / 100,
}));
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
  process.stdout.write(`| command | median ms | min ms | ratio to node -e 0 |\n|---|---:|---:|---:|\n`);
  for (const r of results) process.stdout.write(`| \`${r.command}\` | ${r.medianMs} | ${r.minMs} | ${r.ratio.toFixed(2)}x |\n`);
  process.stdout.write(`\n${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}, Node ${machine.node}, ${runs} runs each (interleaved), load average ${machine.loadAverage.join(' ')}\n`);
  const v = results[1].ratio;
  process.stdout.write(`--version target <= 1.15x: ${v <= 1.15 ? 'met' : 'NOT met'} (${v.toFixed(2)}x)\n`);
}
