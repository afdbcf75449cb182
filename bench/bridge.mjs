#!/usr/bin/env node
// The stdio bridge side by side with mcp-remote (run `npm run bench:bridge`; needs a build):
// the protocol SDK's stdio client, as a desktop host, spawns `lanyard protocol bridge URL`
// and `mcp-remote URL` in turn against the emulator's protocol server (served without a
// token, so neither signs in) and makes the same tool calls in a row through each. Per
// client: time per call (median, p95, slowest), the whole run, and the peak resident set of
// the bridge process (sampled from /proc every 25 calls, and at the end) and its growth from
// before the first call (the process started and the session made). Runs alternate between
// the two, so both meet the same machine; the medians over the runs are compared.
// Options: --calls N (default 500), --runs N (default 3), --concurrency N (bridges at once,
// default 1), --warmup N (calls before the growth is measured, default 0). BENCH_BRIDGE_BASELINE=
// path/to/other/bin/lanyard.js adds another build of Lanyard to the runs (a change measured).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startEmulator } from '../dist/lib/emulator.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const CALLS = arg('calls', 500);
const RUNS = arg('runs', 3);
const CONCURRENCY = arg('concurrency', 1);
const WARMUP = arg('warmup', 0);

const emu = await startEmulator();
const admin = (verb, body) =>
  fetch(`${emu.urls.admin}/${verb}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
await admin('protocol/configure', { open: true });
const url = emu.urls.protocol.server;
const home = await mkdtemp(join(tmpdir(), 'lanyard-bench-bridge-'));
const env = {
  ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
  PATH: process.env.PATH ?? '',
  HOME: home,
  LANYARD_CONFIG_DIR: join(home, 'lanyard'),
  LANYARD_KEYCHAIN: 'off',
  NO_COLOR: '1',
};

const CLIENTS = {
  lanyard: () => ({ command: process.execPath, args: [join(ROOT, 'bin', 'lanyard.js'), 'protocol', 'bridge', url] }),
  'mcp-remote': () => ({
    command: process.execPath,
    args: [join(ROOT, 'node_modules', 'mcp-remote', 'dist', 'proxy.js'), url, '--allow-http', '--transport', 'http-only'],
  }),
  // Another build of Lanyard side by side (BENCH_BRIDGE_BASELINE: its bin/lanyard.js), to measure a change.
  ...(process.env.BENCH_BRIDGE_BASELINE
    ? { baseline: () => ({ command: process.execPath, args: [process.env.BENCH_BRIDGE_BASELINE, 'protocol', 'bridge', url] }) }
    : {}),
};

async function rssOf(pid) {
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
  } catch {
    return 0;
  }
}

/** One bridge process, `CALLS` echo calls in a row; the times per call and its peak RSS. */
async function oneBridge(kind, tag) {
  const transport = new StdioClientTransport({ ...CLIENTS[kind](), env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (c) => (stderr += c));
  const client = new Client({ name: 'bench-host', version: '1.0.0' });
  await client.connect(transport);
  const pid = transport.pid;
  for (let i = 0; i < WARMUP; i++) await client.callTool({ name: 'echo', arguments: { text: `${tag} warm ${i}` } });
  let peak = await rssOf(pid);
  const start = peak;
  const times = [];
  const t0 = performance.now();
  for (let i = 0; i < CALLS; i++) {
    const t = performance.now();
    const r = await client.callTool({ name: 'echo', arguments: { text: `${tag} ${i}` } });
    times.push(performance.now() - t);
    if (!JSON.stringify(r.content).includes(`${tag} ${i}`)) throw new Error(`${kind}: wrong answer to call ${i}: ${JSON.stringify(r)}`);
    if (i % 25 === 24) peak = Math.max(peak, await rssOf(pid));
  }
  const total = performance.now() - t0;
  peak = Math.max(peak, await rssOf(pid));
  await client.close();
  if (!times.length) throw new Error(`${kind}: no call made (stderr: ${stderr.slice(0, 500)})`);
  return { times, total, peak, start };
}

const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const median = (xs) => quantile(xs, 0.5);
const results = Object.fromEntries(Object.keys(CLIENTS).map((k) => [k, []]));

try {
  for (let run = 0; run < RUNS; run++) {
    for (const kind of run % 2 ? Object.keys(CLIENTS).reverse() : Object.keys(CLIENTS)) {
      const all = await Promise.all(Array.from({ length: CONCURRENCY }, (_, b) => oneBridge(kind, `r${run}b${b}`)));
      for (const r of all) results[kind].push(r);
    }
  }
} finally {
  await emu.stop();
  await rm(home, { recursive: true, force: true });
}

const MiB = 1024 * 1024;
const summary = {};
for (const [kind, runs] of Object.entries(results)) {
  const times = runs.flatMap((r) => r.times);
  summary[kind] = {
    medianMs: median(times),
    p95Ms: quantile(times, 0.95),
    slowestMs: Math.max(...times),
    perCallMs: median(runs.map((r) => r.total / CALLS)),
    peakRssMiB: Math.max(...runs.map((r) => r.peak)) / MiB,
    growthMiB: Math.max(...runs.map((r) => r.peak - r.start)) / MiB,
  };
}
console.log(
  `${CALLS} calls in a row, ${RUNS} runs, ${CONCURRENCY} bridge(s) at once, growth after ${WARMUP} calls, against the emulator (node ${process.version})`,
);
console.log('client       median  p95     slowest  per call  peak RSS  growth');
for (const [kind, s] of Object.entries(summary)) {
  console.log(
    `${kind.padEnd(12)} ${s.medianMs.toFixed(2).padStart(5)} ms ${s.p95Ms.toFixed(2).padStart(5)} ms ${s.slowestMs.toFixed(0).padStart(5)} ms ${s.perCallMs.toFixed(2).padStart(6)} ms ${s.peakRssMiB.toFixed(1).padStart(6)} MiB ${s.growthMiB.toFixed(1).padStart(5)} MiB`,
  );
}
const a = summary.lanyard;
const b = summary['mcp-remote'];
console.log(`ratio lanyard / mcp-remote: per call ${(a.perCallMs / b.perCallMs).toFixed(2)}x, peak RSS ${(a.peakRssMiB / b.peakRssMiB).toFixed(2)}x`);
const base = summary.baseline;
if (base)
  console.log(`ratio lanyard / baseline: per call ${(a.perCallMs / base.perCallMs).toFixed(2)}x, peak RSS ${(a.peakRssMiB / base.peakRssMiB).toFixed(2)}x`);
