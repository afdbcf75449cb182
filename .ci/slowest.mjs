// The wall time of each vitest pass and its slowest test files, from vitest's
// JSON reports: `node .ci/slowest.mjs "label=report.json" …`. CI prints it so
// the next file to make faster is known (the suite must stay inside CI's 35
// minutes on a 2-core machine); `npm run test:timing` prints it for a pass
// run by hand.
//
// Per pass: the wall time (from the pass's start to the last file's end), the
// sum of the files' times (each with its start-up and hooks, see withSetup),
// and the least wall time two workers could reach
// with those files (the longest file, or half the sum): the gap between that
// and the wall time is what the order of the files and the workers' start-up
// cost.
//
// `--save test/timings.json` writes the files' times of the first report
// there: the order the suite runs its files in (longest first, see
// test/vitest.config.ts). Save it from a whole pass on the 2-core machine.
import { readFileSync, writeFileSync } from 'node:fs';

const TOP = 8;
const WORKERS = 2;
const args = process.argv.slice(2);
const saveAt = args.indexOf('--save');
const save = saveAt >= 0 ? args.splice(saveAt, 2)[1] : undefined;

/** A test file's path from the repository's root (`test/…`), wherever the pass ran. */
const fromRoot = (name) => {
  const path = name.split('\\').join('/');
  const i = path.lastIndexOf('/test/');
  return i >= 0 ? path.slice(i + 1) : path;
};

/**
 * A file's time as the report gives it leaves out what runs before its first
 * test (the worker's start, imports, beforeAll hooks: the whole of
 * demo.test.ts). Each file is put back on its worker (the worker that ended a
 * file last before it started), and its time counted from that end.
 */
function withSetup(files, passStart) {
  const workers = [];
  for (const f of [...files].sort((a, b) => a.start - b.start)) {
    const free = workers.filter((w) => w.end <= f.start).sort((a, b) => b.end - a.end)[0];
    const w = free ?? { end: passStart };
    if (!free) workers.push(w);
    f.ms = f.end - w.end;
    w.end = f.end;
  }
  return files;
}

let saved = false;
for (const arg of args) {
  const i = arg.indexOf('=');
  const label = i > 0 ? arg.slice(0, i) : 'pass';
  let report;
  try {
    report = JSON.parse(readFileSync(arg.slice(i + 1), 'utf8'));
  } catch {
    console.log(`${label}: no report`);
    continue;
  }
  const files = withSetup(report.testResults.map((f) => ({ name: fromRoot(f.name), ms: f.endTime - f.startTime, start: f.startTime, end: f.endTime })), report.startTime);
  if (!files.length) {
    console.log(`${label}: no test files`);
    continue;
  }
  const wall = Math.max(...files.map((f) => f.end)) - report.startTime;
  const busy = files.reduce((s, f) => s + f.ms, 0);
  const longest = Math.max(...files.map((f) => f.ms));
  const s = (ms) => (ms / 1000).toFixed(0);
  console.log(
    `${label}: ${files.length} files in ${s(wall)} s wall (sum of the files' times ${s(busy)} s; ${WORKERS} workers could end at best in ${s(Math.max(longest, busy / WORKERS))} s); slowest:`,
  );
  for (const f of [...files].sort((a, b) => b.ms - a.ms).slice(0, TOP)) console.log(`  ${(f.ms / 1000).toFixed(1).padStart(6)} s  ${f.name}`);
  if (save && !saved) {
    const times = Object.fromEntries(files.sort((a, b) => a.name.localeCompare(b.name)).map((f) => [f.name, Math.round(f.ms / 100) / 10]));
    writeFileSync(save, `${JSON.stringify(times, null, 2)}\n`);
    console.log(`${label}: the files' times written to ${save}`);
    saved = true;
  }
}
