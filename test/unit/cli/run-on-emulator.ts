/**
 * Command run functions against the in-process emulator (real HTTP, no
 * spawn): the context is the one main makes (its HTTP client built from the
 * root options, so --wait/--max-wait/--timeout act), on a fake credential
 * store, a fake IO and a clock linked to the emulator's — a sleep of the
 * command moves the emulator's clock as far, so waits for a reset or a
 * retry-after take no wall time. What is printed is what main would print:
 * the IO's stdout and stderr, then the error's line when it owes one.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type Context, createContext, type GlobalOptions } from '../../../src/cli/context.js';
import { exitCodeFor, formatError, owesErrorLine } from '../../../src/cli/errors/exit.js';
import { Output, type OutputFormat } from '../../../src/cli/output/output.js';
import { Secrets } from '../../../src/cli/terminal/terminal-text.js';
import type { ProfileSettings } from '../../../src/core/config/settings.js';
import type { Browser, CredentialStore } from '../../../src/core/deps.js';
import type { RunningEmulator, StartEmulatorOptions } from '../../../src/emulator/index.js';
import { useInProcessEmulator } from '../../e2e/in-process-emulator.js';
import { MemoryCredentialStore } from '../../fakes/credential-store.js';
import { LinkedClock } from '../../fakes/linked-clock.js';
import { createTestIO, type TestIO } from '../../fakes/io.js';

export interface RunOn {
  env?: NodeJS.ProcessEnv;
  globals?: GlobalOptions;
  /** The output format the root hook would make from --json/--ndjson. */
  format?: OutputFormat;
  tty?: boolean;
  stdin?: string;
  credentials?: CredentialStore;
  /** The browser the sign-in pages are handed to (test/fakes/consent-browser.ts). */
  browser?: Browser;
  /**
   * Sleeps wait until the test advances the clock instead of passing at once
   * (a sign-in waiting for the browser, whose time-out is a sleep).
   */
  manualClock?: boolean;
  /** The command's clock this far from the emulator's (default 0). */
  clockOffsetMs?: number;
  /** The name of the profile (default "emulator"). */
  profile?: string;
  /** Settings laid over the emulator profile's (a key set to undefined is left out). */
  settings?: Partial<Record<string, string | undefined>>;
  /** Aborts the run (Ctrl-C) once this holds of what it printed so far (asked every 5 ms). */
  interruptWhen?: (io: TestIO) => boolean;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  err: unknown;
  ctx: Context;
  io: TestIO;
  clock: LinkedClock;
}

export interface EmulatorCommands {
  readonly emu: RunningEmulator;
  /** The settings of the "emulator" profile `lanyard emulator start` writes. */
  settings(): ProfileSettings;
  /** The credential store shared by the runs of a test (new for each test unless handed in). */
  store: MemoryCredentialStore;
  run(f: (ctx: Context) => Promise<unknown>, o?: RunOn): Promise<RunResult>;
}

/** `resetEach: false`: the emulator keeps its state from test to test (a file whose tests build on each other). */
export function useEmulatorCommands(options: StartEmulatorOptions = {}, o: { resetEach?: boolean } = {}): EmulatorCommands {
  const ref = useInProcessEmulator(options, o);
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lanyard-unit-emu-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const settings = (): ProfileSettings => {
    const s: ProfileSettings = {};
    for (const v of Object.values(ref.emu.info())) Object.assign(s, (v as { profile?: ProfileSettings } | null)?.profile ?? {});
    return s;
  };
  const commands: EmulatorCommands = {
    get emu() {
      return ref.emu;
    },
    settings,
    store: new MemoryCredentialStore(),
    async run(f, o = {}) {
      const io = createTestIO({ tty: o.tty, stdin: o.stdin });
      const clock = new LinkedClock(ref.emu, { autoAdvance: !o.manualClock, offsetMs: o.clockOffsetMs });
      const abort = new AbortController();
      const secrets = new Secrets();
      const env = { LANYARD_CONFIG_DIR: dir, ...o.env };
      secrets.rememberEnv(env);
      const profile = Object.fromEntries(Object.entries({ ...settings(), ...o.settings }).filter(([, v]) => v !== undefined)) as ProfileSettings;
      const ctx = createContext({
        io,
        env,
        signal: abort.signal,
        version: '0.0.0',
        globals: () => o.globals ?? {},
        clock,
        secrets,
        ...(o.format ? { output: new Output(io, { format: o.format }) } : {}),
        ports: {
          credentials: o.credentials ?? commands.store,
          ...(o.browser ? { browser: o.browser } : {}),
          profiles: { active: o.profile ?? 'emulator', profiles: { [o.profile ?? 'emulator']: profile } },
        },
      });
      const watch = o.interruptWhen && setInterval(() => o.interruptWhen!(io) && abort.abort(), 5);
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
  beforeEach(() => {
    commands.store = new MemoryCredentialStore();
  });
  return commands;
}
