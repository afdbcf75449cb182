#!/usr/bin/env node
// Soak (run `npm run bench:soak`; needs a build; not a CI test): mixed traffic in real time
// against the emulator for --seconds (default 600): tool calls in a row through one
// `lanyard protocol bridge` driven by the protocol SDK's stdio client, `lanyard api --paginate`
// runs, `mailbox store` runs, and a fleet of --fleet processes (default 3) creating repositories
// (content-creating, paced across processes). Reports, per kind: operations, errors, latency
// p50/p95/p99/max; and the peak resident set of the bridge, of any one CLI process and of
// the emulator (this process), sampled from /proc every 100 ms.
//
// It measures Lanyard, not the code host's hourly budgets: the emulator's hourly
// content-creating limit and per-minute points are raised (and Lanyard's pacing told the
// same through the profile's pacing.limits), and the primary budget (5,000 an hour) is
// refilled every minute. The minute's 80 content-creating requests stay: the fleet is paced
// by them as a real fleet is, each wait within the default bound of a minute.
import { spawn } from 'node:child_process';
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
const SECONDS = arg('seconds', 600);
const FLEET = arg('fleet', 3);
const BIN = join(ROOT, 'bin', 'lanyard.js');

const emu = await startEmulator();
const admin = async (verb, body, method = 'POST') =>
  (await fetch(`${emu.urls.admin}/${verb}`, { method, headers: { 'content-type': 'application/json' }, body: body && JSON.stringify(body) })).json();
await admin('protocol/configure', { open: true });
// 80 content-creating requests a minute as the spec says; the hour's 500 and the per-endpoint points out of the way.
const HOURLY = 100_000;
await admin('hosting/limits', {
  contentCreatingPerHour: HOURLY,
  restPointsPerMinute: 1_000_000,
  cpuMsPerMinute: 100_000_000,
  graphqlCpuMsPerMinute: 100_000_000,
});
const refill = () => admin('hosting/budget', { remaining: 5000, resetInSeconds: 3600 });
await refill();
const info = await admin('info', undefined, 'GET');
const home = await mkdtemp(join(tmpdir(), 'lanyard-soak-'));
const config = join(home, 'config');
const env = {
  PATH: process.env.PATH ?? '',
  HOME: home,
  LANYARD_CONFIG_DIR: config,
  LANYARD_KEYCHAIN: 'off',
  NO_COLOR: '1',
  LANYARD_TOKEN: info.hosting.personalToken,
};
// The emulator's profile, as `emulator start` registers it.
const settings = {
  'hosting.apiUrl': emu.urls.hosting.api,
  'hosting.webUrl': emu.urls.hosting.web,
  'mailbox.baseUrl': emu.urls.base,
  'mailbox.domain': 'example.com',
  'mailbox.user': 'alice',
  // Lanyard's pacing follows the emulator's windows (the minute's 80, the raised hour).
  'pacing.limits': `80/1m,${HOURLY}/1h`,
};
for (const [k, v] of Object.entries(settings)) {
  const r = await new Promise((resolve) =>
    spawn(process.execPath, [BIN, '--profile', 'emulator', 'config', 'set', k, v], { env, stdio: 'ignore' }).on('close', resolve),
  );
  if (r !== 0) throw new Error(`config set ${k} failed`);
}

const MiB = 1024 * 1024;
const rssOf = async (pid) => {
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(await readFile(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
  } catch {
    return 0;
  }
};
const peak = { bridge: 0, cli: 0, emulator: 0 };
const cliPids = new Set();
const lat = {};
const errors = {};
const paced = {};
const limited = {};
const note = (kind, ms, ok, why) => {
  (lat[kind] ??= []).push(ms);
  if (!ok) {
    errors[kind] = (errors[kind] ?? 0) + 1;
    if (errors[kind] <= 3) process.stderr.write(`${kind} failed: ${why}\n`);
  }
};
const end = Date.now() + SECONDS * 1000;

function cli(args, input) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, '--profile', 'emulator', ...args], { env, stdio: ['pipe', 'ignore', 'pipe'] });
    cliPids.add(child.pid);
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.stdin.end(input ?? '');
    child.on('close', (code) => (cliPids.delete(child.pid), resolve({ code, stderr })));
  });
}
async function loop(kind, once) {
  for (let i = 0; Date.now() < end; i++) {
    const t = performance.now();
    let r;
    try {
      r = await once(i);
    } catch (err) {
      r = { code: -1, stderr: String(err) };
    }
    const ms = performance.now() - t;
    note(kind, ms, r.code === 0, r.stderr?.slice(0, 300));
    // Waits said on stderr: Lanyard's pacing, and a server's rate limit waited out (neither an error).
    if (/pacing content-creating requests/.test(r.stderr ?? '')) paced[kind] = (paced[kind] ?? 0) + 1;
    if (/rate limit reached; waiting|answered HTTP \d+ with Retry-After; waiting/.test(r.stderr ?? '')) limited[kind] = (limited[kind] ?? 0) + 1;
    if (process.env.SOAK_SLOW && ms > Number(process.env.SOAK_SLOW)) process.stderr.write(`slow ${kind} (${ms.toFixed(0)} ms): ${r.stderr?.slice(0, 400)}\n`);
  }
}

const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'protocol', 'bridge', emu.urls.protocol.server], env, stderr: 'pipe' });
const host = new Client({ name: 'soak-host', version: '1.0.0' });
await host.connect(transport);
const refiller = setInterval(() => void refill().catch(() => {}), 60_000);
const sampler = setInterval(async () => {
  peak.bridge = Math.max(peak.bridge, await rssOf(transport.pid));
  peak.emulator = Math.max(peak.emulator, process.memoryUsage().rss);
  for (const pid of cliPids) peak.cli = Math.max(peak.cli, await rssOf(pid));
}, 100);
const message = (i) => `From: Soak <soak@example.net>\r\nTo: alice@example.com\r\nSubject: soak ${i}\r\n\r\nmessage ${i}\r\n`;
try {
  await Promise.all([
    loop('bridge tool call', async (i) => {
      const r = await host.callTool({ name: 'echo', arguments: { text: `soak ${i}` } });
      return { code: JSON.stringify(r.content).includes(`soak ${i}`) ? 0 : 1, stderr: JSON.stringify(r).slice(0, 200) };
    }),
    // 100 a page: the fleet keeps creating repositories, so a run is 1 page at first and about 10 after ten minutes.
    loop('api --paginate', () => cli(['api', '--paginate', '/user/repos?per_page=100'])),
    loop('mailbox store', (i) => cli(['mailbox', 'store', '-'], message(i))),
    ...Array.from({ length: FLEET }, (_, m) =>
      loop('fleet POST /user/repos', (i) => cli(['api', '-X', 'POST', '/user/repos', '-f', `name=soak-${m}-${i}-${Date.now()}`])),
    ),
  ]);
} finally {
  clearInterval(sampler);
  clearInterval(refiller);
  await host.close();
  await emu.stop();
  await rm(home, { recursive: true, force: true });
}

const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
console.log(`soak: ${SECONDS} s of mixed traffic against the emulator (node ${process.version}, fleet of ${FLEET})`);
console.log('kind                     ops    errors  p50 ms   p95 ms   p99 ms   max ms  paced  server-waits');
for (const [kind, xs] of Object.entries(lat)) {
  const f = (v) => v.toFixed(0).padStart(7);
  console.log(
    `${kind.padEnd(24)} ${String(xs.length).padStart(5)} ${String(errors[kind] ?? 0).padStart(7)} ${f(q(xs, 0.5))}  ${f(q(xs, 0.95))}  ${f(q(xs, 0.99))}  ${f(Math.max(...xs))} ${String(paced[kind] ?? 0).padStart(6)} ${String(limited[kind] ?? 0).padStart(13)}`,
  );
}
console.log(
  `peak RSS: bridge ${(peak.bridge / MiB).toFixed(1)} MiB, one CLI process ${(peak.cli / MiB).toFixed(1)} MiB, emulator (with this driver) ${(peak.emulator / MiB).toFixed(1)} MiB`,
);
