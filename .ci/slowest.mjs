// The wall time of each vitest pass of .ci/run and its slowest test files,
// from vitest's JSON reports: `node .ci/slowest.mjs "label=report.json" …`.
// CI prints it so the next file to make faster is known (the suite must stay
// inside CI's 35 minutes on a 2-core machine).
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const TOP = 8;
for (const arg of process.argv.slice(2)) {
  const i = arg.indexOf('=');
  const label = arg.slice(0, i);
  let report;
  try {
    report = JSON.parse(readFileSync(arg.slice(i + 1), 'utf8'));
  } catch {
    console.log(`${label}: no report`);
    continue;
  }
  const files = report.testResults.map((f) => ({ name: relative(process.cwd(), f.name), ms: f.endTime - f.startTime, end: f.endTime }));
  const wall = Math.max(...files.map((f) => f.end)) - report.startTime;
  const busy = files.reduce((s, f) => s + f.ms, 0);
  console.log(`${label}: ${files.length} files in ${(wall / 1000).toFixed(0)} s (sum of the files' times ${(busy / 1000).toFixed(0)} s); slowest:`);
  for (const f of files.sort((a, b) => b.ms - a.ms).slice(0, TOP)) console.log(`  ${(f.ms / 1000).toFixed(1).padStart(6)} s  ${f.name}`);
}
