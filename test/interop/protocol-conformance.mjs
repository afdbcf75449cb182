#!/usr/bin/env node
// `npm run interop:protocol`: the client scenarios of the official
// context-protocol conformance suite (@modelcontextprotocol/conformance)
// against the built CLI, through protocol-client.mjs, in two lines of the suite:
//   0.1.16          every client scenario;
//   0.2.0-alpha.12  the client scenarios each revision requires
//                   (`list --requirements 2025-11-25` and `2026-07-28`), each
//                   run at that revision's wire, plus the scenarios the line
//                   runs without scoring for it (the auth extensions,
//                   json-schema-2020-12-preservation).
// Then the emulator's protocol server at 2026-07-28 (switched `open`: the
// suite's server scenarios sign in to nothing) against the server scenarios
// of 0.2.0-alpha.12 that exercise what the emulator serves (SERVER_SCENARIOS):
// the independent check of the emulator. Line label: server.
// The suite needs Node 24 or later: it runs under the Node that runs this
// script when that is one (CI runs it with Node 26), else under the npm package
// node@24 pinned in .ci/node-versions (installed beside the project, as .ci/run
// does); Lanyard itself runs under the Node that runs this script. Prints one line per scenario, a tally per line and
// in all; exit 1 if any scenario failed that is not in KNOWN_FAILURES.
// Options: --scenario <name> (repeatable) to run some; --line <label>
// (repeatable: 0.1, 2025-11-25, 2026-07-28, server) to run some lines; --verbose for
// the suite's output.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const valuesOf = (flag) => args.flatMap((a, i) => (args[i - 1] === flag ? [a] : []));
const only = valuesOf('--scenario');
const onlyLines = valuesOf('--line');
const CONCURRENCY = Number(process.env.LANYARD_INTEROP_JOBS) || 3;

/**
 * Scenarios of a line that do not pass yet, by line label: they run and
 * print, a pass is reported, but they do not fail the run. Every other
 * failure does. Remove an entry when the scenario passes.
 */
const KNOWN_FAILURES = {
  '0.1.16': [],
  '2025-11-25': [],
  '2026-07-28': [],
};

/**
 * The 2026-07-28 server scenarios run against the emulator. The others of
 * `list --server --requirements 2026-07-28` need what the emulator does not
 * serve (completion, sampling, roots, image and audio content) or the suite's
 * own fixtures (`test_input_required_result_*` tools, `test://static-text`
 * and the other resources, `test_simple_prompt` and the other prompts).
 */
const SERVER_SCENARIOS = [
  'server-stateless',
  'tools-list',
  'server-sse-multiple-streams',
  'dns-rebinding-protection',
  'http-header-validation',
  'http-custom-header-server-validation',
  'input-required-result-unsupported-methods',
  'input-required-result-validate-input',
  'resources-list',
  'prompts-list',
  'sep-2164-resource-not-found',
];
/** Checks of those scenarios that call the suite's diagnostic tools (`test_missing_capability`, `test_streaming_elicitation`, `test_logging_tool`), which the emulator does not have. */
const SERVER_CHECKS_NEEDING_FIXTURES = [
  'sep-2575-server-rejects-undeclared-capability',
  'sep-2575-missing-capability-http-400',
  'sep-2575-http-server-no-independent-requests-on-stream',
  'sep-2575-server-no-log-without-loglevel',
];

/**
 * A Node the suite runs under (it needs 24 or later): this one when it is,
 * else the npm package node@24 at the version .ci/node-versions pins,
 * installed beside the project as .ci/run installs it.
 */
function suiteNode() {
  if (Number(process.versions.node.split('.')[0]) >= 24) return process.execPath;
  const version = /^24 (\S+)$/m.exec(readFileSync(join(root, '.ci', 'node-versions'), 'utf8'))?.[1];
  const prefix = join(root, 'node_modules', '.cache', 'lanyard-node24');
  const bin = join(prefix, 'node_modules', 'node', 'bin', 'node');
  const ok = () => spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout?.trim() === `v${version}`;
  if (ok()) return bin;
  process.stderr.write(`interop: installing node@${version} into ${prefix}\n`);
  mkdirSync(prefix, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  spawnSync(npm, ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', `node@${version}`], { stdio: 'ignore' });
  if (!ok()) spawnSync(process.execPath, ['installArchSpecificPackage'], { cwd: join(prefix, 'node_modules', 'node'), stdio: 'ignore' });
  if (!ok()) throw new Error(`could not install node@${version} (the conformance suite needs Node 24 or later)`);
  return bin;
}

if (!existsSync(join(root, 'dist'))) {
  process.stderr.write('interop: build first (npm run build)\n');
  process.exit(1);
}
const suiteNodeBin = suiteNode();
const suiteOf = (pkg) => join(root, 'node_modules', '@modelcontextprotocol', pkg, 'dist', 'index.js');
const list = (suite, ...opts) => {
  const r = spawnSync(suiteNodeBin, [suite, 'list', '--client', ...opts], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`conformance list ${opts.join(' ')} failed:\n${r.stderr}`);
  return r.stdout;
};

/** One line of the suite: which package, which scenarios, what to add to `conformance client`. */
function lines() {
  const v01 = suiteOf('conformance');
  const v02 = suiteOf('conformance-0.2');
  const out = [{ label: '0.1.16', suite: v01, scenarios: [...list(v01).matchAll(/^\s*- (\S+)/gm)].map((m) => m[1]), extra: [] }];
  for (const revision of ['2025-11-25', '2026-07-28']) {
    const text = list(v02, '--requirements', revision);
    // "Client scenarios" section: the required ones; "[client]" entries of "Run and reported, but never scored": the rest.
    const section = text.split(/^Client scenarios.*$/m)[1]?.split(/^\S/m)[0] ?? '';
    const required = [...section.matchAll(/^\s*- (\S+)\s*$/gm)].map((m) => m[1]);
    const unscored = [...text.matchAll(/^\s*- (\S+) \[client\]\s*$/gm)].map((m) => m[1]);
    if (!required.length) throw new Error(`conformance 0.2 listed no required client scenarios for ${revision}:\n${text}`);
    // The same scenarios and wire `client --requirements <revision>` runs, one at a time here (own concurrency, own tally).
    out.push({ label: revision, suite: v02, scenarios: [...required, ...unscored], unscored, extra: ['--spec-version', revision, '--force'] });
  }
  out.push({ label: 'server', suite: v02, scenarios: SERVER_SCENARIOS, server: true, extra: ['--spec-version', '2026-07-28', '--force'] });
  return out.filter((l) => !onlyLines.length || onlyLines.some((o) => l.label.startsWith(o)));
}

const command = `${process.execPath} ${join(root, 'test', 'interop', 'protocol-client.mjs')}`;
const out = mkdtempSync(join(tmpdir(), 'lanyard-interop-'));

function checksUnder(dir) {
  try {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isFile() && e.name === 'checks.json') return JSON.parse(readFileSync(join(dir, e.name), 'utf8'));
      if (e.isDirectory()) {
        const found = checksUnder(join(dir, e.name));
        if (found) return found;
      }
    }
  } catch {
    /* no result file: the run itself failed */
  }
  return undefined;
}

/** The emulator the server line runs against, started on first use (in process, from the build). */
let emulator;
async function emulatedServer() {
  emulator ??= (async () => {
    const { startEmulator } = await import(join(root, 'dist', 'lib', 'emulator.js'));
    const emu = await startEmulator();
    await emu.admin('protocol', 'configure', { revision: '2026-07-28', open: true });
    return emu;
  })();
  return emulator;
}

async function run(line, name) {
  const target = line.server ? ['server', '--url', (await emulatedServer()).urls.protocol.server] : ['client', '--command', command];
  return new Promise((resolve) => {
    const dir = join(out, line.label.replace(/\W+/g, '_'), name.replace(/\W+/g, '_'));
    const child = spawn(suiteNodeBin, [line.suite, ...target, '--scenario', name, '--timeout', '60000', '-o', dir, ...line.extra], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    child.stdout.on('data', (d) => (log += d));
    child.stderr.on('data', (d) => (log += d));
    child.on('close', (code) => {
      const checks = checksUnder(dir) ?? [];
      const bad = checks.filter((c) => (c.status === 'FAILURE' || c.status === 'WARNING') && !(line.server && SERVER_CHECKS_NEEDING_FIXTURES.includes(c.id)));
      // A server run exits 1 on the fixture checks left out above: there the checks decide.
      const ran = line.server ? checks.length > 0 : code === 0;
      resolve({ line: line.label, name, ok: ran && bad.length === 0, bad, log });
    });
  });
}

const jobs = lines().flatMap((line) => line.scenarios.filter((s) => !only.length || only.includes(s)).map((name) => ({ line, name })));
const results = [];
const queue = [...jobs];
await Promise.all(
  Array.from({ length: Math.min(CONCURRENCY, queue.length) }, async () => {
    for (let job = queue.shift(); job; job = queue.shift()) {
      const r = await run(job.line, job.name);
      r.known = (KNOWN_FAILURES[r.line] ?? []).includes(r.name);
      r.unscored = job.line.unscored?.includes(r.name) ?? false;
      results.push(r);
      const why = r.ok
        ? ''
        : r.bad.length
          ? `: ${r.bad.map((c) => `${c.id} (${c.errorMessage ?? c.description})`).join('; ')}`
          : ': the client failed or timed out';
      const tag = `${r.ok ? 'pass' : r.known ? 'known' : 'FAIL'} [${r.line}]`;
      process.stdout.write(`${tag} ${r.name}${r.unscored ? ' (not scored by the suite)' : ''}${why}\n`);
      if (r.ok && r.known) process.stdout.write(`    ${r.name} passes now: remove it from KNOWN_FAILURES\n`);
      if (verbose || (!r.ok && !r.known && process.env.CI)) process.stdout.write(r.log.replace(/^/gm, '    ') + '\n');
    }
  }),
);
rmSync(out, { recursive: true, force: true });
if (emulator) await (await emulator).stop();
for (const label of [...new Set(jobs.map((j) => j.line.label))]) {
  const mine = results.filter((r) => r.line === label);
  const req = mine.filter((r) => !r.unscored);
  const ext = mine.filter((r) => r.unscored);
  const tally = (rs) => `${rs.filter((r) => r.ok).length} of ${rs.length}`;
  process.stdout.write(
    `conformance ${label === '0.1.16' ? '0.1.16' : label === 'server' ? '0.2.0-alpha.12 server (the emulator at 2026-07-28)' : `0.2.0-alpha.12 --requirements ${label}`}: ${tally(req)} scenarios passed${ext.length ? `; unscored: ${tally(ext)}` : ''}\n`,
  );
}
const failed = results.filter((r) => !r.ok && !r.known);
process.stdout.write(
  `${results.filter((r) => r.ok).length} of ${results.length} conformance scenarios passed${failed.length ? `; ${failed.length} failed` : ''}\n`,
);
process.exit(failed.length ? 1 : 0);
