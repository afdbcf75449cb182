/**
 * The factory of dependencies handed to every command (cli/cli's Factory):
 * cheap things eagerly, costly ones (config file, HTTP pool, keychain) lazily.
 */
import { dirname, join } from 'node:path';
import type { Browser, Clock, CredentialStore } from '../core/deps.js';
import type { HttpClient } from '../core/http/client.js';
import type { FileCredentialStore } from '../core/credentials/file-store.js';
import type { CredentialLock } from '../core/credentials/lock.js';
import type { KeychainOpening } from '../core/credentials/keychain-open.js';
import { keychainTimeoutMs } from './keychain-env.js';
import type { ConfigReader, ConfigStore } from '../core/config/store.js';
import type { ProfileSettings } from '../core/config/settings.js';
import { type DirBinding, type ProfileSelection, selectProfile } from '../core/config/bindings.js';
import type { RateLimitState } from '../core/ratelimit/headers.js';
import { ConfigError } from '../core/errors.js';
import { systemClock } from '../core/system-clock.js';
import type { IO } from './io.js';
import { Output } from './output.js';
import { parseDuration } from './option-parse.js';
import { ciEvent, eventUrl } from './ci.js';
import { UsageError } from './usage-error.js';
import { rememberSecret, safeText } from './terminal-text.js';

/** Options every command accepts (defined on the root program). */
export interface GlobalOptions {
  profile?: string;
  debug?: boolean;
  wait?: boolean;
  maxWait?: string;
  /** Deadline of each HTTP request (`ratelimit wait`: of the wait). */
  timeout?: string;
  color?: boolean;
  /** Hosting calls use client_id:client_secret Basic auth (public data). */
  basicClient?: boolean;
}

export interface Context {
  readonly io: IO;
  readonly env: NodeJS.ProcessEnv;
  readonly clock: Clock;
  /** Aborted on Ctrl-C. */
  readonly signal: AbortSignal;
  readonly version: string;
  readonly debug: boolean;
  globals(): GlobalOptions;
  /** The config file, writable (loads conf): for commands that change it. */
  config(): Promise<ConfigStore>;
  /** The config file's path (the credential file lives in the same directory). */
  configPath(): Promise<string>;
  /** The working directory the command runs in (directory bindings are matched against it). */
  readonly cwd: string;
  /** The selected profile: --profile, LANYARD_PROFILE, the directory's binding, the active one, else "default". */
  profile(): Promise<{ name: string; settings: ProfileSettings }>;
  /** Which profile applies here and why (`profile list`, `auth status`, doctor). */
  profileSelection(): Promise<ProfileSelection>;
  /** The directory bindings of the config file. */
  bindings(): Promise<DirBinding[]>;
  /** The selected profile's name, whether or not it exists yet (config set creates it). */
  profileName(): Promise<string>;
  http(): Promise<HttpClient>;
  credentials(): Promise<CredentialStore>;
  /**
   * Where to look a credential up: the store above, then (when that is the
   * keychain) the 0600 file, which holds what was saved with --insecure-storage.
   */
  credentialsForLookup(): Promise<CredentialStore[]>;
  /**
   * The stores as opened (no warnings): the primary one (the OS keychain,
   * else the 0600 file), why the keychain is not used, and the 0600 file.
   * One keychain probe per process, shared by every service; `insecure`
   * (`--insecure-storage`) takes the file without probing.
   */
  credentialStorage(o?: { insecure?: boolean }): Promise<CredentialStorage>;
  /**
   * Resolves when opening the credential store (credentialStorage()) leaves
   * this process idle — the keychain's search is under way — so CPU work
   * that can wait (loading modules) runs then instead of before the search.
   */
  credentialStorageWaiting(): Promise<void>;
  /** The cross-process lock of the config directory (refreshes and store writes hold it). */
  credentialLock(): Promise<CredentialLock>;
  /**
   * How long to wait for a lock another process holds (a refresh, a sign-in)
   * before failing: LANYARD_LOCK_WAIT, else this (set by commands whose
   * sign-in can outlast the default, before they take the lock), else 60 s.
   */
  lockWaitMs?: number;
  /** warn(), at most once per process for a given key (the keychain fallback is said once, whoever notices it). */
  warnOnce(key: string, text: string): void;
  browser(): Promise<Browser>;
  /** The latest rate-limit state seen per resource (headers win over /rate_limit). */
  readonly rateLimits: Map<string, RateLimitState>;
  /** Writes a warning on stderr (yellow on a colour terminal). */
  warn(text: string): void;
  /**
   * The run's output: built by the root hook (command-kit.ts's prepareOutput)
   * from --json, --ndjson, --jq, --template and the pager before the run
   * function runs; human output to the IO until then.
   */
  output: Output;
  /** Closes pools; called by main before exit. */
  close(): Promise<void>;
}

/**
 * Why a profile applies: `--profile`, LANYARD_PROFILE, the active profile
 * (`lanyard profile use`), else the default. A kind may be added (a binding
 * of a directory, say); `via` names what chose it.
 */
export interface CredentialStorage {
  primary: CredentialStore;
  /** Why the keychain is not used, when it is not. */
  fallbackReason?: string;
  /** The 0600 file store (also read behind the keychain, for what --insecure-storage saved). */
  file: CredentialStore & { path: string };
  /** The directory of the config and of the file store. */
  dir: string;
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
  /** Ports handed in instead of the defaults (command tests use fakes: no config directory, keychain or network set-up). */
  ports?: ContextPorts;
}

/** The ports of a context a caller may hand in; each one left out is built from the environment as usual. */
export interface ContextPorts {
  /** The HTTP client (default: built from the profile, the environment and the root options). */
  http?: HttpClient;
  /** The credential store (default: the OS keychain, else the 0600 file); the only one looked in. */
  credentials?: CredentialStore;
  /** The browser opener (default: LANYARD_BROWSER, else the system's). */
  browser?: Browser;
  /** The profiles (default: the config file). */
  profiles?: { active?: string; profiles: Readonly<Record<string, ProfileSettings>> };
}

/** What the context reads profiles from: the config file, or the profiles handed in as a port. */
type ProfileSource = Pick<ConfigReader, 'path' | 'activeProfile' | 'profile' | 'bindings'>;

function profilesPort(p: NonNullable<ContextPorts['profiles']>): ProfileSource {
  return { path: '(profiles handed in)', activeProfile: p.active, profile: (name: string) => p.profiles[name], bindings: () => [] };
}

export function createContext(o: ContextOptions): Context {
  const clock = o.clock ?? systemClock;
  let configP: Promise<ConfigStore> | undefined;
  let readerP: Promise<ConfigReader> | undefined;
  const configOptions = { dir: o.env.LANYARD_CONFIG_DIR || undefined };
  // Reads go through the plain-JSON reader (no conf on the hot path), or
  // through the writable store once a command has opened it.
  const given = o.ports ?? {};
  const reader = (): Promise<ProfileSource> =>
    given.profiles
      ? Promise.resolve(profilesPort(given.profiles))
      : (configP ?? (readerP ??= import('../core/config/store.js').then(({ ConfigReader }) => ConfigReader.at(configOptions))));
  let httpP: Promise<HttpClient> | undefined;
  let lockP: Promise<CredentialLock> | undefined;
  let credP: Promise<CredentialStore> | undefined;
  const storageP = new Map<boolean, Promise<CredentialStorage>>();
  let storageIdle!: () => void;
  const storageWaiting = new Promise<void>((resolve) => (storageIdle = resolve));
  const warned = new Set<string>();
  const rateLimits = new Map<string, RateLimitState>();
  const debug = () => !!o.globals().debug || o.env.LANYARD_DEBUG === '1';
  // LANYARD_KEYCHAIN=required, else the profile's `keychain required`: never the 0600 file.
  const keychainRequired = async (): Promise<boolean> =>
    o.env.LANYARD_KEYCHAIN
      ? o.env.LANYARD_KEYCHAIN === 'required'
      : (await ctx.profile().then(
          (p) => p.settings.keychain,
          () => undefined,
        )) === 'required';
  const ctx: Context = {
    io: o.io,
    env: o.env,
    clock,
    signal: o.signal,
    version: o.version,
    cwd: o.cwd ?? '',
    get debug() {
      return debug();
    },
    globals: o.globals,
    rateLimits,
    output: new Output(o.io),
    warn(text) {
      const line = safeText(`! ${text}`);
      o.io.printErr(o.io.color ? `\u001b[33m${line}\u001b[39m\n` : `${line}\n`);
    },
    warnOnce(key, text) {
      if (warned.has(key)) return;
      warned.add(key);
      ctx.warn(text);
    },
    credentialStorageWaiting() {
      // Opens the store if nobody has yet; a store that fails to open ends the wait too.
      ctx.credentialStorage().then(storageIdle, storageIdle);
      return storageWaiting;
    },
    credentialStorage(so = {}) {
      const insecure = !!so.insecure || o.env.LANYARD_INSECURE_STORAGE === '1';
      let p = storageP.get(insecure);
      if (!p) {
        p = Promise.all([
          import('../core/credentials/open.js'),
          import('../core/credentials/file-store.js'),
          ctx.configPath(),
          ctx.credentialLock(),
          keychainRequired(),
        ]).then(async ([{ openCredentialStore }, { FileCredentialStore }, configPath, lock, requireKeychain]) => {
          const dir = dirname(configPath);
          let fallbackReason: string | undefined;
          const primary = await openCredentialStore({
            configDir: dir,
            lock,
            insecure,
            disableKeychain: o.env.LANYARD_KEYCHAIN === 'off',
            requireKeychain,
            timeoutMs: keychainTimeoutMs(o.env),
            sessionBus: o.env.DBUS_SESSION_BUS_ADDRESS,
            ...(o.keychain && !insecure ? { keychain: o.keychain } : {}),
            onFallback: (why) => (fallbackReason = why),
            onWaiting: storageIdle,
          });
          if (debug()) {
            const opener = o.keychain && !insecure ? 'opened before the CLI loaded (bin/lanyard.js)' : 'opened by the command';
            o.io.err(
              `* credential store: ${primary.kind === 'keychain' ? `OS keychain, ${opener}` : `0600 file${fallbackReason ? ` (${fallbackReason})` : ''}`}`,
            );
          }
          const file = primary.kind === 'file' ? (primary as FileCredentialStore) : FileCredentialStore.inDir(dir, lock);
          return { primary: remembering(primary), fallbackReason, file: remembering(file), dir };
        });
        storageP.set(insecure, p);
      }
      return p;
    },
    credentialLock() {
      lockP ??= Promise.all([import('../core/credentials/lock.js'), ctx.configPath()]).then(([{ FileLock }, path]) => {
        const waitMs = o.env.LANYARD_LOCK_WAIT ? parseDuration(o.env.LANYARD_LOCK_WAIT, 'LANYARD_LOCK_WAIT') : ctx.lockWaitMs;
        return new FileLock(dirname(path), waitMs === undefined ? {} : { waitMs });
      });
      return lockP;
    },
    config() {
      configP ??= Promise.all([import('../core/config/store.js'), ctx.credentialLock()]).then(([{ ConfigStore }, lock]) =>
        ConfigStore.open(configOptions, lock),
      );
      return configP;
    },
    async configPath() {
      return (await reader()).path;
    },
    async profileName() {
      return (await ctx.profileSelection()).name;
    },
    async bindings() {
      return (await reader()).bindings();
    },
    async profileSelection() {
      const store = await reader();
      return selectProfile({ flag: o.globals().profile, env: o.env, bindings: store.bindings(), active: store.activeProfile, cwd: o.cwd });
    },
    async profile() {
      const store = await reader();
      const { name, reason } = await ctx.profileSelection();
      const settings = store.profile(name);
      if (!settings) {
        if (reason.kind === 'binding')
          throw new ConfigError(`no profile named "${name}" (bound to ${reason.dir})`, {
            hint: 'see `lanyard profile list`; `lanyard profile remove --dir DIR` removes the binding',
          });
        if (reason.kind === 'flag' || reason.kind === 'env')
          throw new ConfigError(`no profile named "${name}"`, { hint: 'see `lanyard profile list`; `lanyard emulator start` creates the "emulator" profile' });
        return { name, settings: {} };
      }
      return { name, settings };
    },
    http() {
      if (given.http) return Promise.resolve(given.http);
      httpP ??= (async () => {
        const [{ HttpClient }, { FilePacing }, { parsePlainHttpHosts }, { networkOptions }, lock, configPath, settings] = await Promise.all([
          import('../core/http/client.js'),
          import('../core/http/pacing.js'),
          import('../core/http/plain-http.js'),
          import('./network.js'),
          ctx.credentialLock(),
          ctx.configPath(),
          // A profile that does not exist is reported by the command that needs it.
          ctx.profile().then(
            (p) => p.settings,
            () => ({}),
          ),
        ]);
        const g = o.globals();
        const wait = !!g.wait || o.env.LANYARD_RATE_LIMIT_WAIT === '1';
        // An empty --max-wait is an error; an empty variable is as good as unset.
        const maxWaitText = g.maxWait ?? (o.env.LANYARD_RATE_LIMIT_MAX_WAIT || undefined);
        const { defaultRateLimitPolicy } = await import('../core/ratelimit/policy.js');
        const deadline = requestDeadlineMs(g.timeout ?? (o.env.LANYARD_TIMEOUT || undefined));
        return new HttpClient({
          clock,
          userAgent: `lanyard/${o.version}`,
          plainHttpHosts: parsePlainHttpHosts(o.env.LANYARD_ALLOW_PLAIN_HTTP),
          ...(await networkOptions(o.env, settings, ctx.warnOnce)),
          // An explicit deadline holds for downloads too; the defaults differ (5 min, downloads 1 h).
          ...(deadline === undefined ? {} : { timeouts: { totalMs: deadline }, streamTotalMs: deadline }),
          trace: debug() ? (line) => o.io.err(line) : undefined,
          onCredential: (forms) => forms.forEach(rememberSecret),
          rateLimitPolicy: {
            ...defaultRateLimitPolicy,
            wait,
            maxWaitMs: maxWaitText !== undefined ? parseDuration(maxWaitText, '--max-wait') : defaultRateLimitPolicy.maxWaitMs,
          },
          onRateLimit: (state) => rateLimits.set(state.resource ?? 'core', state),
          onSsoPartialResults: (organizations, url) =>
            ctx.warn(
              `results are partial: single sign-on left out the organisation${organizations.length > 1 ? 's' : ''} ${organizations.join(', ')} (${url}); authorise the token for ${organizations.length > 1 ? 'them' : 'it'} to see everything`,
            ),
          onRateLimitWait: ({ kind, waitMs, resetAt, url }) => {
            const fields = { kind, wait_ms: Math.round(waitMs), reset_at: new Date(resetAt).toISOString(), url: eventUrl(url) };
            if (!ciEvent(o.io, o.env, clock.now(), 'rate_limit_wait', fields))
              ctx.warn(`${kind} rate limit reached; waiting ${Math.ceil(waitMs / 1000)} s (--wait)`);
          },
          // Content-creating requests are paced across every process of this config directory (80/min, 500/h per API origin).
          pacing: await (await import('./pacing.js')).cliPacing({
            env: o.env,
            settings: await ctx.profile().then(
              (p) => p.settings,
              () => ({}),
            ),
            clock,
            local: new FilePacing(join(dirname(configPath), 'pacing.json'), lock, { onFallback: (why) => ctx.warnOnce('pacing', why) }),
            warnOnce: ctx.warnOnce,
            trace: debug() ? (line) => o.io.err(line) : undefined,
          }),
          onPacingWait: ({ waitMs, url }) => {
            if (!ciEvent(o.io, o.env, clock.now(), 'pacing_wait', { wait_ms: Math.round(waitMs), url: eventUrl(url) }) && waitMs >= 1000)
              ctx.warn(
                `pacing content-creating requests to ${new URL(url).origin} (80 a minute, 500 an hour, counted across Lanyard processes): waiting ${Math.ceil(waitMs / 1000)} s`,
              );
          },
          onRetry: ({ reason, attempt, waitMs, url }) =>
            ciEvent(o.io, o.env, clock.now(), 'retry', { reason, attempt, wait_ms: Math.round(waitMs), url: eventUrl(url) }),
        });
      })();
      return httpP;
    },
    credentials() {
      if (given.credentials) return Promise.resolve(given.credentials);
      credP ??= ctx.credentialStorage().then(({ primary: store, fallbackReason: why, dir }) => {
        const explicit = o.env.LANYARD_INSECURE_STORAGE === '1' || o.env.LANYARD_KEYCHAIN === 'off';
        if (store.kind !== 'file' || !why) return store;
        const where = `a plain file (mode 0600) in ${dir}`;
        // An unexpected fallback is said at once; a chosen one only when a secret is written.
        if (!explicit) {
          ctx.warnOnce('credential-fallback', `${why}; credentials are kept in ${where}`);
          return store;
        }
        return {
          kind: store.kind,
          get: (account) => store.get(account),
          delete: (account) => store.delete(account),
          list: () => store.list(),
          async set(account, secret) {
            ctx.warnOnce('credential-fallback', `${why}: storing the credential in ${where}`);
            await store.set(account, secret);
          },
        } satisfies CredentialStore;
      });
      return credP;
    },
    async credentialsForLookup() {
      const primary = await ctx.credentials();
      if (given.credentials || primary.kind === 'file' || (await keychainRequired())) return [primary];
      return [primary, (await ctx.credentialStorage()).file];
    },
    async browser() {
      if (given.browser) return given.browser;
      const { createBrowser } = await import('./browser.js');
      return createBrowser(o.env);
    },
    async close() {
      // A client that failed to build (bad --max-wait) was already reported: nothing to close.
      if (httpP) await httpP.then((h) => h.close()).catch(() => undefined);
    },
  };
  return ctx;
}

/** The longest deadline a timer holds (about 24 days); beyond it Node would fire at once. */
const MAX_DEADLINE_MS = 2 ** 31 - 1;

/** `--timeout` / LANYARD_TIMEOUT in ms (0: none), or undefined for the client's defaults. */
export function requestDeadlineMs(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseDuration(text, '--timeout');
  if (ms > MAX_DEADLINE_MS) throw new UsageError(`--timeout: at most 24d, got "${text}" (0 for no deadline)`);
  return ms;
}

/**
 * The store, with every secret read from or written to it remembered for
 * redaction (terminal-text.ts). The active login of a host (`hosting:<host>`, plain
 * text beside the JSON records) is an identifier, not a secret.
 */
function remembering<S extends CredentialStore>(store: S): S {
  const remember = (account: string, v: string | undefined) => {
    if (!(account.startsWith('hosting:') && v !== undefined && !v.startsWith('{'))) rememberSecret(v);
  };
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'get')
        return async (account: string) => {
          const v = await target.get(account);
          remember(account, v);
          return v;
        };
      if (prop === 'set')
        return async (account: string, secret: string) => {
          remember(account, secret);
          return target.set(account, secret);
        };
      const v = Reflect.get(target, prop, target) as unknown;
      if (prop === 'opened') for (const [account, secret] of (v as CredentialStore['opened']) ?? []) remember(account, secret);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}
