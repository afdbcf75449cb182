#!/usr/bin/env node
// `npm run interop:protocol`: every client scenario of the official
// context-protocol conformance suite (@modelcontextprotocol/conformance)
// against the built CLI, through protocol-client.mjs. The suite needs Node 24:
// it runs under the npm package node@24 (installed beside the project, as
// .ci/run does); Lanyard itself runs under the Node that runs this script.
// Prints one line per scenario and `N of M scenarios passed`; exit 1 if any failed.
// Options: --scenario <name> (repeatable) to run some; --verbose for the suite's output.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const only = args.flatMap((a, i) => (args[i - 1] === '--scenario' ? [a] : []));
const CONCURRENCY = Number(process.env.LANYARD_INTEROP_JOBS) || 3;

function node24() {
  const prefix = join(root, 'node_modules', '.cache', 'lanyard-node24');
  const bin = join(prefix, 'node_modules', 'node', 'bin', 'node');
  const ok = () => spawnSync(bin, ['--version']).status === 0;
  if (ok()) return bin;
  process.stderr.write(`interop: installing node@24 into ${prefix}\n`);
  mkdirSync(prefix, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  spawnSync(npm, ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', 'node@24'], { stdio: 'ignore' });
  if (!ok()) spawnSync(process.execPath, ['installArchSpecificPackage'], { cwd: join(prefix, 'node_modules', 'node'), stdio: 'ignore' });
  if (!ok()) throw new Error('could not install node@24 (the conformance suite needs Node 24)');
  return bin;
}

if (!existsSync(join(root, 'dist'))) {
  process.stderr.write('interop: build first (npm run build)\n');
  process.exit(1);
}
const n24 = node24();
const suite = join(root, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const listed = spawnSync(n24, [suite, 'list', '--client'], { encoding: 'utf8' });
const all = [...listed.stdout.matchAll(/^\s*- (\S+)/gm)].map((m) => m[1]);
if (!all.length) throw new Error(`the conformance suite listed no client scenarios:\n${listed.stderr}`);
const scenarios = only.length ? all.filter((s) => only.includes(s)) : all;
const command = `${process.execPath} ${join(root, 'test', 'interop', 'protocol-client.mjs')}`;
const out = mkdtempSync(join(tmpdir(), 'lanyard-interop-'));

function run(name) {
  return new Promise((resolve) => {
    const dir = join(out, name.replace(/\W+/g, '_'));
    const child = spawn(n24, [suite, 'client', '--command', command, '--scenario', name, '--timeout', '60000', '-o', dir], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout.on('data', (d) => (log += d));
    child.stderr.on('data', (d) => (log += d));
    child.on('close', (code) => {
      let checks = [];
      try {
        const sub = readdirSync(dir)[0];
        checks = JSON.parse(readFileSync(join(dir, sub, 'checks.json'), 'utf8'));
      } catch {
        /* no result file: the run itself failed */
      }
      const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
      resolve({ name, ok: code === 0, bad, log });
    });
  });
}

const results = [];
const queue = [...scenarios];
await Promise.all(
  Array.from({ length: Math.min(CONCURRENCY, queue.length) }, async () => {
    for (let name = queue.shift(); name; name = queue.shift()) {
      const r = await run(name);
      results.push(r);
      const why = r.ok
        ? ''
        : r.bad.length
          ? `: ${r.bad.map((c) => `${c.id} (${c.errorMessage ?? c.description})`).join('; ')}`
          : ': the client failed or timed out';
      process.stdout.write(`${r.ok ? 'pass' : 'FAIL'} ${name}${why}\n`);
      if (verbose || (!r.ok && process.env.CI)) process.stdout.write(r.log.replace(/^/gm, '    ') + '\n');
    }
  }),
);
rmSync(out, { recursive: true, force: true });
const passed = results.filter((r) => r.ok).length;
process.stdout.write(`${passed} of ${results.length} conformance scenarios passed\n`);
process.exit(passed === results.length ? 0 : 1);
