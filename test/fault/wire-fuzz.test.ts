/**
 * Property-based fuzzing (fast-check) of every wire type's answers: one
 * field of a well-formed answer (or the whole answer) replaced by another
 * type, `null`, a huge value or a string of terminal controls, served by the
 * hostile server to the command that reads it. Run in process through the
 * same parse → run → error line path as main.ts, on a terminal-like IO that
 * writes through the terminal sanitiser as io.ts does (streams written
 * directly are not sanitised, so a bypass shows). The property: exit 0 or 1;
 * on exit 1 one error line on stderr
 * (and at most one line of advice); never "unexpected error" or a stack trace;
 * no raw control character in what reaches the terminal. Seeded, a fixed
 * number of runs per command, so a failure repeats and the time is bounded.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { IO } from '../../src/cli/io.js';
import { Secrets, terminalText } from '../../src/cli/terminal/terminal-text.js';
import { createTestIO } from '../fakes/io.js';
import { hostileWorld, type HostileWorld } from './hostile.js';
import { inProcessEnv, runInProcess } from './in-process.js';
import * as samples from './wire-samples.js';
import { type Answers, MESSAGE_ID, serveAnswers, TRACKING_ID, withField } from './wire-samples.js';

const SEED = 29;
/** Runs per wire type: a protocol run makes three POSTs, and content-creating requests are paced at 80 a minute per origin. */
const RUNS = 20;

/** The world of the wire type under test: its own server origin and config directory, so the pacing of one does not hold up the next. */
let w: HostileWorld;

/** Controls a terminal acts on (the sanitiser keeps newlines and tabs; colour is off). */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** Every path in `value` (objects and arrays, the root too): the places a field can be spoiled. */
function pathsOf(value: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  const out = [at];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...pathsOf(v, [...at, i])));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...at, k]));
  return out;
}

const controls = fc.string({
  unit: fc.constantFrom('\u001b', '\u0007', '\u009b', '\u0085', '\r', '\n', '\u0000', '\u202e', '\u007f', ']0;', '[2J', 'a', ' '),
  maxLength: 24,
});
/** What a field becomes: another type, null, a huge value, controls. */
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.constantFrom(1e308, -1, 0, Number.MAX_SAFE_INTEGER + 2, 2 ** 53),
  fc.double({ noNaN: true }),
  controls,
  fc.constant('x'.repeat(256 * 1024)),
  fc.constant(`${'\u001b[2J'.repeat(4096)}`),
  fc.array(fc.oneof(fc.constant(null), fc.integer(), controls), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.constant(null), fc.integer(), controls), { maxKeys: 3 }),
  fc.constant({}),
  fc.constant([]),
);

/** Runs argv as main.ts does, in this process, on a terminal-like IO; a run still going after 30 s is interrupted (exit 130: fails). */
async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const t = createTestIO({ tty: true, stdin: '', columns: 100 });
  // What createProcessIO and main do on a terminal: the sanitiser on every text write, Secrets.safe on diagnostics.
  const io: IO = {
    ...t,
    out: (s) => t.out(terminalText(s)),
    print: (s) => t.print(terminalText(s)),
    err: (s) => t.err(terminalText(new Secrets().safe(s))),
    printErr: (s) => t.printErr(terminalText(s)),
  };
  const code = await runInProcess(argv, io, { ...inProcessEnv(w.configDir), LANYARD_PAGER: '' }, 30_000);
  return { code, stdout: t.stdoutText(), stderr: t.stderrText() };
}

/** [wire type, the command that reads it, its well-formed answer, where the answer goes]. */
const TYPES: Array<[string, string[], () => unknown, keyof Answers]> = [
  ['health events list', ['health', 'events'], samples.healthPage, 'health'],
  ['health event (detail)', ['health', 'event', TRACKING_ID], samples.healthPage, 'health'],
  ['mailbox list (metadata)', ['mailbox', 'list', '--metadata'], samples.mailboxList, 'mailboxList'],
  ['mailbox list (ids)', ['mailbox', 'list'], () => [MESSAGE_ID], 'mailboxList'],
  ['mailbox get', ['mailbox', 'get', MESSAGE_ID], samples.mailboxMetadata, 'mailboxGet'],
  ['echo message', ['echo', 'send', 'hi'], () => ({ message: 'hi' }), 'echo'],
  ['hosting rate limit', ['ratelimit', 'status'], () => ({ resources: { core: { limit: 5000, used: 1, remaining: 4999, reset: 1900000000 } } }), 'rateLimit'],
  ['protocol initialize', ['protocol', 'request'], samples.initializeResult, 'initialize'],
  ['protocol tools/list', ['protocol', 'request', '--method', 'tools/list'], samples.toolsListResult, 'tools'],
];

describe('fuzzed answers of every wire type (fast-check, seeded)', () => {
  it.each(TYPES)(
    '%s',
    async (_name, argv, sample, slot) => {
      w = await hostileWorld();
      try {
        const paths = pathsOf(sample());
        await fc.assert(
          fc.asyncProperty(fc.constantFrom(...paths), hostileValue, async (path, value) => {
            const body = path.length ? withField(sample(), path, value) : value;
            w.server.handle(serveAnswers({ [slot]: body }));
            const r = await run(argv);
            const where = `${argv.join(' ')} with ${JSON.stringify(path)} = ${JSON.stringify(value)?.slice(0, 80)}:\n${r.stderr.slice(0, 500)}`;
            expect([0, 1], where).toContain(r.code);
            expect(r.stderr, where).not.toMatch(/unexpected error/);
            expect(r.stderr, where).not.toMatch(/^\s+at .+[(:]\d+/m);
            // The error's one line, and at most one line of advice after it (formatError's hint).
            if (r.code === 1) expect(r.stderr.trimEnd().split('\n').length, where).toBeLessThanOrEqual(2);
            expect(RAW_CONTROL.test(r.stdout + r.stderr), where).toBe(false);
          }),
          { seed: SEED, numRuns: RUNS, endOnFailure: true },
        );
      } finally {
        await w.close();
      }
    },
    180_000,
  );
});
