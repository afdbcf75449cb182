#!/usr/bin/env node
// Mailbox benchmarks (run `npm run bench:mailbox`; needs a build, curl and /usr/bin/time):
//  1. `lanyard mailbox raw` of a 256 MiB message vs `curl` to /dev/null on loopback,
//     stored plain and stored deflated (curl --compressed inflates like lanyard does):
//     throughput of the whole process (start-up included), throughput net of start-up
//     (minus the wall time of the same tool fetching a 1 KiB message the same way), and
//     peak RSS of lanyard. A third client sets the floor of any Node program: a bare
//     `node:http` GET piped to stdout (through zlib's raw inflater for the deflated one),
//     no CLI, no checks.
//  2. `lanyard mailbox list --all --ndjson --metadata` over 5,000 and 50,000 messages:
//     peak RSS must stay flat.
// CPU seconds (user + system, from /usr/bin/time) are printed too: on a shared machine they
// move less than wall times.
// Options: --size MiB (default 256), --runs N (default 5), --messages N (default 50000), --only raw|list.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'lanyard.js');
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const SIZE_MIB = arg('size', 256);
const RUNS = arg('runs', 5);
const MESSAGES = arg('messages', 50_000);
const ONLY = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;

const configDir = await mkdtemp(join(tmpdir(), 'lanyard-bench-cfg-'));
const dataDir = await mkdtemp(join(tmpdir(), 'lanyard-bench-data-'));
const env = { ...process.env, LANYARD_CONFIG_DIR: configDir, LANYARD_KEYCHAIN: 'off', NO_COLOR: '1' };
for (const k of Object.keys(env)) if (k.startsWith('LANYARD_') && !['LANYARD_CONFIG_DIR', 'LANYARD_KEYCHAIN'].includes(k)) delete env[k];

const emu = spawn(process.execPath, [bin, 'emulator', 'start', '--port', '0', '-q', '--data-dir', dataDir], { env, stdio: ['ignore', 'pipe', 'pipe'] });
const url = await new Promise((resolve, reject) => {
  createInterface({ input: emu.stdout }).once('line', (l) => {
    const m = /^Emulator listening on (\S+)$/.exec(l);
    m ? resolve(m[1]) : reject(new Error(l));
  });
  emu.once('exit', (c) => reject(new Error(`emulator exited ${c}`)));
});
await new Promise((r) => setTimeout(r, 500)); // profile registration
const api = `${url}/rest/v2/example.com/alice/mailbox`;

async function admin(verb, body) {
  const res = await fetch(`${url}/_emulator/mailbox/${verb}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${verb}: ${res.status} ${await res.text()}`);
  return res.json();
}

/** Runs a command under /usr/bin/time -v; returns wall and CPU (user + system) seconds and max RSS (KiB); stdout to /dev/null. */
function timed(cmd, args) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn('/usr/bin/time', ['-v', cmd, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const wall = Number(process.hrtime.bigint() - t0) / 1e9;
      if (code !== 0) return reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${err.slice(-500)}`));
      const rss = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(err)?.[1] ?? NaN);
      const cpu = Number(/User time \(seconds\): ([\d.]+)/.exec(err)?.[1] ?? NaN) + Number(/System time \(seconds\): ([\d.]+)/.exec(err)?.[1] ?? NaN);
      resolve({ wall, rssKiB: rss, cpu });
    });
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mib = (kib) => (kib / 1024).toFixed(1);
const results = [];

try {
  const bytes = SIZE_MIB * 1024 * 1024;
  if (ONLY !== 'list') {
    console.error(`generating two ${SIZE_MIB} MiB messages (plain and deflated)…`);
    const plain = await admin('generate', { bytes: Math.round(((bytes * 3) / 4) * (76 / 78)), compress: false });
    const packed = await admin('generate', { bytes: Math.round(((bytes * 3) / 4) * (76 / 78)), compress: true });
    const tiny = await admin('generate', { bytes: 1024, compress: false });
    const startup = [];
    for (let i = 0; i < RUNS; i++) startup.push((await timed(process.execPath, [bin, '--version'])).wall);
    for (const [name, msg, curlExtra] of [
      ['plain', plain, []],
      ['deflated', packed, ['--compressed']],
    ]) {
      const lan = [];
      const cur = [];
      const lanCpu = [];
      const curCpu = [];
      const lanBase = [];
      const curBase = [];
      const bare = [];
      let rss = 0;
      const bareScript =
        "const u = process.argv[1], inflate = process.argv[2] === 'deflate';" +
        "require('node:http').get(u, inflate ? { headers: { 'accept-encoding': 'deflate' } } : {}, (r) => {" +
        "  const src = inflate && r.headers['content-encoding'] === 'deflate' ? r.pipe(require('node:zlib').createInflateRaw()) : r;" +
        '  src.pipe(process.stdout);' +
        '});';
      for (let i = 0; i < RUNS; i++) {
        // Start-up + one round trip with (almost) no body: the same command for a 1 KiB message.
        curBase.push((await timed('curl', ['-sf', '-o', '/dev/null', `${api}/message/${tiny.id}/raw`])).wall);
        lanBase.push((await timed(process.execPath, [bin, '--profile', 'emulator', 'mailbox', 'raw', tiny.id])).wall);
        const c = await timed('curl', ['-sf', ...curlExtra, '-o', '/dev/null', `${api}/message/${msg.id}/raw`]);
        cur.push(c.wall);
        curCpu.push(c.cpu);
        bare.push((await timed(process.execPath, ['-e', bareScript, `${api}/message/${msg.id}/raw`, name === 'deflated' ? 'deflate' : 'plain'])).wall);
        const l = await timed(process.execPath, [bin, '--profile', 'emulator', 'mailbox', 'raw', msg.id]);
        lan.push(l.wall);
        lanCpu.push(l.cpu);
        rss = Math.max(rss, l.rssKiB);
      }
      const size = msg.size / 1024 / 1024;
      const lt = size / median(lan);
      const ct = size / median(cur);
      console.error(
        `  ${name}: curl ${cur.map((x) => x.toFixed(2))} (1 KiB: ${curBase.map((x) => x.toFixed(2))}), lanyard ${lan.map((x) => x.toFixed(2))} (1 KiB: ${lanBase.map((x) => x.toFixed(2))}) s`,
      );
      const bt = size / median(bare);
      console.error(`  ${name}: bare node:http ${bare.map((x) => x.toFixed(2))} s`);
      const ltNet = size / Math.max(median(lan) - median(lanBase), 1e-3);
      const ctNet = size / Math.max(median(cur) - median(curBase), 1e-3);
      results.push(
        `| raw ${name} (${size.toFixed(0)} MiB) | ${ct.toFixed(0)} MiB/s | ${lt.toFixed(0)} MiB/s | ${(lt / ct).toFixed(2)}× | ` +
          `${ctNet.toFixed(0)} MiB/s | ${ltNet.toFixed(0)} MiB/s | ${(ltNet / ctNet).toFixed(2)}× | ${median(curCpu).toFixed(2)} s | ${median(lanCpu).toFixed(2)} s | ${mib(rss)} MiB | ` +
          `${bt.toFixed(0)} MiB/s (${(bt / ct).toFixed(2)}× curl) |`,
      );
      console.error(results.at(-1));
    }
    const st = median(startup);
    results.push(`| (lanyard --version start-up) | | ${(st * 1000).toFixed(0)} ms | | | | | | | | |`);
  }

  const listRows = [];
  for (const [label, count] of ONLY === 'raw'
    ? []
    : [
        [21, Math.round(MESSAGES / 10)],
        [22, MESSAGES],
      ]) {
    console.error(`generating ${count} messages…`);
    await admin('generate', { count, label });
    const runs = [];
    for (let i = 0; i < Math.max(1, RUNS - 1); i++) {
      runs.push(
        await timed(process.execPath, [
          bin,
          '--profile',
          'emulator',
          'mailbox',
          'list',
          '--label',
          String(label),
          '--all',
          '--metadata',
          '--count',
          '500',
          '--ndjson',
        ]),
      );
    }
    const wall = median(runs.map((r) => r.wall));
    const rss = Math.max(...runs.map((r) => r.rssKiB));
    listRows.push(`| list --all --ndjson --metadata, ${count} messages | ${wall.toFixed(2)} s | ${Math.round(count / wall)} msg/s | ${mib(rss)} MiB |`);
    console.error(listRows.at(-1));
  }
  console.log(`Machine: ${(await import('node:os')).cpus().length} CPUs, Node ${process.version}, ${RUNS} runs (median).`);
  console.log(
    '\n| transfer | curl | lanyard | ratio | curl net of start-up | lanyard net of start-up | ratio | curl CPU | lanyard CPU | lanyard peak RSS | bare node:http |\n|---|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const r of results) console.log(r);
  console.log('\n| listing | wall | rate | peak RSS |\n|---|---|---|---|');
  for (const r of listRows) console.log(r);
} finally {
  emu.kill('SIGTERM');
  await new Promise((r) => emu.once('exit', r));
  await rm(configDir, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
}
