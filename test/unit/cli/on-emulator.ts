/**
 * Commands run as run functions against the in-process emulator: real HTTP,
 * no spawn. The context is contextOnFakes with the emulator's profile, a
 * MemoryCredentialStore and an HTTP client on a LinkedClock (test/fakes/linked-clock.ts): every sleep
 * of the command moves the emulator's clock by as much, so intervals,
 * expiries and retry-after pass at once on both sides.
 */
import { afterEach, beforeEach } from 'vitest';
import type { Context } from '../../../src/cli/context.js';
import { exitCodeFor, formatError } from '../../../src/cli/errors/exit.js';
import { Output } from '../../../src/cli/output/output.js';
import { prepareShaping } from '../../../src/cli/shape/prepare.js';
import type { Browser } from '../../../src/core/deps.js';
import type { ProfileSettings } from '../../../src/core/config/settings.js';
import { HttpClient } from '../../../src/core/http/client.js';
import type { RunningEmulator } from '../../../src/emulator/index.js';
import { useInProcessEmulator } from '../../e2e/in-process-emulator.js';
import { contextOnFakes } from '../../fakes/context.js';
import { MemoryCredentialStore } from '../../fakes/credential-store.js';
import { LinkedClock } from '../../fakes/linked-clock.js';
import { createTestIO, type TestIO } from '../../fakes/io.js';

export interface CommandResult {
  /** The exit code main would give. */
  code: number;
  stdout: string;
  /** What the command wrote on stderr, then main's error line (and hint). */
  stderr: string;
  err: unknown;
  io: TestIO;
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  /** Settings added to (or, undefined, removed from) the emulator's profile. */
  settings?: Record<string, string | undefined>;
  /** The profile's settings instead of the emulator's (and the name it goes by: default `emulator`). */
  profile?: ProfileSettings;
  profileName?: string;
  /** The output format (as --json / --ndjson would set it). */
  format?: 'json' | 'ndjson';
  /** --jq or --template (with `format`). */
  jq?: string;
  template?: string;
  stdin?: string;
  tty?: boolean;
}

export interface EmulatorCommands {
  readonly emu: RunningEmulator;
  readonly store: MemoryCredentialStore;
  readonly clock: LinkedClock;
  /** The URLs the browser port was asked to open. */
  readonly opened: string[];
  /** The emulator profile's settings. */
  profile(): ProfileSettings;
  /** Answers the newest device code (as the person would on the device page) before the command's `nth` sleep. */
  answerDevice(nth?: number, o?: { deny?: boolean; login?: string }): void;
  /** Runs `f` (a command's run function) on a fresh context: what main would print and exit with. */
  run(f: (ctx: Context) => Promise<unknown>, o?: RunOptions): Promise<CommandResult>;
}

/** The emulator profile `lanyard emulator start` writes: every service's settings. */
export function emulatorProfile(emu: RunningEmulator): ProfileSettings {
  const settings: Record<string, string> = {};
  for (const s of Object.values(emu.info())) Object.assign(settings, (s as { profile?: ProfileSettings } | null)?.profile ?? {});
  return settings as ProfileSettings;
}

/**
 * One in-process emulator per test file (reset before each test, its device
 * interval 1 s unless `fastDevice: false`), a fresh store and clock per test.
 */
export function useEmulatorCommands(o: { fastDevice?: boolean } = {}): EmulatorCommands {
  const e = useInProcessEmulator();
  let store = new MemoryCredentialStore();
  let clock: LinkedClock | undefined;
  let http: HttpClient | undefined;
  const opened: string[] = [];
  const browser: Browser = { open: async (url) => (opened.push(url), true) };
  beforeEach(async () => {
    if (o.fastDevice !== false) await e.emu.admin('hosting', 'device-policy', { interval: 1 });
    store = new MemoryCredentialStore();
    clock = new LinkedClock(e.emu);
    http = new HttpClient({ clock, userAgent: 'lanyard-unit-test' });
    opened.length = 0;
  });
  afterEach(async () => {
    await http?.close();
  });
  const profile = () => emulatorProfile(e.emu);
  return {
    get emu() {
      return e.emu;
    },
    get store() {
      return store;
    },
    get clock() {
      return clock!;
    },
    opened,
    profile,
    answerDevice(nth = 1, a = {}) {
      let sleeps = 0;
      clock!.onSleep = async () => {
        if (++sleeps !== nth) return;
        const { devices } = (await e.emu.admin('hosting', 'devices')) as { devices: Array<{ user_code: string }> };
        await e.emu.admin('hosting', 'device-approve', {
          user_code: devices.at(-1)!.user_code,
          ...(a.deny ? { deny: true } : {}),
          ...(a.login ? { login: a.login } : {}),
        });
      };
    },
    async run(f, r = {}) {
      const io = createTestIO({ stdin: r.stdin, tty: r.tty });
      const settings: Record<string, string | undefined> = { ...(r.profile ?? profile()), ...r.settings };
      const name = r.profileName ?? 'emulator';
      for (const k of Object.keys(settings)) if (settings[k] === undefined) delete settings[k];
      const base = contextOnFakes(
        io,
        { LANYARD_KEYCHAIN: 'off', ...r.env },
        { http, credentials: store, browser, profiles: { active: name, profiles: { [name]: settings as ProfileSettings } } },
        clock,
      );
      const ctx = r.format
        ? base.forRun({
            io,
            output: new Output(io, {
              format: r.format,
              shaper: (r.jq ?? r.template) ? await prepareShaping(base, { jq: r.jq, template: r.template }) : undefined,
            }),
          })
        : base;
      const err = await f(ctx).then(
        () => undefined,
        (x: unknown) => x,
      );
      const code = err === undefined ? 0 : exitCodeFor(err);
      const line = err === undefined ? '' : `${formatError(err, false)}\n`;
      return { code, stdout: io.stdoutText(), stderr: io.stderrText() + line, err, io };
    },
  };
}

/** The user code the device flow printed on stderr. */
export const userCodeIn = (stderr: string): string => /one-time code: ([A-Z0-9]{4}-[A-Z0-9]{4})/.exec(stderr)?.[1] ?? '';
