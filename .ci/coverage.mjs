// The coverage of src/core and src/cli, each on its own and together, from
// vitest's json-summary report (`npm run test:coverage` writes it to
// coverage/coverage-summary.json and runs this): `node .ci/coverage.mjs
// [coverage-summary.json]`.
import { readFileSync } from 'node:fs';

const AREAS = ['src/core', 'src/cli'];
const METRICS = ['statements', 'branches', 'functions', 'lines'];
const summary = JSON.parse(readFileSync(process.argv[2] ?? 'coverage/coverage-summary.json', 'utf8'));

/** A file's path from the repository's root (`src/…`), wherever the run was. */
const fromRoot = (name) => {
  const path = name.split('\\').join('/');
  const i = path.lastIndexOf('/src/');
  return i >= 0 ? path.slice(i + 1) : path;
};

const sums = Object.fromEntries([...AREAS, 'both'].map((a) => [a, Object.fromEntries(METRICS.map((m) => [m, { covered: 0, total: 0 }]))]));
for (const [name, file] of Object.entries(summary)) {
  if (name === 'total') continue;
  const area = AREAS.find((a) => fromRoot(name).startsWith(`${a}/`));
  if (!area) continue;
  for (const m of METRICS)
    for (const key of [area, 'both']) {
      sums[key][m].covered += file[m].covered;
      sums[key][m].total += file[m].total;
    }
}
const pct = ({ covered, total }) => (total ? (Math.floor((10000 * covered) / total) / 100).toFixed(2) : '-');
for (const [area, s] of Object.entries(sums))
  console.log(`${area.padEnd(8)} ${METRICS.map((m) => `${m} ${pct(s[m])}% (${s[m].covered}/${s[m].total})`).join(', ')}`);
