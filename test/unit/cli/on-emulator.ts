/**
 * Commands run as run functions against the in-process emulator: real HTTP,
 * no spawn. Each run gets the context main makes (createContext: its HTTP
 * client built from the root options, so --wait/--max-wait/--timeout and
 * pacing act), on a fake credential store, a fake IO, a config directory of
 * the test's own and a clock linked to the emulator's (test/fakes/linked-clock.ts):
 * a sleep of the command moves the emulator's clock as far, so intervals,
 * expiries and retry-after pass at once on both sides. What a run returns is
 * what main would print and exit with: the IO's stdout and stderr, then the
 * error's line when it owes one, secrets redacted.
 *
 * The clock: each run has its own, as each process has (its `sleeps` and
 * `monotonic()` are that run's), made when the run starts, at the emulator's
 * time then. `cmd.clock` is the next run's clock: set it up before the run
 * (`onSleep`, `coupled = false`, `autoAdvance = false`), move it (and the
 * emulator with it) between runs, or drive it while the run waits; the run
 * that used it returns it as `clock`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { type Context, createContext, type GlobalOptions } from '../../../src/cli/context.js';
import { exitCodeFor, formatError, owesErrorLine } from '../../../src/cli/errors/exit.js';
import { Output, type OutputFormat } from '../../../src/cli/output/output.js';
import { prepareShaping } from '../../../src/cli/shape/prepare.js';
import { Secrets } from '../../../src/cli/terminal/terminal-text.js';
import type { ProfileSettings } from '../../../src/core/config/settings.js';
import type { Browser, CredentialStore } from '../../../src/core/deps.js';
import type { RunningEmulator, StartEmulatorOptions } from '../../../src/emulator/index.js';
import { useInProcessEmulator } from '../../e2e/in-process-emulator.js';
import { MemoryCredentialStore } from '../../fakes/credential-store.js';
import { LinkedClock } from '../../fakes/linked-clock.js';
import { createTestIO, type TestIO } from '../../fakes/io.js';

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  /** The root options (--debug, --wait, --max-wait, --timeout, --profile …). */
  globals?: GlobalOptions;
  /** The output format the root hook would make from --json/--ndjson. */
  format?: OutputFormat;
  /** --jq or --template (with `format`). */
  jq?: string;
  template?: string;
  tty?: boolean;
  stdin?: string;
  /** The credential store (default: the test's, `cmd.store`). */
  credentials?: CredentialStore;
  /** The browser the sign-in pages are handed to (default: one that records the URLs in `cmd.opened`; test/fakes/consent-browser.ts answers them). */
  browser?: Browser;
  /** This run's clock waits until the test advances it instead of passing at once (a sign-in waiting for the browser, whose time-out is a sleep). */
  manualClock?: boolean;
  /** This run's clock this far from the emulator's (default 0). */
  clockOffsetMs?: number;
  /** The name of the profile (default "emulator"). */
  profile?: string;
  /** The profile's settings instead of the emulator's. */
  profileSettings?: ProfileSettings;
  /** Settings laid over the profile's (a key set to undefined is left out). */
  settings?: Partial<Record<string, string | undefined>>;
  /** Aborts the run (Ctrl-C) once this holds of what it printed so far (asked every 5 ms). */
  interruptWhen?: (io: TestIO) => boolean;
}

export interface RunResult {
  /** The exit code main would give. */
  code: number;
  stdout: string;
  /** What the command wrote on stderr, then main's error line (and hint) when it owes one; secrets redacted. */
  stderr: string;
  err: unknown;
  ctx: Context;
  io: TestIO;
  /** This run's clock (its sleeps, its monotonic time). */
  clock: LinkedClock;
}

export interface EmulatorCommands {
  readonly emu: RunningEmulator;
  /** The settings of the "emulator" profile `lanyard emulator start` writes. */
  settings(): ProfileSettings;
  /** The credential store shared by the runs of a test (new for each test; a test may hand in another). */
  store: MemoryCredentialStore;
  /** The next run's clock (made on first use, at the emulator's time then); see the file's comment. */
  readonly clock: LinkedClock;
  /** The URLs the default browser was asked to open in this test. */
  readonly opened: string[];
  /** Answers the newest device code (as the person would on the device page) before the next run's `nth` sleep. */
  answerDevice(nth?: number, o?: { deny?: boolean; login?: string }): void;
  /** Runs `f` (a command's run function) on a fresh context: what main would print and exit with. */
  run(f: (ctx: Context) => Promise<unknown>, o?: RunOptions): Promise<RunResult>;
}

/**
 * One in-process emulator per test file (reset before each test unless
 * `resetEach: false`: a file whose tests build on each other); its device
 * interval 1 s unless `fastDevice: false`; a fresh store, config directory
 * and browser record per test.
 */
export function useEmulatorCommands(options: StartEmulatorOptions = {}, o: { resetEach?: boolean; fastDevice?: boolean } = {}): EmulatorCommands {
  const ref = useInProcessEmulator(options, o);
  let dir = '';
  let next: LinkedClock | undefined;
  const opened: string[] = [];
  const recording: Browser = { open: async (url) => (opened.push(url), true) };
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lanyard-unit-emu-'));
    commands.store = new MemoryCredentialStore();
    next = undefined;
    opened.length = 0;
    if (o.fastDevice !== false) await ref.emu.admin('hosting', 'device-policy', { interval: 1 });
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const settings = (): ProfileSettings => {
    const s: ProfileSettings = {};
    for (const v of Object.values(ref.emu.info())) Object.assign(s, (v as { profile?: ProfileSettings } | null)?.profile ?? {});
    return s;
  };
  /** The run's clock: the one set up as `cmd.clock`, else a new one (with the run's own settings). */
  const clockFor = (r: RunOptions): LinkedClock => {
    const own = r.manualClock !== undefined || r.clockOffsetMs !== undefined;
    if (own && next) throw new Error('a run with manualClock/clockOffsetMs makes its own clock: set up cmd.clock or those, not both');
    const clock = next ?? new LinkedClock(ref.emu, { autoAdvance: !r.manualClock, offsetMs: r.clockOffsetMs });
    next = undefined;
    return clock;
  };
  const commands: EmulatorCommands = {
    get emu() {
      return ref.emu;
    },
    settings,
    store: new MemoryCredentialStore(),
    get clock() {
      next ??= new LinkedClock(ref.emu);
      return next;
    },
    opened,
    answerDevice(nth = 1, a = {}) {
      let sleeps = 0;
      commands.clock.onSleep = async () => {
        if (++sleeps !== nth) return;
        const { devices } = (await ref.emu.admin('hosting', 'devices')) as { devices: Array<{ user_code: string }> };
        await ref.emu.admin('hosting', 'device-approve', {
          user_code: devices.at(-1)!.user_code,
          ...(a.deny ? { deny: true } : {}),
          ...(a.login ? { login: a.login } : {}),
        });
      };
    },
    async run(f, r = {}) {
      const clock = clockFor(r);
      const io = createTestIO({ tty: r.tty, stdin: r.stdin });
      const abort = new AbortController();
      const secrets = new Secrets();
      const env = { LANYARD_CONFIG_DIR: dir, LANYARD_KEYCHAIN: 'off', ...r.env };
      secrets.rememberEnv(env);
      const name = r.profile ?? 'emulator';
      const profile = Object.fromEntries(Object.entries({ ...(r.profileSettings ?? settings()), ...r.settings }).filter(([, v]) => v !== undefined));
      const base = createContext({
        io,
        env,
        signal: abort.signal,
        version: '0.0.0',
        globals: () => r.globals ?? {},
        clock,
        secrets,
        ports: {
          credentials: r.credentials ?? commands.store,
          browser: r.browser ?? recording,
          profiles: { active: name, profiles: { [name]: profile as ProfileSettings } },
        },
      });
      const shaper = (r.jq ?? r.template) ? await prepareShaping(base, { jq: r.jq, template: r.template }) : undefined;
      const ctx = r.format ? base.forRun({ io, output: new Output(io, { format: r.format, shaper }) }) : base;
      const watch = r.interruptWhen && setInterval(() => r.interruptWhen!(io) && abort.abort(), 5);
      const err = await f(ctx).then(
        () => undefined,
        (e: unknown) => e,
      );
      if (watch) clearInterval(watch);
      await ctx.close();
      const code = err === undefined ? 0 : exitCodeFor(err);
      const line = err !== undefined && owesErrorLine(err, code) ? `${formatError(err, false)}\n` : '';
      return { code, stdout: io.stdoutText(), stderr: secrets.redact(io.stderrText() + line), err, ctx, io, clock };
    },
  };
  return commands;
}

/** The user code the device flow printed on stderr. */
export const userCodeIn = (stderr: string): string => /one-time code: ([A-Z0-9]{4}-[A-Z0-9]{4})/.exec(stderr)?.[1] ?? '';
