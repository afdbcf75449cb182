/**
 * The factory of dependencies handed to every command (cli/cli's Factory):
 * cheap things eagerly, costly ones (config file, HTTP pool, keychain) lazily.
 * Each port is built by a plain function of its own: the profiles
 * (profile-source.ts), the HTTP client (http-port.ts), the credential storage
 * (credential-port.ts).
 */
import type { Browser, Clock, CredentialStore } from '../core/deps.js';
import type { HttpClient } from '../core/http/client.js';
import type { CredentialLock } from '../core/credentials/lock.js';
import type { KeychainOpening } from '../core/credentials/keychain-open.js';
import type { Preconnected } from '../core/http/transport.js';
import type { RateLimitState } from '../core/ratelimit/headers.js';
import type { ProfileSettings } from '../core/config/settings.js';
import { ConfigError } from '../core/errors.js';
import { systemClock } from '../core/system-clock.js';
import type { IO } from './io.js';
import { Output } from './output/output.js';
import { parseDuration } from './option-parse.js';
import { Secrets } from './terminal/terminal-text.js';
import { type GivenProfiles, type ProfileDoors, profileDoors } from './ports/profile-source.js';
import { type CredentialStorageOpening, type CredentialStoragePort, givenStoragePort, openStoragePort, type StorageEnv } from './ports/credential-port.js';
import { buildHttpClient } from './ports/http-port.js';

export type { CredentialStoragePort, CredentialStorageOpening } from './ports/credential-port.js';

import type { GlobalOptions } from './root-options.js';

export type { GlobalOptions };

export interface Context extends ProfileDoors {
  readonly io: IO;
  readonly env: NodeJS.ProcessEnv;
  readonly clock: Clock;
  /** Aborted on Ctrl-C. */
  readonly signal: AbortSignal;
  readonly version: string;
  readonly debug: boolean;
  globals(): GlobalOptions;
  /** The working directory the command runs in (directory bindings are matched against it). */
  readonly cwd: string;
  http(): Promise<HttpClient>;
  /**
   * The credential storage port: the OS keychain, else the 0600 file, opened
   * once per process and shared by every service (one keychain probe);
   * `insecure` (`--insecure-storage`) takes the file without probing. The
   * opening's `idle` resolves when opening leaves this process idle — the
   * keychain's search is under way — so CPU work that can wait (loading
   * modules) runs then instead of before the search.
   */
  credentialStorage(o?: { insecure?: boolean }): CredentialStorageOpening;
  /**
   * The cross-process lock of the config directory: credential refreshes and
   * store writes hold it, and so do config writes and pacing (hence a port of
   * its own, beside the storage).
   */
  /**
   * `o.waitMs`: how long this caller waits for a lock another process holds
   * (a command whose sign-in can outlast the default); LANYARD_LOCK_WAIT wins
   * over it, and without either the lock waits 60 s.
   */
  credentialLock(o?: { waitMs?: number }): Promise<CredentialLock>;
  /** warn(), at most once per process for a given key (the keychain fallback is said once, whoever notices it). */
  warnOnce(key: string, text: string): void;
  browser(): Promise<Browser>;
  /** The latest rate-limit state seen per resource (headers win over /rate_limit). */
  readonly rateLimits: Map<string, RateLimitState>;
  /** The secrets of this run, redacted from every warning and (in main) every line on stderr. */
  readonly secrets: Secrets;
  /** Writes a warning on stderr (yellow on a colour terminal). */
  warn(text: string): void;
  /**
   * Says the exit status the run will end with, before it writes the output
   * that decided it (a CI gate that failed, a budget check, an error whose
   * body is printed): should stdout's reader go away meanwhile (`| head`),
   * the process ends with this status instead of 0 (main's broken-pipe exit
   * asks `exitStatus`). The run still throws its error or ExitStatus after
   * writing, as usual. Shared by every context of the process.
   */
  exitWith(status: number): void;
  /** The status `exitWith` said last, if any. */
  exitStatus(): number | undefined;
  /**
   * The run's output, fixed when the context is made: a command's context
   * (`forRun`, made by its action after parsing) has the one its `--json`,
   * `--ndjson`, `--jq`, `--template` and the pager chose; a context made
   * without one prints for a person to its IO.
   */
  readonly output: Output;
  /**
   * The context of one command's run, made by its action after parsing
   * (command-kit.ts's `runs`): a new context on this one's ports (the same
   * HTTP pool, storage, lock, profiles, secrets) with the run's IO (the
   * pager's decorator when paged) and Output. Nothing is written into either.
   */
  forRun(run: { io: IO; output: Output }): Context;
  /** Closes pools; called by main before exit. */
  close(): Promise<void>;
}

export interface ContextOptions {
  io: IO;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  version: string;
  globals: () => GlobalOptions;
  clock?: Clock;
  /** The working directory (main: process.cwd()); none: no directory binding applies. */
  cwd?: string;
  /** The keychain's opening, when bin/lanyard.js started it before the CLI loaded (see keychain-prefetch.ts). */
  keychain?: KeychainOpening;
  /** The API's connection, when bin/lanyard.js opened it before the CLI loaded (see connection-prefetch.ts). */
  preconnected?: Preconnected;
  /** The secrets to redact from diagnostics (main's, which also redacts its own error line); default: a new set. */
  secrets?: Secrets;
  /** Ports handed in instead of the defaults (command tests use fakes: no config directory, keychain or network set-up). */
  ports?: ContextPorts;
  /** The output (default: human output to `io`). */
  output?: Output;
  /** Told of each command's context as `forRun` makes it (main: to wait for its pager before exiting). */
  onRun?: (run: Context) => void;
}

/** The ports of a context a caller may hand in; each one left out is built from the environment as usual. */
export interface ContextPorts {
  /** The HTTP client (default: built from the profile, the environment and the root options). */
  http?: HttpClient;
  /** The credential store the storage port is built from (default: the OS keychain, else the 0600 file); the only one looked in. */
  credentials?: CredentialStore;
  /** The browser opener (default: LANYARD_BROWSER, else the system's). */
  browser?: Browser;
  /** The profiles (default: the config file). */
  profiles?: GivenProfiles;
}

/** What every context of a process shares (the root's and each command's): all but its IO and Output. */
type Shared = Omit<Context, 'io' | 'output' | 'debug' | 'forRun'>;

export function createContext(o: ContextOptions): Context {
  const warned = new Set<string>();
  const secrets = o.secrets ?? new Secrets();
  const debug = () => !!o.globals().debug || o.env.LANYARD_DEBUG === '1';
  const trace = () => (debug() ? (line: string) => o.io.err(line) : undefined);
  let lockP: Promise<CredentialLock> | undefined;
  const lock = () => (lockP ??= openLock(o.env, ports.configDir()));
  let decided: number | undefined;
  // What every context of this process shares (the root's and each command's): the ports and their caches.
  const ports: Shared = {
    env: o.env,
    clock: o.clock ?? systemClock,
    signal: o.signal,
    version: o.version,
    cwd: o.cwd ?? '',
    globals: o.globals,
    rateLimits: new Map<string, RateLimitState>(),
    secrets,
    ...profileDoors({ env: o.env, flag: () => o.globals().profile, cwd: o.cwd, given: o.ports?.profiles, lock }),
    warn(text) {
      const line = secrets.safe(`! ${text}`);
      o.io.printErrStyled(o.io.color ? `\u001b[33m${line}\u001b[39m\n` : `${line}\n`);
    },
    exitWith(status) {
      decided = status;
    },
    exitStatus: () => decided,
    warnOnce(key, text) {
      if (warned.has(key)) return;
      warned.add(key);
      ports.warn(text);
    },
    credentialStorage: storageDoor(o, () => ports, lock, trace),
    credentialLock: (lo = {}) => (lo.waitMs === undefined || o.env.LANYARD_LOCK_WAIT ? lock() : lock().then((l) => waitingFor(l, lo.waitMs!))),
    ...httpDoor(o, () => ports, lock, trace),
    async browser() {
      return o.ports?.browser ?? (await import('./terminal/browser.js')).createBrowser(o.env);
    },
  };
  const make = (io: IO, output: Output): Context =>
    Object.freeze({
      ...ports,
      io,
      output,
      get debug() {
        return debug();
      },
      forRun(run: { io: IO; output: Output }) {
        const made = make(run.io, run.output);
        o.onRun?.(made);
        return made;
      },
    });
  return make(o.io, o.output ?? new Output(o.io));
}

/** A profile that does not exist is reported by the command that needs it: the ports built from it take no settings then. */
const settingsOf = (ctx: Pick<Context, 'profile'>): Promise<ProfileSettings> =>
  ctx.profile().then(
    (p) => p.settings,
    () => ({}),
  );

/** `ctx.http()`, built once (or the client handed in), and `ctx.close()`, which closes its pools. */
function httpDoor(
  o: ContextOptions,
  self: () => Shared,
  lock: () => Promise<CredentialLock>,
  trace: () => StorageEnv['trace'],
): Pick<Context, 'http' | 'close'> {
  let httpP: Promise<HttpClient> | undefined;
  return {
    http() {
      if (o.ports?.http) return Promise.resolve(o.ports.http);
      const ctx = self();
      httpP ??= Promise.all([lock(), ctx.configDir(), settingsOf(ctx)]).then(([lk, configDir, settings]) =>
        buildHttpClient({
          ...o,
          clock: ctx.clock,
          globals: o.globals(),
          settings,
          configDir,
          lock: lk,
          trace: trace(),
          rateLimits: ctx.rateLimits,
          warn: ctx.warn,
          warnOnce: ctx.warnOnce,
          secrets: ctx.secrets,
        }),
      );
      return httpP;
    },
    async close() {
      // A client that failed to build (bad --max-wait) was already reported: nothing to close.
      if (httpP) await httpP.then((h) => h.close()).catch(() => undefined);
    },
  };
}

/**
 * The config directory's lock; LANYARD_LOCK_WAIT, else the lock's default (a caller may ask for its own wait:
 * waitingFor). Without a config directory (profiles handed in), this process's own.
 */
async function openLock(env: NodeJS.ProcessEnv, configDir: Promise<string | undefined>): Promise<CredentialLock> {
  const [{ FileLock, ProcessLock }, dir] = await Promise.all([import('../core/credentials/lock.js'), configDir]);
  if (dir === undefined) return new ProcessLock();
  const waitMs = env.LANYARD_LOCK_WAIT ? parseDuration(env.LANYARD_LOCK_WAIT, 'LANYARD_LOCK_WAIT') : undefined;
  return new FileLock(dir, waitMs === undefined ? {} : { waitMs });
}

/** The lock, waiting `waitMs` for each lock it takes unless the caller says otherwise. */
const waitingFor = (lock: CredentialLock, waitMs: number): CredentialLock => ({
  withLock: (name, f, o) => lock.withLock(name, f, { waitMs: o?.waitMs ?? waitMs }),
});

/**
 * `ctx.credentialStorage(o)`: one opening per `insecure`, shared by every
 * service; a store handed in (`ports.credentials`) is the port's only store.
 */
function storageDoor(
  o: ContextOptions,
  self: () => Shared,
  lock: () => Promise<CredentialLock>,
  trace: () => StorageEnv['trace'],
): Context['credentialStorage'] {
  const env: Omit<StorageEnv, 'onWaiting'> = {
    env: o.env,
    // The 0600 file's directory: with profiles handed in and no config directory, a store must be handed in too.
    // (Not the config file's directory: with profiles handed in that "path" is a label, whose dirname is the cwd.)
    configDir: async () => {
      const dir = await self().configDir();
      if (dir === undefined) throw new ConfigError('no config directory to keep credentials in: hand in a credential store, or set LANYARD_CONFIG_DIR');
      return dir;
    },
    lock,
    // LANYARD_KEYCHAIN=required, else the profile's `keychain required`: never the 0600 file; named as the one that requires it.
    keychainRequired: async () => {
      if (o.env.LANYARD_KEYCHAIN) return o.env.LANYARD_KEYCHAIN === 'required' ? 'LANYARD_KEYCHAIN=required' : undefined;
      const p = await self()
        .profile()
        .catch(() => undefined);
      return p?.settings.keychain === 'required' ? `profile "${p.name}": keychain required` : undefined;
    },
    ...(o.keychain ? { keychain: o.keychain } : {}),
    warnOnce: (key, text) => self().warnOnce(key, text),
    remember: (secret) => self().secrets.remember(secret),
    get trace() {
      return trace();
    },
  };
  const openings = new Map<boolean, Promise<CredentialStoragePort>>();
  let idle!: () => void;
  const waiting = new Promise<void>((resolve) => (idle = resolve));
  return (so = {}) => {
    const insecure = !!so.insecure || o.env.LANYARD_INSECURE_STORAGE === '1';
    let p = openings.get(insecure);
    if (!p) {
      const given = o.ports?.credentials;
      p = given
        ? self()
            .configDir()
            .then((dir) => givenStoragePort(given, dir ?? '(no config directory)'))
        : openStoragePort({ ...env, onWaiting: idle }, insecure);
      // A store that fails to open ends the wait too.
      p.then(idle, idle);
      openings.set(insecure, p);
    }
    return Object.assign(p, { idle: waiting });
  };
}
