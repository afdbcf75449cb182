import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Each test file's seconds in a measured whole-suite pass (test/timings.json,
 * written by `node .ci/slowest.mjs --save test/timings.json report.json`).
 */
const timings: Record<string, number> = JSON.parse(readFileSync(new URL('timings.json', import.meta.url), 'utf8'));
/** A file the timings do not know yet (a new one) counts as long: it starts early rather than last. */
const UNKNOWN_S = 30;

/**
 * Longest file first. Two workers share the files; a pass ends when the last
 * file ends, so a long file started late (vitest's default order in a fresh
 * clone is by size: fleet.test.ts started 73 s into a 489 s pass) stretches
 * it, while the many short files fill the gaps at the end. The files of the
 * `unit` project come after all others (longest first among them): a worker
 * is kept for the next file only when the next file in the queue runs in the
 * same kind of worker (a process for `e2e`, a thread for `unit`).
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (f: TestSpecification) => timings[relative(root, f.moduleId).split('\\').join('/')] ?? UNKNOWN_S;
    const shared = (f: TestSpecification) => (f.project.name === 'unit' ? 1 : 0);
    return [...files].sort((a, b) => shared(a) - shared(b) || seconds(b) - seconds(a) || a.moduleId.localeCompare(b.moduleId));
  }
}

/**
 * Node 20 reads and parses NODE_EXTRA_CA_CERTS when each process starts (Node
 * 22 and later when TLS first needs it): with the system bundle there, as on
 * this project's machines, about 50 ms of CPU for each of the hundred test
 * processes. They start without it; test/setup-env.ts puts it back into
 * their environment for what they run themselves (npm, gh, the SDKs);
 * test/e2e/harness.ts keeps it from the CLI and the emulators.
 */
const extraCaCerts = process.env.NODE_EXTRA_CA_CERTS;
delete process.env.NODE_EXTRA_CA_CERTS;

export default defineConfig({
  root,
  test: {
    setupFiles: ['test/setup-env.ts'],
    env: extraCaCerts === undefined ? {} : { VITEST_NODE_EXTRA_CA_CERTS: extraCaCerts },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The built library and emulator (dist/lib/, ES modules) are loaded by Node, as a program importing the package
    // loads them, not transformed again by vitest for every file that imports them (test/e2e/in-process-emulator.ts).
    server: { deps: { external: [/\/dist\/lib\//] } },
    sequence: { sequencer: LongestFirst },
    projects: [
      // Tests that start processes and servers (the built CLI, the emulator, Chromium, squid, gnome-keyring): a
      // fresh process per file, as before. Kept from file to file (isolate: false) they spent less CPU (28 s
      // against 34 s on 16 small e2e and fault files, all passing), but whatever one file leaves running (a
      // child's late 'close', a timer) would then fail the next one: not done.
      {
        extends: true,
        test: { name: 'e2e', include: ['test/**/*.test.ts'], exclude: ['test/unit/**', 'test/published/**'] },
      },
      // Tests in this process only (fakes, stub servers, the in-process emulator): one worker thread each keeps
      // its modules from file to file instead of a fresh process importing the sources again for every file
      // (test/unit on 2 workers: 82 s and 23 s of CPU against 148 s and 55 s, the machine shared; 2026-11-28).
      // So a test that changes process.env or a global puts it back (delete a variable that was unset: assigning
      // undefined sets the string "undefined").
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'test/published/**/*.test.ts'], pool: 'threads', isolate: false },
      },
    ],
    // `npm run test:coverage` (off by default: it slows every run): what the unit tests cover of the library and the CLI.
    coverage: {
      provider: 'v8',
      include: ['src/core/**', 'src/cli/**'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'coverage',
    },
  },
});
